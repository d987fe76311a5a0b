package net

// The synthetic-traffic experiment (lhsim traffic): a fabric measured as network researchers
// measure one. For each offered load, every node creates packets by a Bernoulli process at
// that rate (flits per router cycle) to destinations the pattern picks; after a warm-up, the
// packets created inside the measurement window are tagged, the run goes on (still loaded)
// until all of them have arrived or the drain limit passes, and the window gives the accepted
// throughput (flits arriving per cycle per node) and the tagged packets' mean latency, from
// creation (source queueing included) to the tail's arrival. A load is saturated when its
// tagged packets do not all arrive within the drain limit, or the accepted throughput falls
// 5% short of what was offered. Beside the rows: the topology's throughput bounds (the
// bisection and the busiest channel under the pattern's deterministic routes) and the
// zero-load latency, as closed form and as simulated lone packets.

import (
	"errors"
	"fmt"
	"github.com/lhsim/lhsim/experiment"
	"math"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// TrafficConfig is what the user chose.
type TrafficConfig struct {
	Topology    experiment.Topology // torus:8x8x8, fattree:4x3, crossbar:16
	Pattern     string              // uniform, transpose, tornado, neighbor
	Loads       []float64           // offered loads, flits per router cycle per node, ascending
	PacketFlits int                 // packet size in flits
	Fabric      fabric.Config       // router and link knobs
	Seed        uint64
	// Windows, in router cycles: warm-up, measurement, and the longest drain after it.
	WarmupCycles, MeasureCycles, DrainCycles int64
	// AllLoads runs every load; otherwise the sweep stops after the first saturated one.
	AllLoads bool
	// IQ is the measurement of the booksim router (Fabric.Router BookSimIQ), which
	// replaces the three windows above with BookSim2's sample periods.
	IQ booksim.Measure
	// AllowDeadlock runs a topology, routing and VC count that can deadlock (refused
	// otherwise), to watch it happen.
	AllowDeadlock bool
	// TorusLatency, when set, replaces the preset's torus link latencies: one for every
	// dimension, or one per dimension (X, Y, Z, ...); anything else is refused, as is a
	// topology that is not a torus.
	TorusLatency []netsim.Time `json:",omitempty"`
	// Timeline, when set, records each load's run (the event model's router; docs/timeline.md),
	// load k as machine k of the file.
	Timeline *timeline.Writer `json:"-"`
	// Progress, when set, is told of the router cycles each load has just run (warm-up
	// and measurement; the booksim router's at the end of each load): it may be called
	// from several parts at once.
	Progress *experiment.Progress `json:"-"`
	// Threads is how many threads each load's run takes (the event model's router: its
	// network cut into as many parts, fabric.NewParts); the results are the same for any.
	// 0 or 1: one. TrafficThreads says how many a configuration really gets.
	Threads int `json:"-"`
	// Windows, when set, is told of each parallel run's windows (netsim.WindowStats).
	Windows func(load float64, ws netsim.WindowStats) `json:"-"`

	machine int
}

// DefaultTraffic is uniform random 4-flit packets on an 8x8x8 torus with NSIM-ACE's
// parameters, from 5% of the injection bandwidth to 100%.
func DefaultTraffic() TrafficConfig {
	return TrafficConfig{
		Topology:      experiment.MustTopology("torus:8x8x8"),
		Pattern:       "uniform",
		Loads:         []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0},
		PacketFlits:   4,
		Fabric:        fabric.DefaultConfig(),
		Seed:          1,
		WarmupCycles:  2000,
		MeasureCycles: 5000,
		DrainCycles:   20000,
		IQ:            booksim.DefaultMeasure(),
	}
}

