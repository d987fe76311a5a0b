package main

import (
	"strings"

	"github.com/lhsim/lhsim/experiment/goal"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/internal/flagval"
)

func init() {
	register(&command{name: "matchers", summary: "compare message matchers (list, bins:K, alpu:N, lhs, lhs+alpu:N, hash:K:N; with /overflow or /onload) on GOAL workloads and real programs' schedules on the packet network, with their area", flags: matchersFlags})
}

func matchersFlags(r *runner) func() error {
	cfg := goal.DefaultMatchers()
	fs := r.fs
	flagval.Int(fs, &cfg.Ranks, "ranks", 2, 1024, "ranks of the generated workloads (64 to 1024 for the study; fewer to try it)")
	flagval.Int(fs, &cfg.Size, "size", 1, 1<<30, "bytes per message of the generated workloads")
	flagval.Seed(fs, &cfg.Seed, "seed", "random_bisect's pairing")
	workloads := fs.String("workloads", strings.Join(cfg.Workloads, ","), "workloads, comma-separated: lhsim goal gen patterns, or fig6 (the LHS paper's micro-benchmark with lhsim search's set-up, for list and lhs), or real programs' schedules as PROGRAM.RANKS (traces/, build/traces/: make traces), apps for all of them (docs/matchers.md, docs/apps.md; \"\" with --schedule: that alone)")
	schedule := r.inFile("schedule", "also run this GOAL schedule")
	matchers := fs.String("matchers", strings.Join(cfg.Matchers, ","), "matchers, comma-separated: "+goal.MatcherUsage)
	fs.StringVar(&cfg.Reports, "reports", "", "a folder of Yosys reports with a summary.json (make synth; default: the checked-in synth-reports/, built into lhsim)")
	flagval.Nodes(fs, &cfg.RTLNodes, "rtl-nodes", false, "nodes whose matcher runs as Verilated RTL beside its model, checked against it (numbers and ranges: 0-3,17): "+goal.MatcherRTLUsage)
	r.outputs()
	r.plotFlag("draw matching time against queue length per matcher to this file (.svg or .png)")
	pareto := r.outFile("plot-pareto", "draw area against end time, the Pareto front per workload, to this file (.svg or .png)")
	depth := r.outFile("plot-depth", "draw the application workloads' distributions of the queue searched to this file (.svg or .png)")
	r.sweep()
	threads := r.threadsFlag()
	return func() (err error) {
		cfg.Schedule, cfg.Workloads, cfg.Matchers = *schedule, flagval.SplitList(*workloads), flagval.SplitList(*matchers)
		if cfg.Workloads, err = goal.ExpandApps(cfg.Workloads); err != nil {
			return r.check(err)
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if *depth != "" && !cfg.HasApps() {
			return r.usage("--plot-depth draws application workloads (PROGRAM.RANKS, apps); --workloads has none")
		}
		if cfg, err = cfg.PrepareInput(); err != nil {
			return err
		}
		cfg.Threads = r.splitThreads(*threads, len(cfg.Parts()), func(t int) (int, string) {
			c := cfg
			c.Threads = t
			return c.CellThreads()
		}, &successLines)
		cfg.Windows = windowsTo("matchers")
		cfg.Progress = r.progress("matchers", "runs")
		res, err := runSweep(r, cfg, goal.RunMatchers)
		if err != nil || res == nil {
			return err
		}
		if err := cli.WriteResult(r.json, r.out, res, res.WriteTable); err != nil {
			return err
		}
		if *r.plot != "" {
			if err := cli.WriteFile("--plot", *r.plot, res.WriteQueuePlot); err != nil {
				return err
			}
		}
		if *pareto != "" {
			if err := cli.WriteFile("--plot-pareto", *pareto, res.WriteParetoPlot); err != nil {
				return err
			}
		}
		if *depth != "" {
			return cli.WriteFile("--plot-depth", *depth, res.WriteDepthPlot)
		}
		return nil
	}
}
