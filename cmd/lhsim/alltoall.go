package main

import (
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/net"
)

func init() {
	register(&command{name: "alltoall", summary: "Suh-Shin all-to-all on a torus: Ohno et al.'s sync per step, sync at start, or their start sync + computed waits (and a software barrier per step)", flags: alltoallFlags})
}

func alltoallFlags(r *runner) func() error {
	cfg := net.DefaultAlltoall()
	fs := r.fs
	// (The dimensions alone, torus: understood: a torus:... given is the same torus.)
	torus := parsedVar(fs, "torus", strings.TrimPrefix(cfg.Torus.String(), "torus:"), "torus dimensions, each a multiple of 4 for suh-shin (Ohno et al.'s paper, section 4.3: 16x16x16)", func(s string) (err error) {
		cfg.Torus, err = experiment.ParseTopology("torus:" + strings.TrimPrefix(s, "torus:"))
		return err
	})
	intsVar(fs, &cfg.Sizes, "sizes", []int{8, 32, 128}, 1, 1<<30, "comma-separated bytes per (source, destination) pair")
	schemes := fs.String("schemes", "sync_per_step,sync_at_start,proposed,barrier_per_step", "comma-separated schemes (the first three: Ohno et al.'s Figure 3; barrier_per_step: scheme 1 with a software barrier of puts)")
	fs.StringVar(&cfg.Algorithm, "algorithm", cfg.Algorithm, "suh-shin or direct (pairwise, n-1 steps: small tori only)")
	fs.BoolVar(&cfg.Uneven, "uneven", false, "also run with each node's blocks scaled by 0.5 to 1.5 (fixed by --seed)")
	fs.BoolVar(&cfg.Heavy, "heavy", false, "with --uneven: a heavy tail instead (every 8th node's blocks x4.0, the others x0.571)")
	seedVar(fs, &cfg.Seed, "seed", "seed of the uneven sizes")
	fs.BoolVar(&cfg.EqualLatency, "equal-latency", false, "also run with every torus link at the mean of the X/Y/Z latencies")
	rule := fs.String("sync-rule", "stamped", "stamped (each sync packet carries its departure cycle; a margin of one burst per dimension) or paper (Ohno et al.'s rule as written: arrival less known latency)")
	timeVar(fs, &cfg.Cluster.NodeLatency, "node-latency", delayUS, "µs charged per put (Susukita et al.'s NSIM-ACE paper, section 5.1; Ohno et al. give none)")
	r.outputs()
	r.plotFlag("draw total time against bytes per pair to this .svg or .png")
	r.sweep()
	threads := r.threadsFlag()
	r.timeline()
	return func() (err error) {
		if cfg.Schemes, err = net.ParseSchemes(splitList(*schemes)); err != nil {
			return r.check(err)
		}
		switch *rule {
		case "stamped":
		case "paper":
			cfg.PaperSyncRule = true
		default:
			return r.usage("--sync-rule %q: want stamped or paper", *rule)
		}
		if err := torus.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.Threads = r.splitThreads(*threads, len(cfg.Parts()), func(t int) (int, string) {
			c := cfg
			c.Threads = t
			return net.AlltoallThreads(c)
		}, &successLines)
		cfg.Windows = windowsTo("alltoall")
		cfg.Progress = r.progress("alltoall", "runs")
		res, err := runSweep(r, cfg, net.RunAlltoall)
		return report(r, res, err)
	}
}