// TrafficRow is one offered load.
type TrafficRow struct {
	Topology     string  `json:"topology"`
	Pattern      string  `json:"pattern"`
	PacketFlits  int     `json:"packet_flits"`
	Offered      float64 `json:"offered"`        // asked for, flits/cycle/node
	Generated    float64 `json:"generated"`      // created in the window, flits/cycle/node
	Accepted     float64 `json:"accepted"`       // arrived in the window, flits/cycle/node
	OfferedGBps  float64 `json:"offered_gbps"`   // per node
	AcceptedGBps float64 `json:"accepted_gbps"`  // per node
	Latency      float64 `json:"latency_cycles"` // mean of the tagged packets
	LatencyNs    float64 `json:"latency_ns"`
	MaxLatencyNs float64 `json:"max_latency_ns"`
	// ZeroLoadNs is the mean of the tagged packets' own zero-load latencies (their pairs'
	// closed form); QueueingNs = LatencyNs - ZeroLoadNs is their mean time spent waiting.
	ZeroLoadNs float64 `json:"zero_load_ns"`
	QueueingNs float64 `json:"queueing_ns"`
	Faster     uint64  `json:"faster_than_zero_load"` // packets that beat their closed form: 0
	MeanHops   float64 `json:"mean_routers"`
	Tagged     uint64  `json:"tagged"`  // packets created in the window
	Arrived    uint64  `json:"arrived"` // of which arrived before the run stopped
	Saturated  bool    `json:"saturated"`
	Why        string  `json:"saturated_why,omitempty"`
	Events     uint64  `json:"events"`
	// The booksim router's statistics as BookSim2 prints them (cycles): packet latency
	// (creation to the tail's ejection) minimum and maximum, network latency (head injected
	// to tail ejected), and whether the run ended in a deadlock (--allow-deadlock).
	MinLatency        float64 `json:"min_latency_cycles,omitempty"`
	MaxLatency        float64 `json:"max_latency_cycles,omitempty"`
	NetworkLatency    float64 `json:"network_latency_cycles,omitempty"`
	NetworkLatencyMin float64 `json:"network_latency_min_cycles,omitempty"`
	NetworkLatencyMax float64 `json:"network_latency_max_cycles,omitempty"`
	Deadlock          bool    `json:"deadlock,omitempty"`
	// Busiest is, when the accepted throughput falls short of the offered load, the
	// channels that carried the most flits (flits per cycle): the resource that caps it.
	Busiest []fabric.LinkUse `json:"busiest_links,omitempty"`
}

// ZeroLoadRow is the lone packets that crossed the same number of routers.
type ZeroLoadRow struct {
	Routers  int     `json:"routers"`
	Pairs    int     `json:"pairs"`
	ClosedNs float64 `json:"closed_form_ns"` // mean of the closed form over these pairs
	SimNs    float64 `json:"simulated_ns"`   // mean of the simulated latencies
	Exact    bool    `json:"exact"`          // every one equal to its closed form
}

// TrafficResult is the sweep.
type TrafficResult struct {
	Topology    string  `json:"topology"`
	Pattern     string  `json:"pattern"`
	Nodes       int     `json:"nodes"`
	PacketFlits int     `json:"packet_flits"`
	ClockNs     float64 `json:"clock_ns"`
	FlitBytes   int     `json:"flit_bytes"`
	Seed        uint64  `json:"seed"`

	Router string       `json:"router"` // nsim or booksim-iq
	Rows   []TrafficRow `json:"rows"`

	// Bounds, flits/cycle/node: the node's link, the bisection under this pattern, the
	// busiest channel under this pattern's routes (0: not computed), and the least of them.
	InjectionBound float64 `json:"injection_bound"`
	BisectionBound float64 `json:"bisection_bound"`
	ChannelBound   float64 `json:"channel_load_bound"`
	Bound          float64 `json:"bound"`
	BisectionLinks int     `json:"bisection_links"`
	BisectionGBps  float64 `json:"bisection_gbps"`
	MinRouters     int     `json:"min_routers"`
	MaxRouters     int     `json:"max_routers"`
	MeanRouters    float64 `json:"mean_routers"`
	ZeroLoadNs     float64 `json:"zero_load_ns"`     // closed form, mean over the pattern's pairs
	ZeroLoadSimNs  float64 `json:"zero_load_sim_ns"` // lone packets simulated over the same pairs
	ZeroLoadCycles float64 `json:"zero_load_cycles"`
	ZeroLoadExact  bool    `json:"zero_load_exact"` // every lone packet took exactly the closed form
	ZeroLoadPairs  int     `json:"zero_load_pairs"`
	// ZeroLoadByRouters splits the lone packets by the number of routers they crossed.
	ZeroLoadByRouters []ZeroLoadRow `json:"zero_load_by_routers"`
	EventsPerS        float64       `json:"events_per_s"`    // per CPU second of this process
	FlitHopsPerS      float64       `json:"flit_hops_per_s"` // flits moved over one link, per CPU second
	CPUSeconds        float64       `json:"cpu_seconds"`
	SimulatedSeconds  float64       `json:"simulated_s"`
}

