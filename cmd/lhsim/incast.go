package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/incast"
)

func init() {
	register(&command{name: "incast", summary: "many senders to LHS receive paths (RTL) in the network, receives posted late: LHS on against off (Tanabe et al.'s LHS paper)", flags: incastFlags})
}

func incastFlags(r *runner) func() error {
	cfg := incast.Default()
	fs := r.fs
	topo := topologyVar(fs, &cfg.Topology, "topology", false, "crossbar:N, fattree:KxN or torus:XxYxZ")
	intVar(fs, &cfg.Receivers, "receivers", 1, maxRanks, "ranks 0..N-1 receive; every other rank sends to each of them")
	nodesVar(fs, &cfg.RTLNodes, "rtl-nodes", true, "receivers whose receive path is the Verilated RTL (numbers and ranges: 0-3,17; or all); the others run --model")
	bridge := fs.String("bridge", string(cfg.Bridge), "the RTL receivers' bridge: cgo (in this process) or plugin (a process each)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "what the receivers not in --rtl-nodes run: go (golden model) or tlm (transaction-level model)")
	fs.StringVar(&cfg.Host, "host", cfg.Host, "the receivers' software: mpi (drivers/mpi on each node's host bus, timed by the host CPU model) or costs (lhsim search's per-message costs, inputs; needed for --model tlm)")
	fs.BoolVar(&cfg.Speed, "speed", cfg.Speed, "also run LHS on with every receiver RTL (cgo, plugin), golden model and (--host costs) TLM, and compare speeds")
	r.plotFlag("draw receives completed against time, LHS on and off, to this .svg or .png")
	intVar(fs, &cfg.Messages, "messages", 1, 1<<20, "messages from each sender to each receiver")
	seedVar(fs, &cfg.Seed, "seed", "seed of the message sizes")
	timeVar(fs, &cfg.PostAt, "post-at", momentUS, "when the receivers post their receives, µs")
	trace := -1
	intVar(fs, &trace, "trace", -1, maxRanks, "write receiver NODE's RTL waveform (LHS-on run) with a GTKWave save file")
	traceFile := r.regularFile("trace-file", "the waveform's file (default build/waves/incast-nodeNODE.fst)")
	r.outputs()
	r.sweep()
	threads := r.threadsFlag()
	r.timeline()
	return func() (err error) {
		cfg.Bridge = device.Bridge(*bridge)
		if trace >= 0 {
			cfg.TraceNode, cfg.Trace = trace, defaultWaveform(*traceFile, "incast", trace)
		} else if *traceFile != "" {
			return r.usage("--trace-file names the waveform of --trace NODE; give one")
		}
		if err := topo.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if err := makeFolder(cfg.Trace); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.TimelineSave = timelineSave(r, cfg.Trace, cfg.TraceNode)
		cfg.Threads = r.splitThreads(*threads, len(cfg.Parts()), func(t int) (int, string) {
			c := cfg
			c.Threads = t
			return incast.Threads(c)
		}, &successLines)
		cfg.Windows = windowsTo("incast")
		cfg.Progress = r.progress("incast", "runs")
		res, err := runSweep(r, cfg, incast.Run)
		if err == nil && res != nil && res.On.TimelineSave != "" {
			fmt.Fprintf(os.Stderr, "lhsim incast: save file %s opens receiver %d's waveform at its first message (gtkwave %s %s)\n", res.On.TimelineSave, cfg.TraceNode, cfg.Trace, res.On.TimelineSave)
		}
		return report(r, res, err)
	}
}

// defaultWaveform is the waveform file of node's RTL: file, else build/waves/CMD-nodeN.fst.
func defaultWaveform(file, cmd string, node int) string {
	if file != "" {
		return file
	}
	return fmt.Sprintf("build/waves/%s-node%d.fst", cmd, node)
}

// makeFolder makes the folder a waveform goes to.
func makeFolder(file string) error {
	if file == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return pathError{fmt.Errorf("--trace-file: %w", err)}
	}
	return nil
}

// timelineSave is the GTKWave save file a timeline writes for a traced node's waveform:
// beside the timeline, NAME-nodeN.gtkw; "" without both.
func timelineSave(r *runner, trace string, node int) string {
	if r.tl == nil || *r.tl.file == "" || trace == "" {
		return ""
	}
	file := *r.tl.file
	return fmt.Sprintf("%s-node%d.gtkw", strings.TrimSuffix(file, filepath.Ext(file)), node)
}
