package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
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
	sizes := fs.String("sizes", "8,32,128", "comma-separated bytes per (source, destination) pair")
	schemes := fs.String("schemes", "sync_per_step,sync_at_start,proposed,barrier_per_step", "comma-separated schemes (the first three: Ohno et al.'s Figure 3; barrier_per_step: scheme 1 with a software barrier of puts)")
	fs.StringVar(&cfg.Algorithm, "algorithm", cfg.Algorithm, "suh-shin or direct (pairwise, n-1 steps: small tori only)")
	fs.BoolVar(&cfg.Uneven, "uneven", false, "also run with each node's blocks scaled by 0.5 to 1.5 (fixed by --seed)")
	fs.BoolVar(&cfg.Heavy, "heavy", false, "with --uneven: a heavy tail instead (every 8th node's blocks x4.0, the others x0.571)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the uneven sizes")
	fs.BoolVar(&cfg.EqualLatency, "equal-latency", false, "also run with every torus link at the mean of the X/Y/Z latencies")
	rule := fs.String("sync-rule", "stamped", "stamped (each sync packet carries its departure cycle; a margin of one burst per dimension) or paper (Ohno et al.'s rule as written: arrival less known latency)")
	nl := fs.Float64("node-latency", cfg.Cluster.NodeLatency.Microseconds(), "µs charged per put (Susukita et al.'s NSIM-ACE paper, section 5.1; Ohno et al. give none)")
	out := addOutputFlags(fs)
	plotOut := fs.String("plot", "", "draw total time against bytes per pair to this .svg or .png")
	sl := addSlurmFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	cfg.Torus = "torus:" + strings.TrimPrefix(*torus, "torus:")
	cfg.Sizes = nil
	for _, s := range splitList(*sizes) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return badUsage(fs, fmt.Errorf("--sizes: %q: want whole numbers of bytes of at least 1", s))
		}
		cfg.Sizes = append(cfg.Sizes, v)
	}
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
	if *nl < 0 {
		return badUsage(fs, fmt.Errorf("--node-latency %g: want µs >= 0", *nl))
	}
	cfg.Cluster.NodeLatency = netsim.NS(*nl * 1000)
	if _, err := cfg.Validate(); err != nil {
		return badUsage(fs, err)
	}
	if *plotOut != "" && !strings.HasSuffix(*plotOut, ".svg") && !strings.HasSuffix(*plotOut, ".png") {
		return badUsage(fs, fmt.Errorf("--plot %q: want a .svg or .png file", *plotOut))
	}
	if err := out.check(fs); err != nil {
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
		cfg.Progress = func(done, _ int) { pr.set(int64(done), "") }
	}
	res, err := sweep(sl, fs, "alltoall", out.json, cfg, cfg.Parts(), experiment.RunAlltoall,
		func(parts []*experiment.AlltoallResult) (*experiment.AlltoallResult, error) {
			return experiment.MergeAlltoall(cfg, parts)
		})
	pr.finish(err == nil)
	if err != nil || res == nil {
		return err
	}
	if err := out.write(res, res.WriteTable); err != nil {
		return err
	}
	if *plotOut != "" {
		return res.WritePlot(*plotOut)
	}
	return nil
}