// RunTraffic runs the sweep.
func RunTraffic(cfg TrafficConfig) (*TrafficResult, error) {
	topo, probe, pat, err := trafficCheck(&cfg)
	if err != nil {
		return nil, experiment.Input(err) // a topology, pattern, load or size that makes no sense
	}
	cfg.Progress.Expect(int64(len(cfg.Loads)) * (cfg.WarmupCycles + cfg.MeasureCycles))
	fc := probe.Config()
	if cfg.Fabric.Router == fabric.BookSimIQ {
		fc = cfg.Fabric // the probe's may have one VC more (its dateline wants an even count)
	}
	res := &TrafficResult{Topology: topo.String(), Pattern: pat.String(), Nodes: topo.Nodes(), PacketFlits: cfg.PacketFlits,
		ClockNs: fc.ClockPeriod.Nanoseconds(), FlitBytes: fc.FlitBytes, Seed: cfg.Seed, Router: fc.Router.String()}
	b, err := probe.Bounds(pat)
	if err != nil {
		return nil, err
	}
	res.InjectionBound, res.BisectionBound, res.ChannelBound, res.Bound = b.Injection, b.Bisection, b.ChannelLoad, b.Bound()
	bis := topo.Bisection(&fc)
	res.BisectionLinks, res.BisectionGBps = bis.Links, bis.GBps
	h, err := probe.Hops()
	if err != nil {
		return nil, err
	}
	res.MinRouters, res.MaxRouters, res.MeanRouters = h.Min, h.Max, h.Mean
	threads, _ := TrafficThreads(cfg)
	if fc.Router == fabric.BookSimIQ {
		err = zeroLoadIQ(topo, fc, pat, cfg.PacketFlits, threads, res)
	} else {
		err = zeroLoad(topo, fc, pat, cfg.PacketFlits, threads, res)
	}
	if err != nil {
		return nil, err
	}

	cpu0, err := cputime.Process()
	if err != nil {
		return nil, err
	}
	var events, flitHops uint64
	var simulated netsim.Time
	for k, load := range cfg.Loads {
		point := trafficPoint
		if fc.Router == fabric.BookSimIQ {
			point = trafficPointIQ
		}
		cfg.machine = k
		row, ev, fh, end, err := point(topo, fc, pat, cfg, load)
		if fc.Router == fabric.BookSimIQ {
			cfg.Progress.Step(cfg.WarmupCycles+cfg.MeasureCycles, "")
		}
		if err != nil {
			return nil, err
		}
		events, flitHops, simulated = events+ev, flitHops+fh, simulated+end
		res.Rows = append(res.Rows, row)
		if row.Saturated && !cfg.AllLoads {
			break
		}
	}
	cpu1, err := cputime.Process()
	if err != nil {
		return nil, err
	}
	res.CPUSeconds = (cpu1 - cpu0).Seconds()
	if s := res.CPUSeconds; s > 0 {
		res.EventsPerS, res.FlitHopsPerS = float64(events)/s, float64(flitHops)/s
	}
	res.SimulatedSeconds = float64(simulated) / float64(netsim.Second)
	return res, nil
}

