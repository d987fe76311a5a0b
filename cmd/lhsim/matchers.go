package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment/goal"
	goalsim "github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

func init() {
	register("matchers", matchersSummary, runMatchers)
}

const matchersSummary = "compare message matchers (list, bins:K, alpu:N, lhs, lhs+alpu:N) on GOAL workloads on the packet network, with their area"

func runMatchers(args []string) error {
	cfg := goal.MatchersConfig{Ranks: 64, Size: 8, Seed: 1, Reports: "synth-reports"}
	fs := newFlags("matchers", matchersSummary)
	intVar(fs, &cfg.Ranks, "ranks", 2, 1024, "ranks of the generated workloads (64 to 1024 for the study; fewer to try it)")
	intVar(fs, &cfg.Size, "size", 1, 1<<30, "bytes per message of the generated workloads")
	seedVar(fs, &cfg.Seed, "seed", "random_bisect's pairing")
	workloads := fs.String("workloads", strings.Join(goal.MatchersWorkloads, ","), "workloads, comma-separated: lhsim goal gen patterns or alltoall_late (docs/matchers.md; \"\" with --schedule: that alone)")
	fs.StringVar(&cfg.Schedule, "schedule", "", "also run this GOAL schedule")
	matchers := fs.String("matchers", strings.Join(goal.MatchersDefault, ","), "matchers, comma-separated: "+match.Usage)
	fs.StringVar(&cfg.Reports, "reports", cfg.Reports, "the area flow's checked-in Yosys reports, relative to the repository root")
	rtl := fs.String("rtl-nodes", "", "nodes whose ALPU (alpu:N, lhs+alpu:N, N up to 128) runs as Verilated RTL beside its model, checked against it (comma-separated)")
	out := addOutputFlags(fs)
	qplot := addPlotFlag(fs, "draw matching time against queue length per matcher to this file (.svg or .png)")
	pplot := &plotFlag{}
	fs.StringVar(&pplot.file, "plot-pareto", "", "draw area against end time, the Pareto front per workload, to this file (.svg or .png)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := qplot.check(fs); err != nil {
		return err
	}
	if err := pplot.check(fs); err != nil {
		return err
	}
	for _, w := range strings.Split(*workloads, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !slices.Contains(goalsim.Patterns(), w) && w != "alltoall_late" {
			return badUsage(fs, fmt.Errorf("--workloads: no pattern %q; patterns: alltoall_late, %s", w, strings.Join(goalsim.Patterns(), ", ")))
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
	for _, n := range cfg.RTLNodes {
		if n >= cfg.Ranks {
			return badUsage(fs, fmt.Errorf("--rtl-nodes: node %d: the workloads have ranks 0 to %d", n, cfg.Ranks-1))
		}
	}
	if len(cfg.Workloads) == 0 && cfg.Schedule == "" {
		return badUsage(fs, errMsg("no workload: give --workloads or --schedule"))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	r, err := goal.RunMatchers(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lhsim matchers: %v\n", err)
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
		return r.WriteParetoPlot(pplot.file)
	}
	return nil
}
