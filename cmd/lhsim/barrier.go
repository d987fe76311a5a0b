package main

import (
	"fmt"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/collective"
)

func init() {
	register("barrier", barrierSummary, runBarrier)
}

const barrierSummary = "RDMA barriers (ring, recursive doubling, dissemination) against process count on a simulated network (Susukita et al.'s NSIM-ACE paper)"

func runBarrier(args []string) error {
	cfg := experiment.DefaultBarrier()
	fs := newFlags("barrier", barrierSummary)
	topos := fs.String("topology", strings.Join(cfg.Topologies, ","), "comma-separated topologies: crossbar:N, fattree:KxN, torus:XxYxZ")
	algs := fs.String("algorithm", "ring,recursive_doubling,dissemination", "comma-separated barriers")
	procs := fs.String("processes", "", "comma-separated process counts (default: powers of two and the count above each, up to the topology's size)")
	timesVar(fs, &cfg.NodeLatency, "node-latency", delayUS, "comma-separated node latencies in µs (the NSIM-ACE paper's section 5.1)")
	intVar(fs, &cfg.RingMax, "ring-max", 2, maxRanks, "largest process count for the ring, which sends p(p-1) puts")
	out := addOutputFlags(fs)
	plotOut := addPlotFlag(fs, "draw barrier time against processes (node latency 1.0 µs when swept) to this .svg or .png")
	sl := addSweepFlags(fs)
	tl := addTimelineFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	cfg.Topologies = splitList(*topos)
	var sizes []int
	for _, ts := range cfg.Topologies {
		topo, err := checkTopology(fs, "topology", ts, cfg.Fabric, 2)
		if err != nil {
			return err
		}
		sizes = append(sizes, topo.Nodes())
	}
	cfg.Algorithms = nil
	for _, a := range splitList(*algs) {
		alg, err := collective.ParseAlgorithm(a)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--algorithm: %w", err))
		}
		cfg.Algorithms = append(cfg.Algorithms, alg)
	}
	for _, s := range splitList(*procs) {
		p64, err := parseInt(s, 2, maxRanks)
		p := int(p64)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--processes %s: %w", s, err))
		}
		for i, n := range sizes {
			if p > n {
				return badUsage(fs, fmt.Errorf("--processes: %d processes on %s (%d nodes)", p, cfg.Topologies[i], n))
			}
		}
		cfg.Processes = append(cfg.Processes, p)
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
	var pr *progress
	if !sl.Enabled && sl.Task == "" {
		cfg.Progress = func(done, total int) {
			if pr == nil {
				pr = newProgress(out.json, "barrier", int64(total), "barriers")
			}
			pr.set(int64(done), "")
		}
	}
	res, err := sweep(sl, fs, "barrier", out.json, cfg, cfg.Parts(), experiment.RunBarrier,
		func(parts []*experiment.BarrierResult) (*experiment.BarrierResult, error) {
			return experiment.MergeBarrier(parts), nil
		})
	pr.finish(err == nil)
	err = tl.end(err)
	if err != nil || res == nil {
		return err
	}
	return report(out, plotOut, res)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
