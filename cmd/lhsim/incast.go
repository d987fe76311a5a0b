package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/incast"
)

func init() {
	register("incast", incastSummary, runIncast)
}

const incastSummary = "many senders to LHS receive paths (RTL) in the network, receives posted late: LHS on against off (Tanabe et al.'s LHS paper)"

func runIncast(args []string) error {
	cfg := incast.Default()
	fs := newFlags("incast", incastSummary)
	fs.StringVar(&cfg.Topology, "topology", cfg.Topology, "crossbar:N, fattree:KxN or torus:XxYxZ")
	intVar(fs, &cfg.Receivers, "receivers", 1, maxRanks, "ranks 0..N-1 receive; every other rank sends to each of them")
	rtl := fs.String("rtl-nodes", "all", "receivers whose receive path is the Verilated RTL (comma-separated, or all); the others run --model")
	bridge := fs.String("bridge", string(cfg.Bridge), "the RTL receivers' bridge: cgo (in this process) or plugin (a process each)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "what the receivers not in --rtl-nodes run: go (golden model) or tlm (transaction-level model)")
	fs.StringVar(&cfg.Host, "host", cfg.Host, "the receivers' software: mpi (drivers/mpi on each node's host bus, timed by the host CPU model) or costs (lhsim search's per-message costs, inputs; needed for --model tlm)")
	fs.BoolVar(&cfg.Speed, "speed", cfg.Speed, "also run LHS on with every receiver RTL (cgo, plugin), golden model and (--host costs) TLM, and compare speeds")
	plotOut := addPlotFlag(fs, "draw receives completed against time, LHS on and off, to this .svg or .png")
	intVar(fs, &cfg.Messages, "messages", 1, 1<<20, "messages from each sender to each receiver")
	seedVar(fs, &cfg.Seed, "seed", "seed of the message sizes")
	timeVar(fs, &cfg.PostAt, "post-at", momentUS, "when the receivers post their receives, µs")
	trace := -1
	intVar(fs, &trace, "trace", -1, maxRanks, "write receiver NODE's RTL waveform (LHS-on run) with a GTKWave save file")
	traceFile := fs.String("trace-file", "", "the waveform's file (default build/waves/incast-nodeNODE.fst)")
	out := addOutputFlags(fs)
	tl := addTimelineFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	topo, err := checkTopology(fs, "topology", cfg.Topology, cfg.Fabric, 2)
	if err != nil {
		return err
	}
	if cfg.Receivers >= topo.Nodes() {
		return badUsage(fs, fmt.Errorf("--receivers %d: %s has %d nodes, and at least one must send: want 1 to %d", cfg.Receivers, cfg.Topology, topo.Nodes(), topo.Nodes()-1))
	}
	switch device.Bridge(*bridge) {
	case device.Cgo, device.Plugin:
		cfg.Bridge = device.Bridge(*bridge)
	default:
		return badUsage(fs, fmt.Errorf("--bridge %q: want cgo or plugin", *bridge))
	}
	if cfg.Model != "go" && cfg.Model != "tlm" {
		return badUsage(fs, fmt.Errorf("--model %q: want go or tlm", cfg.Model))
	}
	switch {
	case cfg.Host != incast.HostMPI && cfg.Host != incast.HostCosts:
		return badUsage(fs, fmt.Errorf("--host %q: want mpi or costs", cfg.Host))
	case cfg.Host == incast.HostMPI && cfg.Model == "tlm" && *rtl != "all":
		return badUsage(fs, errMsg("--model tlm has no host bus for the MPI host to run on: add --host costs"))
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	if *rtl != "all" {
		cfg.RTLNodes = []int{}
		for _, s := range splitList(*rtl) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= cfg.Receivers {
				return badUsage(fs, fmt.Errorf("--rtl-nodes: %q is not a receiver (0..%d)", s, cfg.Receivers-1))
			}
			cfg.RTLNodes = append(cfg.RTLNodes, n)
		}
	}
	if trace >= 0 {
		if trace >= cfg.Receivers {
			return badUsage(fs, fmt.Errorf("--trace %d: not a receiver (0..%d)", trace, cfg.Receivers-1))
		}
		if cfg.RTLNodes != nil && !slices.Contains(cfg.RTLNodes, trace) {
			return badUsage(fs, fmt.Errorf("--trace %d: that receiver runs --model %s, which has no waveform (add it to --rtl-nodes)", trace, cfg.Model))
		}
		if cfg.Bridge != device.Cgo {
			return badUsage(fs, errMsg("--trace records the waveform in this process: use --bridge cgo"))
		}
		cfg.TraceNode, cfg.Trace = trace, *traceFile
		if cfg.Trace == "" {
			cfg.Trace = fmt.Sprintf("build/waves/incast-node%d.fst", trace)
		}
		if err := os.MkdirAll(filepath.Dir(cfg.Trace), 0o755); err != nil {
			return badUsage(fs, fmt.Errorf("--trace-file: %w", err))
		}
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if err := tl.check(fs); err != nil {
		return err
	}
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	if tl.file != "" && cfg.Trace != "" {
		cfg.TimelineSave = fmt.Sprintf("%s-node%d.gtkw", strings.TrimSuffix(tl.file, filepath.Ext(tl.file)), cfg.TraceNode)
	}
	parts := cfg.Parts()
	pr := newProgress(out.json, "incast", int64(len(parts)), "runs")
	cfg.Progress = callsProgress(pr)
	for i := range parts {
		parts[i].Config.Progress = cfg.Progress
	}
	r, err := runParts(fs, "incast", cfg, parts, incast.Run, incast.Merge)
	pr.finish(err == nil)
	err = tl.end(err)
	if err != nil {
		return err
	}
	if r.On.TimelineSave != "" {
		fmt.Fprintf(os.Stderr, "lhsim incast: save file %s opens receiver %d's waveform at its first message (gtkwave %s %s)\n", r.On.TimelineSave, cfg.TraceNode, cfg.Trace, r.On.TimelineSave)
	}
	return report(out, plotOut, r)
}
