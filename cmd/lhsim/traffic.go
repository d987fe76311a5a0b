package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func init() {
	register("traffic", trafficSummary, runTraffic)
}

const trafficSummary = "synthetic traffic on the fabric: accepted throughput and latency against offered load (docs/network.md)"

func runTraffic(args []string) error {
	cfg := net.DefaultTraffic()
	fs := newFlags("traffic", trafficSummary)
	fs.StringVar(&cfg.Topology, "topology", cfg.Topology, "crossbar:N, fattree:KxN (k-ary n-tree) or torus:XxYx... (one radix per dimension)")
	fs.StringVar(&cfg.Pattern, "pattern", cfg.Pattern, "traffic pattern: "+strings.Join(fabric.Patterns, ", "))
	floatsVar(fs, &cfg.Loads, "load", 0, 1e3, "offered loads, flits/cycle/node, comma-separated and rising (1 = the node link's rate)")
	intVar(fs, &cfg.PacketFlits, "packet-flits", 1, 1<<16, "packet size in flits")
	seedVar(fs, &cfg.Seed, "seed", "seed of the traffic (same seed, same result)")
	int64Var(fs, &cfg.WarmupCycles, "warmup", 0, maxCycles, "warm-up, router cycles")
	int64Var(fs, &cfg.MeasureCycles, "measure", 1, maxCycles, "measurement window, router cycles")
	int64Var(fs, &cfg.DrainCycles, "drain", 0, maxCycles, "longest wait for the window's packets after it, router cycles (past it: saturated)")
	fs.BoolVar(&cfg.AllLoads, "all-loads", false, "go on past the first saturated load")
	fs.BoolVar(&cfg.AllowDeadlock, "allow-deadlock", false, "run a topology, routing and VC count that can deadlock (booksim router), and report a deadlock as one")
	preset := fs.String("preset", "nsim", "starting point of the knobs below: nsim (Susukita et al.'s NSIM-ACE paper, Table 1; Ohno et al.'s all-to-all paper's torus latencies), seed002 (Ohno et al.'s machine: 16 GB/s torus links and switch), booksim (BookSim2's input-queued router cycle by cycle, measured as BookSim2 measures: docs/network.md)")
	clock := fs.String("clock", "", "router cycle (e.g. 4ns): the unit of loads and of delays given in cycles (c)")
	var flitBytes, vcs, buf, eject int
	var linkBW, switchBW, torusBW float64
	intVar(fs, &flitBytes, "flit-bytes", 1, 1<<20, "flit size in bytes")
	floatVar(fs, &linkBW, "link-bw", 1e-6, 1e6, "link rate, GB/s")
	floatVar(fs, &switchBW, "switch-bw", 1e-6, 1e6, "switch rate per port, GB/s")
	floatVar(fs, &torusBW, "torus-bw", 1e-6, 1e6, "torus link rate, GB/s (default: --link-bw)")
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
	torusLat := fs.String("torus-latency", "", "torus link latency per dimension, comma-separated (ns or cycles), e.g. 21,25,70")
	intVar(fs, &vcs, "vcs", 1, 64, "virtual channels per port (even on a torus)")
	intVar(fs, &buf, "buffer-flits", 1, 1<<20, "input buffer per virtual channel, flits")
	intVar(fs, &eject, "eject-flits", 1, 1<<20, "ejection buffer per node, flits")
	arb := fs.String("arbiter", "", "round-robin or oldest-first")
	noDefault(fs, "flit-bytes", "link-bw", "switch-bw", "torus-bw", "vcs", "buffer-flits", "eject-flits")
	out := addOutputFlags(fs)
	plotOut := addPlotFlag(fs, "draw throughput and latency against load to this .svg or .png file")
	sl := addSweepFlags(fs)
	tl := addTimelineFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var err error
	if *preset == "booksim" {
		for _, f := range []string{"warmup", "measure", "drain"} {
			if set[f] {
				return badUsage(fs, fmt.Errorf("--%s does not apply to --preset booksim: it measures as BookSim2 does (3 warm-up periods of 1000 cycles, up to 10 sample periods, the convergence test, the drain)", f))
			}
		}
		if set["arbiter"] {
			return badUsage(fs, fmt.Errorf("--arbiter does not apply to --preset booksim: its allocators are BookSim2's separable input-first with round-robin arbiters"))
		}
	} else if set["allow-deadlock"] {
		return badUsage(fs, fmt.Errorf("--allow-deadlock applies to --preset booksim"))
	}
	c := &cfg.Fabric
	switch *preset {
	case "nsim":
		*c = fabric.DefaultConfig()
	case "seed002":
		*c = fabric.Seed002Torus()
	case "booksim":
		*c = fabric.BookSimConfig(4 * netsim.Nanosecond)
	default:
		return badUsage(fs, fmt.Errorf("--preset %q: want nsim, seed002 or booksim", *preset))
	}
	if set["clock"] {
		if c.ClockPeriod, err = fabric.ParseDelay(*clock, 0); err != nil || c.ClockPeriod <= 0 {
			return badUsage(fs, fmt.Errorf("--clock %q: want a positive time such as 4ns", *clock))
		}
		if *preset == "booksim" { // BookSim's delays are cycles of whatever clock
			*c = fabric.BookSimConfig(c.ClockPeriod)
		}
	}
	if set["flit-bytes"] {
		c.FlitBytes = flitBytes
	}
	if set["link-bw"] {
		c.LinkBandwidth = linkBW
	}
	if set["switch-bw"] {
		c.SwitchBandwidth = switchBW
	}
	if set["torus-bw"] {
		c.TorusLinkBandwidth = torusBW
	}
	for name, field := range map[string]*netsim.Time{"routing-delay": &c.RoutingDelay, "vc-alloc-delay": &c.VCAllocDelay,
		"sw-alloc-delay": &c.SwitchAllocDelay, "switch-latency": &c.SwitchLatency, "cable": &c.CableLatency} {
		if set[name] {
			if *field, err = fabric.ParseDelay(*delays[name], c.ClockPeriod); err != nil {
				return badUsage(fs, fmt.Errorf("--%s: %w", name, err))
			}
		}
	}
	if set["torus-latency"] {
		cfg.TorusLatency = []netsim.Time{} // set, even if nothing parses: checked by the experiment
		for _, s := range strings.Split(*torusLat, ",") {
			d, err := fabric.ParseDelay(s, c.ClockPeriod)
			if err != nil {
				return badUsage(fs, fmt.Errorf("--torus-latency: %w", err))
			}
			cfg.TorusLatency = append(cfg.TorusLatency, d)
		}
	}
	if set["vcs"] {
		c.VCs = vcs
	}
	if set["buffer-flits"] {
		c.BufferFlits = buf
	}
	if set["eject-flits"] {
		c.EjectBufferFlits = eject
	}
	if set["arbiter"] {
		if c.Arbiter, err = fabric.ParseArbiter(*arb); err != nil {
			return badUsage(fs, fmt.Errorf("--arbiter: %w", err))
		}
	}
	if err := c.Validate(); err != nil {
		return badUsage(fs, err)
	}
	topo, err := checkTopology(fs, "topology", cfg.Topology, *c, 1)
	if err != nil {
		return err
	}
	pat, err := fabric.ParsePatternFor(c.Router, cfg.Pattern, topo)
	if err == nil {
		err = fabric.CheckPattern(pat, topo)
	}
	if err != nil {
		return badUsage(fs, fmt.Errorf("--pattern: %w", err))
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
	if tl.file != "" && *preset == "booksim" {
		return badUsage(fs, errMsg("--timeline records the event model's router; --preset booksim runs BookSim2's cycle by cycle, which has none"))
	}
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	var pr *progress
	if !sl.Enabled && sl.Task == "" {
		// Warm-up and measurement cycles of every load (the drain's length is not known
		// ahead); the parts of --jobs tell it at once.
		var mu sync.Mutex
		var done int64
		pr = newProgress(out.json, "traffic", int64(len(cfg.Loads))*(cfg.WarmupCycles+cfg.MeasureCycles), "cycles")
		if pr != nil {
			cfg.Progress = func(cycles int64) {
				mu.Lock()
				done += cycles
				pr.set(done, "")
				mu.Unlock()
			}
		}
	}
	res, err := sweep(sl, fs, "traffic", out.json, cfg, cfg.Parts(), net.RunTraffic,
		func(parts []*net.TrafficResult) (*net.TrafficResult, error) {
			return net.MergeTraffic(cfg, parts)
		})
	pr.finish(err == nil)
	err = tl.end(err)
	if err == nil && res == nil {
		return nil // --slurm-task, or --dry-run
	}
	if err != nil {
		// What the user gave that the fabric refuses (a topology, a pattern, a load) is a
		// usage mistake; anything else is a failure of the run.
		var ue *net.TrafficInputError
		if errors.As(err, &ue) {
			return badUsage(fs, err)
		}
		return err
	}
	return report(out, plotOut, res)
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
