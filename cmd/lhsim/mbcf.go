package main

import (
	"fmt"
	"strconv"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/mbcf"
)

func init() {
	register("mbcf", mbcfSummary, runMBCF)
}

const mbcfSummary = "memory-based communication (remote WRITE, READ, SWAP with protection) over 100BASE-TX and 10BASE-T: Tables 1-4 of Matsumoto and Hiraki's MBCF paper"

func runMBCF(args []string) error {
	cfg := experiment.DefaultMBCF()
	fs := newFlags("mbcf", mbcfSummary)
	networks := fs.String("network", "100basetx,10baset", "comma-separated networks: 100basetx, 10baset")
	sizes := fs.String("sizes", "4,16,64,256,1024", "round-trip and send-overhead data sizes, bytes (1.."+strconv.Itoa(mbcf.MaxSwapData)+", the most one SWAP_STAT packet holds; SWAP takes multiples of 4)")
	bwSizes := fs.String("bandwidth-sizes", "4,16,64,256,1024,1408", "peak-bandwidth data sizes, bytes (1.."+strconv.Itoa(mbcf.MaxReplyData)+", the most a WRITE with a flag carries)")
	fs.IntVar(&cfg.Iterations, "iterations", cfg.Iterations, "round trips averaged per figure")
	fs.IntVar(&cfg.Writes, "writes", cfg.Writes, "MBCF_WRITEs per bandwidth figure (a whole number of groups)")
	fs.IntVar(&cfg.Group, "group", cfg.Group, "a completion flag every this many writes (the paper's 16)")
	fs.IntVar(&cfg.GroupsInFlight, "groups-in-flight", cfg.GroupsInFlight, "1: wait for each group's flag before the next (the paper's plain reading); k: let k groups be on their way")
	fs.IntVar(&cfg.TxRing, "tx-ring", cfg.TxRing, "frames each adapter may hold handed over: 1 one at a time (the default reading of the paper's Figure 3), more a transmit ring (docs/mbcf.md)")
	timer := fs.Float64("timer", cfg.TimerRead.Microseconds(), "µs the paper's software timer adds to round trips and send overhead (§4.1); 0 for the simulated times alone")
	fs.Float64Var(&cfg.Faults.Drop, "drop", 0, "lossy link: rate of frames dropped (0 <= rate < 1)")
	fs.Float64Var(&cfg.Faults.Duplicate, "duplicate", 0, "lossy link: rate of frames delivered twice")
	fs.Float64Var(&cfg.Faults.Reorder, "reorder", 0, "lossy link: rate of frames held back past later ones")
	fs.Float64Var(&cfg.Faults.Corrupt, "corrupt", 0, "lossy link: rate of frames corrupted (they fail their FCS)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the hub's backoff and of the lossy link")
	plotOut := addPlotFlag(fs, "draw round trips and bandwidth against size, beside the paper, to this .svg or .png")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg.Networks = splitList(*networks)
	if len(cfg.Networks) == 0 {
		return badUsage(fs, errMsg("--network: name at least one network"))
	}
	for _, nw := range cfg.Networks {
		if _, err := mbcf.ForNetwork(nw); err != nil {
			return badUsage(fs, fmt.Errorf("--network: %w", err))
		}
	}
	var err error
	if cfg.Sizes, err = sizeList(*sizes, mbcf.MaxSwapData); err != nil {
		return badUsage(fs, fmt.Errorf("--sizes: %w", err))
	}
	if cfg.BandwidthSizes, err = sizeList(*bwSizes, mbcf.MaxReplyData); err != nil {
		return badUsage(fs, fmt.Errorf("--bandwidth-sizes: %w", err))
	}
	switch {
	case cfg.Iterations < 1:
		return badUsage(fs, fmt.Errorf("--iterations %d: want at least 1", cfg.Iterations))
	case cfg.Group < 1 || cfg.Writes < cfg.Group || cfg.Writes%cfg.Group != 0:
		return badUsage(fs, fmt.Errorf("--writes %d, --group %d: want a whole number of groups of at least one write", cfg.Writes, cfg.Group))
	case cfg.GroupsInFlight < 1 || cfg.GroupsInFlight > 64:
		return badUsage(fs, fmt.Errorf("--groups-in-flight %d: want 1..64", cfg.GroupsInFlight))
	case cfg.TxRing < 0 || cfg.TxRing > 256:
		return badUsage(fs, fmt.Errorf("--tx-ring %d: want 1..256 (0: the preset's)", cfg.TxRing))
	case !(*timer >= 0 && *timer < 1e6):
		return badUsage(fs, fmt.Errorf("--timer %g: want µs >= 0", *timer))
	}
	cfg.TimerRead = netsim.NS(*timer * 1000)
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
	res, err := experiment.RunMBCF(cfg)
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