// trafficCheck builds what cfg names, or says why it cannot; it puts TorusLatency into
// cfg.Fabric.
func trafficCheck(cfg *TrafficConfig) (fabric.Topology, *fabric.Network, fabric.Pattern, error) {
	topo := cfg.Topology.Fabric()
	if topo == nil {
		return nil, nil, nil, errors.New("no topology")
	}
	if err := cfg.torusLatencies(topo); err != nil {
		return nil, nil, nil, err
	}
	if err := cfg.Timeline.CheckNodes(topo.Nodes()); err != nil {
		return nil, nil, nil, err
	}
	// The probe (bounds, routes) is the event model's; the booksim router's own network
	// is built per load.
	pc := cfg.Fabric
	pc.Router = fabric.NSIMRouter
	if cfg.Fabric.Router == fabric.BookSimIQ {
		pc.VCs += pc.VCs % 2 // the probe's dateline wants an even count; its routes are the same
		// Its own configuration and memory, checked before the probe is built (whose memory
		// is the event model's, and less).
		if err := booksim.Check(topo, cfg.Fabric); err != nil {
			return nil, nil, nil, err
		}
		if err := booksim.DeadlockCheck(topo, cfg.Fabric); err != nil && !cfg.AllowDeadlock {
			return nil, nil, nil, fmt.Errorf("%w (--allow-deadlock runs it anyway and reports a deadlock as one)", err)
		}
	}
	probe, err := fabric.New(&netsim.Engine{}, topo, pc)
	if err != nil {
		return nil, nil, nil, err
	}
	pat, err := fabric.ParsePatternFor(cfg.Fabric.Router, cfg.Pattern, topo)
	if err == nil {
		err = fabric.CheckPattern(pat, topo)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if len(cfg.Loads) == 0 {
		return nil, nil, nil, errors.New("no loads")
	}
	for i, l := range cfg.Loads {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, nil, nil, fmt.Errorf("load %v must be positive", l)
		}
		if i > 0 && l <= cfg.Loads[i-1] {
			return nil, nil, nil, fmt.Errorf("loads must rise (%v after %v)", l, cfg.Loads[i-1])
		}
	}
	if cfg.WarmupCycles < 0 || cfg.MeasureCycles < 1 || cfg.DrainCycles < 0 {
		return nil, nil, nil, fmt.Errorf("windows %d/%d/%d cycles: want warm-up and drain >= 0, measurement >= 1",
			cfg.WarmupCycles, cfg.MeasureCycles, cfg.DrainCycles)
	}
	fc := probe.Config()
	if cfg.Fabric.Router == fabric.BookSimIQ { // wormhole: a packet may be larger than a buffer
		if cfg.PacketFlits < 1 || cfg.PacketFlits > 1<<16 {
			return nil, nil, nil, fmt.Errorf("%d-flit packets: want 1 to %d", cfg.PacketFlits, 1<<16)
		}
		return topo, probe, pat, nil
	}
	if m := min(fc.BufferFlits, fc.EjectBufferFlits); cfg.PacketFlits < 1 || cfg.PacketFlits > m {
		return nil, nil, nil, fmt.Errorf("%d-flit packets: want 1 to %d (a buffer holds a packet whole)", cfg.PacketFlits, m)
	}
	if err := checkWindow(*cfg, probe, pat); err != nil {
		return nil, nil, nil, err
	}
	return topo, probe, pat, nil
}

// trafficPoint runs one offered load.
func trafficPoint(topo fabric.Topology, fc fabric.Config, pat fabric.Pattern, cfg TrafficConfig, load float64) (TrafficRow, uint64, uint64, netsim.Time, error) {
	row := TrafficRow{Topology: topo.String(), Pattern: pat.String(), PacketFlits: cfg.PacketFlits, Offered: load, OfferedGBps: fc.GBps(load)}
	n, eng, done, err := trafficNet(topo, fc, cfg, load)
	if err != nil {
		return row, 0, 0, 0, err
	}
	defer done()
	syn, err := fabric.NewSynthetic(n, fabric.SyntheticConfig{Pattern: pat, Load: load, PacketFlits: cfg.PacketFlits, Seed: cfg.Seed})
	if err != nil {
		return row, 0, 0, 0, err
	}
	c := fc.ClockPeriod
	from, to := netsim.Time(cfg.WarmupCycles)*c, netsim.Time(cfg.WarmupCycles+cfg.MeasureCycles)*c
	syn.Measure(from, to)
	syn.Start(0)
	n.CountLinks()
	var tl *timeline.Net
	if cfg.Timeline != nil {
		tl = timeline.NewNet(cfg.Timeline, topo.Nodes())
		tl.PidBase = cfg.machine * timeline.MachinePids
		name := fmt.Sprintf("load %g", load)
		tl.NodeName = func(node int) string { return fmt.Sprintf("%s node %d", name, node) }
		tl.RunsName = name + " runs"
		timeline.TracePackets(tl, n)
	}
	// (Runs in steps are one run: events fire in the same order.)
	step := 1000 * c
	var clock netsim.Time
	run := func(until netsim.Time) {
		for clock < until {
			next := min(until, clock+step)
			eng.Run(next)
			cfg.Progress.Step(int64((next-clock)/c), "")
			clock = next
		}
	}
	run(from)
	links0 := n.LinkFlits()
	run(to)
	links1 := n.LinkFlits()
	// Drain: keep the load on until the window's packets are all out, or the limit. (The
	// clock here, not the engine's, which stays at its last event's time.)
	end, limit := to, to+netsim.Time(cfg.DrainCycles)*c
	for syn.Outstanding() > 0 && end < limit {
		end = min(limit, end+1000*c)
		eng.Run(end)
	}
	syn.Stop()
	if tl != nil {
		tl.Run("warm-up", 0, from)
		tl.Run("measurement", from, to)
		if end > to {
			tl.Run("drain", to, end)
		}
	}
	w := syn.Window()
	if w.Created == 0 {
		return row, 0, 0, 0, experiment.Input(fmt.Errorf("load %g: no packet was created in the %d-cycle measurement window; lengthen it (--measure) or raise the load", load, cfg.MeasureCycles))
	}
	nodes := float64(topo.Nodes())
	row.Generated = float64(w.CreatedFl) / w.Cycles / nodes
	row.Accepted = float64(w.ArrivedFl) / w.Cycles / nodes
	row.AcceptedGBps = fc.GBps(row.Accepted)
	row.Tagged, row.Arrived = w.Created, w.Tagged
	if w.Tagged > 0 {
		mean := float64(w.LatencySum) / float64(w.Tagged)
		row.Latency = mean / float64(c)
		row.LatencyNs = mean / float64(netsim.Nanosecond)
		row.MaxLatencyNs = w.LatencyMax.Nanoseconds()
		row.MeanHops = float64(w.HopsSum) / float64(w.Tagged)
		row.ZeroLoadNs = float64(w.ZeroLoadSum) / float64(w.Tagged) / float64(netsim.Nanosecond)
		row.QueueingNs = row.LatencyNs - row.ZeroLoadNs
		row.Faster = w.Faster
	}
	switch {
	case w.Tagged < w.Created:
		row.Saturated, row.Why = true, fmt.Sprintf("%d of %d tagged packets still inside after a %d-cycle drain", w.Created-w.Tagged, w.Created, cfg.DrainCycles)
	case row.Accepted < 0.95*row.Generated:
		row.Saturated, row.Why = true, fmt.Sprintf("accepted %.3f < 95%% of generated %.3f", row.Accepted, row.Generated)
	}
	if row.Saturated || row.Accepted < 0.95*load {
		row.Busiest = n.Busiest(links0, links1, w.Cycles, 3)
	}
	row.Events = eng.Fired()
	fired, hops := eng.Fired(), n.Stats().FlitHops
	if tl != nil {
		// The packets still inside go on to their ends, so that every flow in the file
		// has both; nothing measured changes.
		eng.Run(netsim.Never)
		if eng.Now() > end {
			tl.Run("packets in flight delivered (not measured)", end, eng.Now())
		}
	}
	return row, fired, hops, end, nil
}

