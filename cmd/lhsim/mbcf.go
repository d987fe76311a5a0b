package main

import (
	"fmt"
	"strconv"

	"github.com/lhsim/lhsim/experiment/mbcf"
	mbcfsim "github.com/lhsim/lhsim/netsim/mbcf"
)

func init() {
	register("mbcf", mbcfSummary, runMBCF)
}

const mbcfSummary = "memory-based communication (remote WRITE, READ, SWAP with protection) over 100BASE-TX and 10BASE-T: Tables 1-4 of Matsumoto and Hiraki's MBCF paper"

func runMBCF(args []string) error {
	cfg := mbcf.Default()
	fs := newFlags("mbcf", mbcfSummary)
	networks := fs.String("network", "100basetx,10baset", "comma-separated networks: 100basetx, 10baset")
	sizes := fs.String("sizes", "4,16,64,256,1024", "round-trip and send-overhead data sizes, bytes (1.."+strconv.Itoa(mbcfsim.MaxSwapData)+", the most one SWAP_STAT packet holds; SWAP takes multiples of 4)")
	bwSizes := fs.String("bandwidth-sizes", "4,16,64,256,1024,1408", "peak-bandwidth data sizes, bytes (1.."+strconv.Itoa(mbcfsim.MaxReplyData)+", the most a WRITE with a flag carries)")
	intVar(fs, &cfg.Iterations, "iterations", 1, 1_000_000, "round trips averaged per figure")
	intVar(fs, &cfg.Writes, "writes", 1, 1_000_000, "MBCF_WRITEs per bandwidth figure (a whole number of groups)")
	intVar(fs, &cfg.Group, "group", 1, 1_000_000, "a completion flag every this many writes (the paper's 16)")
	intVar(fs, &cfg.GroupsInFlight, "groups-in-flight", 1, 64, "1: wait for each group's flag before the next (the paper's plain reading); k: let k groups be on their way")
	intVar(fs, &cfg.TxRing, "tx-ring", 0, 256, "frames each adapter may hold handed over: 1 one at a time (the default reading of the paper's Figure 3), more a transmit ring (docs/mbcfsim.md); 0: the network's preset")
	timeVar(fs, &cfg.TimerRead, "timer", delayUS, "µs the paper's software timer adds to round trips and send overhead (§4.1); 0 for the simulated times alone")
	floatVar(fs, &cfg.Faults.Drop, "drop", 0, 1, "lossy link: rate of frames dropped (0 <= rate < 1)")
	floatVar(fs, &cfg.Faults.Duplicate, "duplicate", 0, 1, "lossy link: rate of frames delivered twice")
	floatVar(fs, &cfg.Faults.Reorder, "reorder", 0, 1, "lossy link: rate of frames held back past later ones")
	floatVar(fs, &cfg.Faults.Corrupt, "corrupt", 0, 1, "lossy link: rate of frames corrupted (they fail their FCS)")
	seedVar(fs, &cfg.Seed, "seed", "seed of the hub's backoff and of the lossy link")
	plotOut := addPlotFlag(fs, "draw round trips and bandwidth against size, beside the paper, to this .svg or .png")
	out := addOutputFlags(fs)
	tl := addTimelineFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg.Networks = splitList(*networks)
	if len(cfg.Networks) == 0 {
		return badUsage(fs, errMsg("--network: name at least one network"))
	}
	for _, nw := range cfg.Networks {
		if _, err := mbcfsim.ForNetwork(nw); err != nil {
			return badUsage(fs, fmt.Errorf("--network: %w", err))
		}
	}
	var err error
	if cfg.Sizes, err = sizeList(*sizes, mbcfsim.MaxSwapData); err != nil {
		return badUsage(fs, fmt.Errorf("--sizes: %w", err))
	}
	if cfg.BandwidthSizes, err = sizeList(*bwSizes, mbcfsim.MaxReplyData); err != nil {
		return badUsage(fs, fmt.Errorf("--bandwidth-sizes: %w", err))
	}
	if cfg.Writes < cfg.Group || cfg.Writes%cfg.Group != 0 {
		return badUsage(fs, fmt.Errorf("--writes %d, --group %d: want a whole number of groups of at least one write", cfg.Writes, cfg.Group))
	}
	cfg.Faults.Seed = cfg.Seed
	if err := cfg.Faults.Validate(); err != nil {
		return badUsage(fs, err)
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if err := tl.check(fs); err != nil {
		return err
	}
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	pr := newProgress(out.json, "mbcf", int64(cfg.Measurements()), "measurements")
	cfg.Progress = callsProgress(pr)
	res, err := runParts(fs, "mbcf", cfg, cfg.Parts(), mbcf.Run, func(parts []*mbcf.Result) (*mbcf.Result, error) {
		return mbcf.Merge(cfg, parts)
	})
	pr.finish(err == nil)
	err = tl.end(err)
	if err != nil {
		return err
	}
	return report(out, plotOut, res)
}

// sizeList parses comma-separated byte counts in 1..most.
func sizeList(s string, most int) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > most {
			return nil, fmt.Errorf("%q: want whole numbers of bytes from 1 to %d", f, most)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errMsg("name at least one size")
	}
	return out, nil
}
