package main

import (
	"fmt"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/net"
)

func init() {
	register(&command{name: "traffic", summary: "synthetic traffic on the fabric: accepted throughput and latency against offered load (docs/network.md)", flags: trafficFlags})
}

func trafficFlags(r *runner) func() error {
	cfg := net.DefaultTraffic()
	fs := r.fs
	topo := topologyVar(fs, &cfg.Topology, "topology", false, "crossbar:N, fattree:KxN (k-ary n-tree) or torus:XxYx... (one radix per dimension)")
	fs.StringVar(&cfg.Pattern, "pattern", cfg.Pattern, "traffic pattern: "+strings.Join(net.Patterns, ", "))
	floatsVar(fs, &cfg.Loads, "load", 0, 1e3, "offered loads, flits/cycle/node, comma-separated and rising (1 = the node link's rate)")
	intVar(fs, &cfg.PacketFlits, "packet-flits", 1, 1<<16, "packet size in flits")
	seedVar(fs, &cfg.Seed, "seed", "seed of the traffic (same seed, same result)")
	int64Var(fs, &cfg.WarmupCycles, "warmup", 0, maxCycles, "warm-up, router cycles")
	int64Var(fs, &cfg.MeasureCycles, "measure", 1, maxCycles, "measurement window, router cycles")
	int64Var(fs, &cfg.DrainCycles, "drain", 0, maxCycles, "longest wait for the window's packets after it, router cycles (past it: saturated)")
	fs.BoolVar(&cfg.AllLoads, "all-loads", false, "go on past the first saturated load")
	fs.BoolVar(&cfg.AllowDeadlock, "allow-deadlock", false, "run a topology, routing and VC count that can deadlock (booksim router), and report a deadlock as one")
	k := net.TrafficKnobs{Delays: map[string]string{}}
	fs.StringVar(&k.Preset, "preset", "nsim", "starting point of the knobs below: nsim (Susukita et al.'s NSIM-ACE paper, Table 1; Ohno et al.'s all-to-all paper's torus latencies), seed002 (Ohno et al.'s machine: 16 GB/s torus links and switch), booksim (BookSim2's input-queued router cycle by cycle, measured as BookSim2 measures: docs/network.md)")
	fs.StringVar(&k.Clock, "clock", "", "router cycle (e.g. 4ns): the unit of loads and of delays given in cycles (c)")
	intVar(fs, &k.FlitBytes, "flit-bytes", 1, 1<<20, "flit size in bytes")
	floatVar(fs, &k.LinkBW, "link-bw", 1e-6, 1e6, "link rate, GB/s")
	floatVar(fs, &k.SwitchBW, "switch-bw", 1e-6, 1e6, "switch rate per port, GB/s")
	floatVar(fs, &k.TorusBW, "torus-bw", 1e-6, 1e6, "torus link rate, GB/s (default: --link-bw)")
	delays := map[string]*string{}
	for _, d := range []struct{ name, usage string }{
		{"routing-delay", "routing computation (ns, or cycles with a c: 1c)"},
		{"vc-alloc-delay", "virtual-channel allocation (ns or cycles)"},
		{"sw-alloc-delay", "switch allocation (ns or cycles)"},
		{"switch-latency", "switch crossing after the grant (ns or cycles)"},
		{"cable", "cable latency of node and fat-tree/crossbar links (ns or cycles)"},
	} {
		delays[d.name] = fs.String(d.name, "", d.usage)
	}
	fs.StringVar(&k.TorusLatency, "torus-latency", "", "torus link latency per dimension, comma-separated (ns or cycles), e.g. 21,25,70")
	intVar(fs, &k.VCs, "vcs", 1, 64, "virtual channels per port (even on a torus)")
	intVar(fs, &k.BufferFlits, "buffer-flits", 1, 1<<20, "input buffer per virtual channel, flits")
	intVar(fs, &k.EjectFlits, "eject-flits", 1, 1<<20, "ejection buffer per node, flits")
	fs.StringVar(&k.Arbiter, "arbiter", "", "round-robin or oldest-first")
	noDefault(fs, "flit-bytes", "link-bw", "switch-bw", "torus-bw", "vcs", "buffer-flits", "eject-flits")
	r.outputs()
	r.plotFlag("draw throughput and latency against load to this .svg or .png file")
	r.sweep()
	threads := r.threadsFlag()
	r.timeline()
	return func() (err error) {
		if k.Preset == "booksim" {
			for _, f := range []string{"warmup", "measure", "drain"} {
				if r.set(f) {
					return r.usage("--%s does not apply to --preset booksim: it measures as BookSim2 does (3 warm-up periods of 1000 cycles, up to 10 sample periods, the convergence test, the drain)", f)
				}
			}
			if r.set("arbiter") {
				return r.usage("--arbiter does not apply to --preset booksim: its allocators are BookSim2's separable input-first with round-robin arbiters")
			}
			if *r.tl.file != "" {
				return r.usage("--timeline records the event model's router; --preset booksim runs BookSim2's cycle by cycle, which has none")
			}
		} else if r.set("allow-deadlock") {
			return r.usage("--allow-deadlock applies to --preset booksim")
		}
		for name, v := range delays {
			if r.set(name) {
				k.Delays[name] = *v
			}
		}
		if err := k.Apply(&cfg); err != nil {
			return r.check(err)
		}
		if err := topo.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.Threads = r.splitThreads(*threads, len(cfg.Loads), func(t int) (int, string) {
			c := cfg
			c.Threads = t
			return net.TrafficThreads(c)
		}, &successLines)
		cfg.Windows = func(load float64, ws experiment.WindowStats) {
			if s := windowsLine("traffic", fmt.Sprintf("load %g", load), ws); s != "" {
				successLines.add(s)
			}
		}
		cfg.Progress = r.progress("traffic", "cycles")
		res, err := runSweep(r, cfg, net.RunTraffic)
		return report(r, res, err)
	}
}