// trafficPointIQ runs one offered load on the booksim router, measured as BookSim2
// measures it; a load is saturated when BookSim2 would call the run unstable (or it
// deadlocked).
func trafficPointIQ(topo fabric.Topology, fc fabric.Config, pat fabric.Pattern, cfg TrafficConfig, load float64) (TrafficRow, uint64, uint64, netsim.Time, error) {
	row := TrafficRow{Topology: topo.String(), Pattern: pat.String(), PacketFlits: cfg.PacketFlits, Offered: load, OfferedGBps: fc.GBps(load)}
	threads, _ := TrafficThreads(cfg)
	n, err := booksim.NewParts(topo, fc, cfg.Seed, threads)
	if err != nil {
		return row, 0, 0, 0, err
	}
	m := cfg.IQ
	m.WatchDeadlock = m.WatchDeadlock || cfg.AllowDeadlock
	r, err := booksim.Run(n, pat, load, cfg.PacketFlits, m)
	if err != nil {
		return row, 0, 0, 0, err
	}
	if r.Windows != nil && cfg.Windows != nil {
		cfg.Windows(load, *r.Windows)
	}
	c := fc.ClockPeriod.Nanoseconds()
	row.Generated, row.Accepted, row.AcceptedGBps = r.Injected, r.Accepted, fc.GBps(r.Accepted)
	row.Latency, row.LatencyNs = r.PacketLatency, r.PacketLatency*c
	row.MinLatency, row.MaxLatency, row.MaxLatencyNs = r.PacketLatencyMin, r.PacketLatencyMax, r.PacketLatencyMax*c
	row.NetworkLatency, row.NetworkLatencyMin, row.NetworkLatencyMax = r.NetworkLatency, r.NetworkLatencyMin, r.NetworkLatencyMax
	row.MeanHops = r.Hops
	row.Tagged, row.Arrived = uint64(r.Packets), uint64(r.Packets)
	row.Deadlock = r.Deadlock
	row.Saturated, row.Why = !r.Stable, r.Why
	if row.Accepted < 0.95*load || row.Saturated {
		row.Busiest = r.Busiest
		if !row.Saturated {
			row.Saturated, row.Why = true, fmt.Sprintf("accepted %.3f < 95%% of offered %.3f", row.Accepted, load)
		}
	}
	row.Events = uint64(r.Cycles)
	return row, uint64(r.Cycles), uint64(r.FlitHops), netsim.Time(r.Cycles) * fc.ClockPeriod, nil
}
