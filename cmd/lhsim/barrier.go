package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/collective"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func init() {
	register("barrier", barrierSummary, runBarrier)
}

const barrierSummary = "RDMA barriers (ring, recursive doubling, dissemination) against process count on a simulated network (seed 003)"

func runBarrier(args []string) error {
	cfg := experiment.DefaultBarrier()
	fs := newFlags("barrier", barrierSummary)
	topos := fs.String("topology", strings.Join(cfg.Topologies, ","), "comma-separated topologies: crossbar:N, fattree:KxN, torus:XxYxZ")
	algs := fs.String("algorithm", "ring,recursive_doubling,dissemination", "comma-separated barriers")
	procs := fs.String("processes", "", "comma-separated process counts (default: powers of two and the count above each, up to the topology's size)")
	nls := fs.String("node-latency", "0,0.8,1.0,1.2", "comma-separated node latencies in µs (seed 003 section 5.1)")
	fs.IntVar(&cfg.RingMax, "ring-max", cfg.RingMax, "largest process count for the ring, which sends p(p-1) puts")
	out := addOutputFlags(fs)
	plotOut := fs.String("plot", "", "draw barrier time against processes (node latency 1.0 µs when swept) to this .svg or .png")
	sl := addSlurmFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	cfg.Topologies = splitList(*topos)
	var sizes []int
	for _, ts := range cfg.Topologies {
		topo, err := fabric.ParseTopology(ts)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--topology: %w", err))
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
		p, err := strconv.Atoi(s)
		if err != nil || p < 2 {
			return badUsage(fs, fmt.Errorf("--processes: %q: want whole numbers of at least 2", s))
		}
		for i, n := range sizes {
			if p > n {
				return badUsage(fs, fmt.Errorf("--processes: %d processes on %s (%d nodes)", p, cfg.Topologies[i], n))
			}
		}
		cfg.Processes = append(cfg.Processes, p)
	}
	cfg.NodeLatency = nil
	for _, s := range splitList(*nls) {
		us, err := strconv.ParseFloat(s, 64)
		if err != nil || us < 0 {
			return badUsage(fs, fmt.Errorf("--node-latency: %q: want microseconds >= 0", s))
		}
		cfg.NodeLatency = append(cfg.NodeLatency, netsim.NS(us*1000))
	}
	if cfg.RingMax < 2 {
		return badUsage(fs, fmt.Errorf("--ring-max %d: want at least 2", cfg.RingMax))
	}
	if *plotOut != "" && !strings.HasSuffix(*plotOut, ".svg") && !strings.HasSuffix(*plotOut, ".png") {
		return badUsage(fs, fmt.Errorf("--plot %q: want a .svg or .png file", *plotOut))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	res, err := sweep(sl, fs, "barrier", out.json, cfg, cfg.Parts(), experiment.RunBarrier,
		func(parts []*experiment.BarrierResult) (*experiment.BarrierResult, error) {
			return experiment.MergeBarrier(parts), nil
		})
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
