package main

import (
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment/mbcf"
	"github.com/lhsim/lhsim/internal/flagval"
)

func init() {
	register(&command{name: "mbcf", summary: "memory-based communication (remote WRITE, READ, SWAP with protection) over 100BASE-TX and 10BASE-T: Tables 1-4 of Matsumoto and Hiraki's MBCF paper", flags: mbcfFlags})
}

func mbcfFlags(r *runner) func() error {
	cfg := mbcf.Default()
	fs := r.fs
	networks := fs.String("network", strings.Join(cfg.Networks, ","), "comma-separated networks: 100basetx, 10baset")
	flagval.Ints(fs, &cfg.Sizes, "sizes", cfg.Sizes, 1, mbcf.MaxSwapData, "round-trip and send-overhead data sizes, bytes (1.."+strconv.Itoa(mbcf.MaxSwapData)+", the most one SWAP_STAT packet holds; SWAP takes multiples of 4)")
	flagval.Ints(fs, &cfg.BandwidthSizes, "bandwidth-sizes", cfg.BandwidthSizes, 1, mbcf.MaxReplyData, "peak-bandwidth data sizes, bytes (1.."+strconv.Itoa(mbcf.MaxReplyData)+", the most a WRITE with a flag carries)")
	flagval.Int(fs, &cfg.Iterations, "iterations", 1, 1_000_000, "round trips averaged per figure")
	flagval.Int(fs, &cfg.Writes, "writes", 1, 1_000_000, "MBCF_WRITEs per bandwidth figure (a whole number of groups)")
	flagval.Int(fs, &cfg.Group, "group", 1, 1_000_000, "a completion flag every this many writes (the paper's 16)")
	flagval.Int(fs, &cfg.GroupsInFlight, "groups-in-flight", 1, 64, "1: wait for each group's flag before the next (the paper's plain reading); k: let k groups be on their way")
	flagval.Int(fs, &cfg.TxRing, "tx-ring", 0, 256, "frames each adapter may hold handed over: 1 one at a time (the default reading of the paper's Figure 3), more a transmit ring (docs/mbcf.md); 0: the network's preset")
	flagval.Time(fs, &cfg.TimerRead, "timer", flagval.DelayUS, "µs the paper's software timer adds to round trips and send overhead (§4.1); 0 for the simulated times alone")
	flagval.Float(fs, &cfg.Faults.Drop, "drop", 0, 1, "lossy link: rate of frames dropped (0 <= rate < 1)")
	flagval.Float(fs, &cfg.Faults.Duplicate, "duplicate", 0, 1, "lossy link: rate of frames delivered twice")
	flagval.Float(fs, &cfg.Faults.Reorder, "reorder", 0, 1, "lossy link: rate of frames held back past later ones")
	flagval.Float(fs, &cfg.Faults.Corrupt, "corrupt", 0, 1, "lossy link: rate of frames corrupted (they fail their FCS)")
	flagval.Seed(fs, &cfg.Seed, "seed", "seed of the hub's backoff and of the lossy link")
	r.plotFlag("draw round trips and bandwidth against size, beside the paper, to this .svg or .png")
	r.outputs()
	r.sweep()
	r.timeline()
	return func() (err error) {
		cfg.Networks = flagval.SplitList(*networks)
		cfg.Faults.Seed = cfg.Seed
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.Progress = r.progress("mbcf", "measurements")
		res, err := runSweep(r, cfg, mbcf.Run)
		return report(r, res, err)
	}
}
