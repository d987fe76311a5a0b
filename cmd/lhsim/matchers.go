package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment/goal"
	"github.com/lhsim/lhsim/experiment/rx"
	goalsim "github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

func init() {
	register("matchers", matchersSummary, runMatchers)
}

const matchersSummary = "compare message matchers (list, bins:K, alpu:N, lhs, lhs+alpu:N, hash:K:N; with /overflow or /onload) on GOAL workloads on the packet network, with their area"

func runMatchers(args []string) error {
	cfg := goal.MatchersConfig{Ranks: 256, Size: 8, Seed: 1, Fig6: rx.DefaultSearch()}
	fs := newFlags("matchers", matchersSummary)
	intVar(fs, &cfg.Ranks, "ranks", 2, 1024, "ranks of the generated workloads (64 to 1024 for the study; fewer to try it)")
	intVar(fs, &cfg.Size, "size", 1, 1<<30, "bytes per message of the generated workloads")
	seedVar(fs, &cfg.Seed, "seed", "random_bisect's pairing")
	workloads := fs.String("workloads", strings.Join(goal.MatchersWorkloads, ","), "workloads, comma-separated: lhsim goal gen patterns, or fig6 (the LHS paper's micro-benchmark with lhsim search's set-up, for list and lhs), or real programs' schedules as PROGRAM.RANKS (traces/, build/traces/: make traces), apps for all of them (docs/matchers.md, docs/apps.md; \"\" with --schedule: that alone)")
	fs.StringVar(&cfg.Schedule, "schedule", "", "also run this GOAL schedule")
	matchers := fs.String("matchers", strings.Join(goal.MatchersDefault, ","), "matchers, comma-separated: "+match.Usage)
	fs.StringVar(&cfg.Reports, "reports", "", "a folder of Yosys reports with a summary.json (make synth; default: the checked-in synth-reports/, built into lhsim)")
	rtl := fs.String("rtl-nodes", "", "nodes whose matcher runs as Verilated RTL beside its model, checked against it (comma-separated): "+match.RTLUsage)
	out := addOutputFlags(fs)
	qplot := addPlotFlag(fs, "draw matching time against queue length per matcher to this file (.svg or .png)")
	pplot := &plotFlag{}
	fs.StringVar(&pplot.file, "plot-pareto", "", "draw area against end time, the Pareto front per workload, to this file (.svg or .png)")
	dplot := &plotFlag{}
	fs.StringVar(&dplot.file, "plot-depth", "", "draw the application workloads' distributions of the queue searched to this file (.svg or .png)")
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := qplot.check(fs); err != nil {
		return err
	}
	if err := pplot.check(fs); err != nil {
		return err
	}
	if err := dplot.check(fs); err != nil {
		return err
	}
	apps := goal.AppWorkloads()
	for _, w := range strings.Split(*workloads, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if w == "apps" {
			if len(apps) == 0 {
				return badUsage(fs, errMsg("--workloads apps: no application schedule under traces/ or build/traces/ (make traces)"))
			}
			cfg.Workloads = append(cfg.Workloads, apps...)
			continue
		}
		if !slices.Contains(goalsim.Patterns(), w) && w != rx.Fig6Workload && goal.AppSchedule(w) == "" {
			return badUsage(fs, fmt.Errorf("--workloads: no workload %q; workloads: %s, %s; applications (make traces for more): %s", w,
				strings.Join(goalsim.Patterns(), ", "), rx.Fig6Workload, strings.Join(apps, ", ")))
		}
		cfg.Workloads = append(cfg.Workloads, w)
	}
	for _, m := range strings.Split(*matchers, ",") {
		spec, err := match.Parse(strings.TrimSpace(m))
		if err != nil {
			return badUsage(fs, fmt.Errorf("--matchers: %w", err))
		}
		cfg.Matchers = append(cfg.Matchers, spec.String())
	}
	var err error
	if cfg.RTLNodes, err = nodeList(*rtl); err != nil {
		return badUsage(fs, fmt.Errorf("--rtl-nodes %q: want node numbers separated by commas", *rtl))
	}
	if slices.Contains(cfg.Workloads, rx.Fig6Workload) && !slices.ContainsFunc(cfg.Matchers, func(m string) bool { return slices.Contains(rx.Fig6Matchers, m) }) {
		return badUsage(fs, fmt.Errorf("--workloads %s runs the matchers %s; --matchers has neither", rx.Fig6Workload, strings.Join(rx.Fig6Matchers, " and ")))
	}
	if dplot.file != "" && !slices.ContainsFunc(cfg.Workloads, func(w string) bool { return goal.AppSchedule(w) != "" }) {
		return badUsage(fs, errMsg("--plot-depth draws application workloads (PROGRAM.RANKS, apps); --workloads has none"))
	}
	if len(cfg.Workloads) == 0 && cfg.Schedule == "" {
		return badUsage(fs, errMsg("no workload: give --workloads or --schedule"))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if cfg, err = cfg.Prepare(); err != nil { // the schedule file, or a pattern at --ranks: the input
		fmt.Fprintf(os.Stderr, "lhsim matchers: %v\n", err)
		return usageError{err}
	}
	for _, n := range cfg.RTLNodes {
		if n >= cfg.Ranks {
			return badUsage(fs, fmt.Errorf("--rtl-nodes: node %d: the workloads have ranks 0 to %d", n, cfg.Ranks-1))
		}
	}
	parts := cfg.Parts()
	pr := newProgress(out.json, "matchers", int64(len(parts)), "runs")
	cfg.Progress = callsProgress(pr)
	for i := range parts {
		parts[i].Config.Progress = cfg.Progress
	}
	r, err := runParts(fs, "matchers", cfg, parts, goal.RunMatchers, goal.MergeMatchers)
	pr.finish(err == nil)
	if err != nil {
		return err
	}
	if err := out.write(r, r.WriteTable); err != nil {
		return err
	}
	if qplot.file != "" {
		if err := r.WriteQueuePlot(qplot.file); err != nil {
			return err
		}
	}
	if pplot.file != "" {
		if err := r.WriteParetoPlot(pplot.file); err != nil {
			return err
		}
	}
	if dplot.file != "" {
		return r.WriteDepthPlot(dplot.file)
	}
	return nil
}
