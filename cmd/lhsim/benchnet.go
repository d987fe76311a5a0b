package main

import (
	"errors"
	"fmt"
	"io"

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
	Topology        string  `json:"topology"`
	Nodes           int     `json:"nodes"`
	Router          string  `json:"router"`
	Load            float64 `json:"load"`
	PacketFlits     int     `json:"packet_flits"`
	Accepted        float64 `json:"accepted"`
	Cycles          int64   `json:"cycles"`
	Events          uint64  `json:"events"`
	FlitHops        uint64  `json:"flit_hops"`
	CPUSeconds      float64 `json:"cpu_seconds"`
	EventsPerCPUS   float64 `json:"events_per_cpu_s"`
	FlitHopsPerCPUS float64 `json:"flit_hops_per_cpu_s"`
	BytesPerNode    float64 `json:"bytes_per_node"`
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
	var rows []benchNetRow
	for _, p := range points {
		for _, f := range flits {
			for _, l := range loads {
				sp, err := fabric.MeasureSpeed(fabric.SpeedConfig{Topology: p.topo, Config: p.cfg, Load: l, PacketFlits: f,
					WarmupCycles: warmup, MeasureCycles: measure, Seed: *seed})
				if err != nil {
					return fmt.Errorf("%v, %s router, load %g, %d-flit packets: %w", p.topo, p.router, l, f, err)
				}
				row := benchNetRow{Topology: p.topo.String(), Nodes: p.topo.Nodes(), Router: p.router, Load: l, PacketFlits: f,
					Accepted: sp.Accepted, Cycles: sp.Cycles, Events: sp.Events, FlitHops: sp.FlitHops, CPUSeconds: sp.CPU,
					BytesPerNode: sp.HeapPerNode}
				if sp.CPU > 0 {
					row.EventsPerCPUS, row.FlitHopsPerCPUS = float64(sp.Events)/sp.CPU, float64(sp.FlitHops)/sp.CPU
				}
				rows = append(rows, row)
			}
		}
	}
	return out.write(rows, func(w io.Writer) error { return writeBenchNet(w, rows, warmup, measure) })
}

func writeBenchNet(w io.Writer, rows []benchNetRow, warmup, measure int64) error {
	fmt.Fprintf(w, "uniform random traffic; %d cycles of warm-up, then %d cycles measured; rates per CPU second (user + system)\n", warmup, measure)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("topology", "router", "load", "flits", "accepted", "events", "M events / CPU s", "M flit-hops / CPU s", "CPU s", "KB / node")
	for _, r := range rows {
		if err := t.Append(r.Topology, r.Router, fmt.Sprint(r.Load), fmt.Sprint(r.PacketFlits), fmt.Sprintf("%.3f", r.Accepted),
			fmt.Sprint(r.Events), fmt.Sprintf("%.2f", r.EventsPerCPUS/1e6), fmt.Sprintf("%.2f", r.FlitHopsPerCPUS/1e6),
			fmt.Sprintf("%.2f", r.CPUSeconds), fmt.Sprintf("%.1f", r.BytesPerNode/1000)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "events: engine events (nsim); flits and credits delivered by channels (booksim)")
	return err
}
