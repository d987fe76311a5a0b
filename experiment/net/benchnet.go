package net

// lhsim bench-net: the network simulator's speed (docs/performance.md), events and
// flit-hops per CPU second and memory per node, on both routers.

import (
	"fmt"
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// BenchNetConfig is what lhsim bench-net measures: every topology on every router, at every
// packet size and load, a row each.
type BenchNetConfig struct {
	Topologies experiment.Topologies
	Routers    []string // nsim (the event-driven router), booksim (--preset booksim)
	Loads      []float64
	Flits      []int
	Warmup     int64
	Measure    int64
	Seed       uint64
	// Jobs is how many rows run at once: with more than one, the rates are per CPU second
	// of each row's own thread and the heap per node is not measured.
	Jobs int
	// rows, when set, are the only rows measured (Parts).
	rows []benchNetPoint
}

// BenchNetRow is one configuration of lhsim bench-net.
type BenchNetRow struct {
	Topology    string  `json:"topology"`
	Nodes       int     `json:"nodes"`
	Router      string  `json:"router"`
	Load        float64 `json:"load"`
	PacketFlits int     `json:"packet_flits"`
	Accepted    float64 `json:"accepted"`
	Cycles      int64   `json:"cycles"`
	Events      uint64  `json:"events"`
	FlitHops    uint64  `json:"flit_hops"`
	// CPUSeconds are the CPU seconds the rates are per: the process's (user + system, every
	// thread) with --jobs 1, the row's own thread's (ThreadCPUSeconds) with rows run at once,
	// as CPUCounted says.
	CPUSeconds       float64 `json:"cpu_seconds"`
	CPUCounted       string  `json:"cpu_counted"`
	ThreadCPUSeconds float64 `json:"thread_cpu_seconds"`
	WallSeconds      float64 `json:"wall_seconds"`
	EventsPerCPUS    float64 `json:"events_per_cpu_s"`
	FlitHopsPerCPUS  float64 `json:"flit_hops_per_cpu_s"`
	// BytesPerNode is the heap per node, measured with --jobs 1 only (the heap is the
	// process's): absent with rows run at once.
	BytesPerNode float64 `json:"bytes_per_node,omitempty"`
}

// BenchNetResult is what lhsim bench-net prints: its rows, and the wall time of the whole.
type BenchNetResult struct {
	Jobs        int           `json:"jobs"`
	WallSeconds float64       `json:"wall_seconds"`
	Rows        []BenchNetRow `json:"rows"`

	warmup, measure int64
}

var _ experiment.Table = (*BenchNetResult)(nil)

// The CPU seconds a row's rates are per (BenchNetRow.CPUCounted).
const (
	cpuProcess = "process"
	cpuThread  = "thread"
)

// benchNetPoint is one row to measure.
type benchNetPoint struct {
	fabric.SpeedConfig
	router string
}

// points are the rows cfg measures, in order; what cannot be measured is the input's fault.
func (cfg BenchNetConfig) points() ([]benchNetPoint, error) {
	if cfg.rows != nil {
		return cfg.rows, nil
	}
	var out []benchNetPoint
	for _, r := range cfg.Routers {
		var fc fabric.Config
		switch r {
		case "nsim":
			fc = fabric.DefaultConfig()
		case "booksim":
			fc = fabric.BookSimConfig(4 * netsim.Nanosecond)
		default:
			return nil, experiment.Refuse("--routers: %q: want nsim or booksim", r)
		}
		for _, t := range cfg.Topologies {
			topo, err := experiment.CheckTopology("topologies", t, fc, 2)
			if err != nil {
				return nil, err
			}
			for _, f := range cfg.Flits {
				for _, l := range cfg.Loads {
					out = append(out, benchNetPoint{router: r, SpeedConfig: fabric.SpeedConfig{Topology: topo, Config: fc, Load: l,
						PacketFlits: f, WarmupCycles: cfg.Warmup, MeasureCycles: cfg.Measure, Seed: cfg.Seed, Shared: cfg.Jobs > 1}})
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, experiment.Refuse("--topologies and --routers: nothing to run")
	}
	return out, nil
}

// Validate refuses a router or topology that cannot be measured, or none.
func (cfg BenchNetConfig) Validate() error {
	_, err := cfg.points()
	return err
}

// Parts are the rows, one each.
func (cfg BenchNetConfig) Parts() []experiment.Part[BenchNetConfig] {
	ps, _ := cfg.points()
	out := make([]experiment.Part[BenchNetConfig], len(ps))
	for i, p := range ps {
		c := cfg
		c.rows = []benchNetPoint{p}
		out[i] = experiment.Part[BenchNetConfig]{Label: fmt.Sprintf("%v %s load %g %d flits", p.Topology, p.router, p.Load, p.PacketFlits), Config: c}
	}
	return out
}

// JobMemory is what a row may take: its network doubled for the garbage collector, and past
// saturation the packets queued at the sources, which grow for as long as it runs: at most
// 240 bytes a node a cycle in the heaps measured (fattree:4x3, load 1, 1-flit packets: 481 KB a
// node after 1,000 + 1,000 cycles; docs/performance.md), so 256 bytes a node a cycle run.
func (cfg BenchNetConfig) JobMemory() int64 {
	ps, _ := cfg.points()
	var most int64
	for _, p := range ps {
		net := fabric.Footprint(p.Topology, p.Config)
		if p.Config.Router == fabric.BookSimIQ {
			net = booksim.Footprint(p.Topology, p.Config)
		}
		most = max(most, 2*net+int64(p.Topology.Nodes())*(p.WarmupCycles+p.MeasureCycles)*256)
	}
	return most
}

// Merge puts the rows together in Parts order.
func (cfg BenchNetConfig) Merge(parts []*BenchNetResult) (*BenchNetResult, error) {
	res := &BenchNetResult{Jobs: cfg.Jobs, warmup: cfg.Warmup, measure: cfg.Measure}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
		res.WallSeconds += p.WallSeconds
	}
	return res, nil
}

// Remeasure sets the wall time to the whole run's.
func (r *BenchNetResult) Remeasure(wallS, _ float64) { r.WallSeconds = wallS }

// RunBenchNet measures cfg's rows, one after the other.
func RunBenchNet(cfg BenchNetConfig) (*BenchNetResult, error) {
	ps, err := cfg.points()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &BenchNetResult{Jobs: cfg.Jobs, warmup: cfg.Warmup, measure: cfg.Measure}
	for _, p := range ps {
		measure := fabric.MeasureSpeed
		if p.Config.Router == fabric.BookSimIQ {
			measure = booksim.MeasureSpeed
		}
		sp, err := measure(p.SpeedConfig)
		if err != nil {
			return nil, fmt.Errorf("%v, %s router, load %g, %d-flit packets: %w", p.Topology, p.router, p.Load, p.PacketFlits, err)
		}
		row := BenchNetRow{Topology: p.Topology.String(), Nodes: p.Topology.Nodes(), Router: p.router, Load: p.Load, PacketFlits: p.PacketFlits,
			Accepted: sp.Accepted, Cycles: sp.Cycles, Events: sp.Events, FlitHops: sp.FlitHops, CPUSeconds: sp.CPU, CPUCounted: cpuProcess,
			ThreadCPUSeconds: sp.ThreadCPU, WallSeconds: sp.Wall, BytesPerNode: sp.HeapPerNode}
		if p.Shared {
			row.CPUSeconds, row.CPUCounted = sp.ThreadCPU, cpuThread
		}
		if row.CPUSeconds > 0 {
			row.EventsPerCPUS, row.FlitHopsPerCPUS = float64(sp.Events)/row.CPUSeconds, float64(sp.FlitHops)/row.CPUSeconds
		}
		res.Rows = append(res.Rows, row)
	}
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}

// WriteTable prints the rows and how their CPU time was counted.
func (res *BenchNetResult) WriteTable(w io.Writer) error {
	per := "rates per CPU second of the process (user + system, every thread)"
	if res.Jobs > 1 {
		per = fmt.Sprintf("%d rows at once (--jobs %d): rates per CPU second of the row's own thread (user + system; the garbage\ncollector's background workers not counted), heap per node not measured", res.Jobs, res.Jobs)
	}
	fmt.Fprintf(w, "uniform random traffic; %d cycles of warm-up, then %d cycles measured; %s\n", res.warmup, res.measure, per)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("topology", "router", "load", "flits", "accepted", "events", "M events / CPU s", "M flit-hops / CPU s", "CPU s", "wall s", "KB / node")
	for _, r := range res.Rows {
		kb := "-"
		if r.CPUCounted == cpuProcess {
			kb = fmt.Sprintf("%.1f", r.BytesPerNode/1000)
		}
		if err := t.Append(r.Topology, r.Router, fmt.Sprint(r.Load), fmt.Sprint(r.PacketFlits), fmt.Sprintf("%.3f", r.Accepted),
			fmt.Sprint(r.Events), fmt.Sprintf("%.2f", r.EventsPerCPUS/1e6), fmt.Sprintf("%.2f", r.FlitHopsPerCPUS/1e6),
			fmt.Sprintf("%.2f", r.CPUSeconds), fmt.Sprintf("%.2f", r.WallSeconds), kb); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "events: engine events (nsim); flits and credits delivered by channels (booksim); wall s: the measured cycles'")
	_, err := fmt.Fprintf(w, "%d rows in %.2f s wall, --jobs %d (network building and warm-up included)\n", len(res.Rows), res.WallSeconds, res.Jobs)
	return err
}
