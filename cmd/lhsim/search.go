package main

import (
	"github.com/lhsim/lhsim/experiment/rx"
)

func init() {
	register(&command{name: "search", summary: "unexpected-queue search time: no LHS, LHS, QsNET-II (paper Figure 6)", flags: searchFlags})
}

func searchFlags(r *runner) func() error {
	cfg := rx.DefaultSearch()
	fs := r.fs
	dev := addDeviceFlags(fs)
	intVar(fs, &cfg.MaxDepth, "max-depth", 1, 1<<20, "deepest search (messages ahead of the target); the RTL holds 1024 entries")
	intsVar(fs, &cfg.Depths, "depths", nil, 0, 1<<20, "comma-separated depths instead of the log-spaced 0..max-depth")
	seedVar(fs, &cfg.Seed, "seed", "seed of the non-target tags and the board")
	cpi := float64(cfg.CPU.CPIMilli) / 1000
	floatVar(fs, &cpi, "cpi", 0.001, 1000, "host cycles per instruction of the search loop (sensitivity; the default is an assumption, see docs/search.md)")
	intVar(fs, &cfg.SODIMMReadLatency, "sodimm-latency", 0, 1<<20, "what-if: SO-DIMM read latency in device cycles (0: the device default)")
	fs.BoolVar(&cfg.Native, "native", false, "also time the search on this machine's CPU (contiguous entries vs a scattered list)")
	r.outputs()
	r.plotFlag("draw Figure 6 to this .svg or .png file")
	r.sweep()
	return func() error {
		dc, err := dev.config(r)
		if err != nil {
			return err
		}
		cfg.Model, cfg.Bridge, cfg.Entries = dc.Model, dc.Bridge, dc.Entries
		if cfg.Driver, err = dev.host(r, cfg.Driver, 12, "the search's MPI messages"); err != nil {
			return err
		}
		cfg.CPU.CPIMilli = int64(cpi*1000 + 0.5)
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		cfg.Progress = r.progress("search", "steps")
		res, err := runSweep(r, cfg, rx.RunSearch)
		return report(r, res, err)
	}
}
