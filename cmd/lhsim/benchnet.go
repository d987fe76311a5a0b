package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

func init() {
	register("bench-net", benchNetSummary, runBenchNet)
}

const benchNetSummary = "network simulation speed: events and flit-hops per CPU second and memory per node, both routers (docs/performance.md)"

// benchNetRow is one configuration of lhsim bench-net.
type benchNetRow struct {
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

// benchNetResult is what lhsim bench-net prints: its rows, and the wall time of the whole.
type benchNetResult struct {
	Jobs        int           `json:"jobs"`
	WallSeconds float64       `json:"wall_seconds"`
	Rows        []benchNetRow `json:"rows"`
}

// The CPU seconds a row's rates are per (benchNetRow.CPUCounted).
const (
	cpuProcess = "process"
	cpuThread  = "thread"
)

// benchNetPoint is one row to measure.
type benchNetPoint struct {
	fabric.SpeedConfig
	router string
}

// JobMemory is what a row may take: its network doubled for the garbage collector, and past
// saturation the packets queued at the sources, which grow for as long as it runs: at most
// 240 bytes a node a cycle in the heaps measured (fattree:4x3, load 1, 1-flit packets: 481 KB a
// node after 1,000 + 1,000 cycles; docs/performance.md), so 256 bytes a node a cycle run.
func (p benchNetPoint) JobMemory() int64 {
	return 2*fabric.Footprint(p.Topology, p.Config) + int64(p.Topology.Nodes())*(p.WarmupCycles+p.MeasureCycles)*256
}

func runBenchNet(args []string) error {
	fs := newFlags("bench-net", benchNetSummary)
	topos := fs.String("topologies", "torus:8x8x8,torus:16x16x16,fattree:4x3,fattree:4x6", "topologies, comma-separated")
	routers := fs.String("routers", "nsim,booksim", "routers, comma-separated: nsim (the default event-driven router), booksim (--preset booksim)")
	loads := []float64{0.05, 1}
	floatsVar(fs, &loads, "loads", 1e-6, 1, "offered loads, flits/cycle/node (1, the node link's rate, is past every default configuration's saturation)")
	flits := []int{1, 16}
	intsVar(fs, &flits, "packet-flits", flits, 1, 16, "packet sizes in flits")
	warmup, measure := int64(2000), int64(2000)
	int64Var(fs, &warmup, "warmup", 0, 1_000_000, "router cycles run before the measurement")
	int64Var(fs, &measure, "measure", 1, 1_000_000, "router cycles measured")
	seed := new(uint64)
	*seed = 1
	seedVar(fs, seed, "seed", "seed of the traffic")
	out := addOutputFlags(fs)
	jobs := 1
	intVar(fs, &jobs, "jobs", 1, 1024, "rows measured at once; with more than 1 the rates are per CPU second of each row's own thread and the heap per node is not measured (docs/performance.md)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	type point struct {
		topo   fabric.Topology
		router string
		cfg    fabric.Config
	}
	var points []point
	for _, r := range splitList(*routers) {
		var cfg fabric.Config
		switch r {
		case "nsim":
			cfg = fabric.DefaultConfig()
		case "booksim":
			cfg = fabric.BookSimConfig(4 * netsim.Nanosecond)
		default:
			return badUsage(fs, fmt.Errorf("--routers: %q: want nsim or booksim", r))
		}
		for _, s := range splitList(*topos) {
			topo, err := checkTopology(fs, "topologies", s, cfg, 2)
			if err != nil {
				return err
			}
			points = append(points, point{topo, r, cfg})
		}
	}
	if len(points) == 0 {
		return badUsage(fs, errors.New("--topologies and --routers: nothing to run"))
	}
	var parts []experiment.Part[benchNetPoint]
	for _, p := range points {
		for _, f := range flits {
			for _, l := range loads {
				parts = append(parts, experiment.Part[benchNetPoint]{Config: benchNetPoint{router: p.router, SpeedConfig: fabric.SpeedConfig{
					Topology: p.topo, Config: p.cfg, Load: l, PacketFlits: f, WarmupCycles: warmup, MeasureCycles: measure, Seed: *seed}}})
			}
		}
	}
	jobs = fitJobs("bench-net", jobs, parts)
	measureRow := func(p benchNetPoint) (*[]benchNetRow, error) {
		p.Shared = jobs > 1
		sp, err := fabric.MeasureSpeed(p.SpeedConfig)
		if err != nil {
			return nil, fmt.Errorf("%v, %s router, load %g, %d-flit packets: %w", p.Topology, p.router, p.Load, p.PacketFlits, err)
		}
		row := benchNetRow{Topology: p.Topology.String(), Nodes: p.Topology.Nodes(), Router: p.router, Load: p.Load, PacketFlits: p.PacketFlits,
			Accepted: sp.Accepted, Cycles: sp.Cycles, Events: sp.Events, FlitHops: sp.FlitHops, CPUSeconds: sp.CPU, CPUCounted: cpuProcess,
			ThreadCPUSeconds: sp.ThreadCPU, WallSeconds: sp.Wall, BytesPerNode: sp.HeapPerNode}
		if p.Shared {
			row.CPUSeconds, row.CPUCounted = sp.ThreadCPU, cpuThread
		}
		if row.CPUSeconds > 0 {
			row.EventsPerCPUS, row.FlitHopsPerCPUS = float64(sp.Events)/row.CPUSeconds, float64(sp.FlitHops)/row.CPUSeconds
		}
		return &[]benchNetRow{row}, nil
	}
	start := time.Now()
	rows, err := runJobs(jobs, parts, measureRow, func(rs []*[]benchNetRow) (*[]benchNetRow, error) {
		var all []benchNetRow
		for _, r := range rs {
			all = append(all, *r...)
		}
		return &all, nil
	})
	if err != nil {
		return err
	}
	res := benchNetResult{Jobs: jobs, WallSeconds: time.Since(start).Seconds(), Rows: *rows}
	return out.write(res, func(w io.Writer) error { return writeBenchNet(w, res, warmup, measure) })
}

func writeBenchNet(w io.Writer, res benchNetResult, warmup, measure int64) error {
	per := "rates per CPU second of the process (user + system, every thread)"
	if res.Jobs > 1 {
		per = fmt.Sprintf("%d rows at once (--jobs %d): rates per CPU second of the row's own thread (user + system; the garbage\ncollector's background workers not counted), heap per node not measured", res.Jobs, res.Jobs)
	}
	fmt.Fprintf(w, "uniform random traffic; %d cycles of warm-up, then %d cycles measured; %s\n", warmup, measure, per)
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
