package main

import (
	"fmt"
	"strings"
	"sync"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/alltoall"
)

func init() {
	register("alltoall", alltoallSummary, runAlltoall)
}

const alltoallSummary = "Suh-Shin all-to-all on a torus: Ohno et al.'s sync per step, sync at start, or their start sync + computed waits (and a software barrier per step)"

func runAlltoall(args []string) error {
	cfg := experiment.DefaultAlltoall()
	fs := newFlags("alltoall", alltoallSummary)
	torus := fs.String("torus", strings.TrimPrefix(cfg.Torus, "torus:"), "torus dimensions, each a multiple of 4 for suh-shin (Ohno et al.'s paper, section 4.3: 16x16x16)")
	intsVar(fs, &cfg.Sizes, "sizes", []int{8, 32, 128}, 1, 1<<30, "comma-separated bytes per (source, destination) pair")
	schemes := fs.String("schemes", "sync_per_step,sync_at_start,proposed,barrier_per_step", "comma-separated schemes (the first three: Ohno et al.'s Figure 3; barrier_per_step: scheme 1 with a software barrier of puts)")
	fs.StringVar(&cfg.Algorithm, "algorithm", cfg.Algorithm, "suh-shin or direct (pairwise, n-1 steps: small tori only)")
	fs.BoolVar(&cfg.Uneven, "uneven", false, "also run with each node's blocks scaled by 0.5 to 1.5 (fixed by --seed)")
	fs.BoolVar(&cfg.Heavy, "heavy", false, "with --uneven: a heavy tail instead (every 8th node's blocks x4.0, the others x0.571)")
	seedVar(fs, &cfg.Seed, "seed", "seed of the uneven sizes")
	fs.BoolVar(&cfg.EqualLatency, "equal-latency", false, "also run with every torus link at the mean of the X/Y/Z latencies")
	rule := fs.String("sync-rule", "stamped", "stamped (each sync packet carries its departure cycle; a margin of one burst per dimension) or paper (Ohno et al.'s rule as written: arrival less known latency)")
	timeVar(fs, &cfg.Cluster.NodeLatency, "node-latency", delayUS, "µs charged per put (Susukita et al.'s NSIM-ACE paper, section 5.1; Ohno et al. give none)")
	out := addOutputFlags(fs)
	plotOut := addPlotFlag(fs, "draw total time against bytes per pair to this .svg or .png")
	sl := addSweepFlags(fs)
	tl := addTimelineFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	cfg.Torus = "torus:" + strings.TrimPrefix(*torus, "torus:")
	cfg.Schemes = nil
	for _, s := range splitList(*schemes) {
		sc, err := alltoall.ParseScheme(s)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--schemes: %w", err))
		}
		cfg.Schemes = append(cfg.Schemes, sc)
	}
	switch *rule {
	case "stamped":
	case "paper":
		cfg.PaperSyncRule = true
	default:
		return badUsage(fs, fmt.Errorf("--sync-rule %q: want stamped or paper", *rule))
	}
	if cfg.Heavy && !cfg.Uneven {
		return badUsage(fs, errMsg("--heavy is a distribution of the uneven sizes: add --uneven"))
	}
	if _, err := checkTopology(fs, "torus", cfg.Torus, cfg.Fabric, 2); err != nil {
		return err
	}
	if _, err := cfg.Validate(); err != nil {
		return badUsage(fs, err)
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if err := tl.checkLocal(fs, sl.Enabled || sl.Task != ""); err != nil {
		return err
	}
	var err error
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	runs := len(cfg.Sizes) * len(cfg.Schemes)
	if cfg.Uneven {
		runs *= 2
	}
	if cfg.EqualLatency {
		runs *= 2
	}
	var pr *progress
	if !sl.Enabled && sl.Task == "" {
		pr = newProgress(out.json, "alltoall", int64(runs), "runs")
		// Parts run at once (--jobs) each count their own runs: the bar counts the calls.
		var mu sync.Mutex
		var done int64
		cfg.Progress = func(int, int) {
			mu.Lock()
			defer mu.Unlock()
			done++
			pr.set(done, "")
		}
	}
	res, err := sweep(sl, fs, "alltoall", out.json, cfg, cfg.Parts(), experiment.RunAlltoall,
		func(parts []*experiment.AlltoallResult) (*experiment.AlltoallResult, error) {
			return experiment.MergeAlltoall(cfg, parts)
		})
	pr.finish(err == nil)
	err = tl.end(err)
	if err != nil || res == nil {
		return err
	}
	return report(out, plotOut, res)
}
