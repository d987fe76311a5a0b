// Package net holds the cluster network's sweeps: barrier, all-to-all and synthetic traffic.
package net

// lhsim barrier: the NSIM-ACE paper's barriers (ring, recursive doubling, dissemination) by RDMA put
// and poll on a simulated machine (netsim/cluster on netsim/fabric), against process count,
// for each node latency, beside the contention-free model of netsim/collective.

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/collective"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Figure = (*BarrierResult)(nil)
	_ experiment.Figure = (*AlltoallResult)(nil)
	_ experiment.Figure = (*TrafficResult)(nil)
)

// BarrierConfig is what the user chose.
type BarrierConfig struct {
	Topologies experiment.Topologies
	Algorithms []collective.Algorithm // default: all
	// Processes are the process counts; empty means powers of two and the count just above
	// each, from 2 to the topology's size.
	Processes []int
	// RingMax bounds the ring's process counts: it sends p(p-1) puts (default 512).
	RingMax      int
	NodeLatency  []netsim.Time // the NSIM-ACE paper's section 5.1: 0, 0.8, 1.0, 1.2 µs
	Fabric       fabric.Config
	Cluster      cluster.Config // its NodeLatency is replaced by each of NodeLatency
	TorusSeed002 bool           // torus links as in Ohno et al.'s all-to-all paper (16 GB/s; X/Y/Z latencies are the default anyway)
	// Timeline, when set, records every run (docs/timeline.md); the caller closes it.
	Timeline *timeline.Writer
	// Progress, when set, counts the barriers run.
	Progress *experiment.Progress `json:"-"`
	// Threads is how many threads each topology's machine takes (BarrierThreads says how
	// many it really gets); 0 or 1: one. The results are the same for any.
	Threads int `json:"-"`
	// Windows, when set, is told of each topology's windows on more than one thread.
	Windows func(topology string, ws netsim.WindowStats) `json:"-"`
}

// DefaultBarrier is the NSIM-ACE paper's sweep: the 64-node crossbar and fat tree, and a 4,096-node torus.
func DefaultBarrier() BarrierConfig {
	return BarrierConfig{
		Topologies:  experiment.MustTopologies("crossbar:64,fattree:4x3,torus:16x16x16"),
		Algorithms:  collective.Algorithms,
		RingMax:     512,
		NodeLatency: []netsim.Time{0, 800 * netsim.Nanosecond, netsim.Microsecond, 1200 * netsim.Nanosecond},
		Fabric:      fabric.DefaultConfig(),
		Cluster:     cluster.DefaultConfig(),
	}
}

// BarrierRow is one barrier: the simulated time and the model's.
type BarrierRow struct {
	Topology      string  `json:"topology"`
	Algorithm     string  `json:"algorithm"`
	Processes     int     `json:"processes"`
	NodeLatencyUs float64 `json:"node_latency_us"`
	SimulatedUs   float64 `json:"simulated_us"`
	ModelUs       float64 `json:"model_us"`
}

// PutLatencyRow is a lone 8-byte put from node 0 to the nearest node that many routers away:
// when its data lands, and when it completes, simulated and from the closed form
// o + d + L(there) + d (+ L(back) for completion).
type PutLatencyRow struct {
	Topology      string  `json:"topology"`
	Routers       int     `json:"routers"`
	Target        int     `json:"target"`
	NodeLatencyUs float64 `json:"node_latency_us"`
	LandedNs      float64 `json:"landed_ns"`
	LandedModelNs float64 `json:"landed_model_ns"`
	DoneNs        float64 `json:"completed_ns"`
	DoneModelNs   float64 `json:"completed_model_ns"`
}

// BarrierResult is the sweep.
type BarrierResult struct {
	PutLatency  []PutLatencyRow `json:"put_latency"`
	Rows        []BarrierRow    `json:"rows"`
	Events      uint64          `json:"events"`
	WallSeconds float64         `json:"wall_seconds"`
}

// Validate refuses, before any work, what the sweep cannot run (an experiment.InputError):
// no topology (an empty list, or a zero Topology), one with one node or that does not fit in
// memory, a process count past a topology's nodes.
func (cfg BarrierConfig) Validate() error {
	if len(cfg.Topologies) == 0 {
		return experiment.Refuse("--topology: name at least one topology")
	}
	for _, ts := range cfg.Topologies {
		topo, err := experiment.CheckTopology("topology", ts, cfg.Fabric, 2)
		if err != nil {
			return err
		}
		for _, p := range cfg.Processes {
			if p < 2 || p > topo.Nodes() {
				return experiment.Refuse("--processes: %d processes on %s (%d nodes)", p, ts, topo.Nodes())
			}
		}
	}
	return nil
}

// ParseAlgorithms reads barrier names (collective.ParseAlgorithm).
func ParseAlgorithms(names []string) ([]collective.Algorithm, error) {
	var out []collective.Algorithm
	for _, a := range names {
		alg, err := collective.ParseAlgorithm(a)
		if err != nil {
			return nil, experiment.Refuse("--algorithm: %w", err)
		}
		out = append(out, alg)
	}
	return out, nil
}

// processCounts are 2, 3, 4, 5, 8, 9, ... up to n, and n.
func processCounts(n int) []int {
	var ps []int
	for p := 2; p <= n; p <<= 1 {
		ps = append(ps, p)
		if p+1 <= n && p > 2 {
			ps = append(ps, p+1)
		}
	}
	if ps[len(ps)-1] != n {
		ps = append(ps, n)
	}
	return ps
}

// RunBarrier runs the sweep.
func RunBarrier(cfg BarrierConfig) (*BarrierResult, error) {
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = collective.Algorithms
	}
	if cfg.RingMax == 0 {
		cfg.RingMax = 512
	}
	for _, ts := range cfg.Topologies {
		if ts.Nodes() < 2 {
			return nil, &experiment.InputError{Err: fmt.Errorf("barrier: %s has %d node; a barrier needs 2 processes", ts, ts.Nodes())}
		}
	}
	res := &BarrierResult{}
	start := time.Now()
	total := 0
	if cfg.Progress != nil {
		for _, ts := range cfg.Topologies {
			ps := cfg.Processes
			if len(ps) == 0 {
				ps = processCounts(ts.Nodes())
			}
			for _, alg := range cfg.Algorithms {
				for _, p := range ps {
					if alg != collective.Ring || p <= cfg.RingMax {
						total += len(cfg.NodeLatency)
					}
				}
			}
		}
		cfg.Progress.Expect(int64(total))
	}
	for k, ts := range cfg.Topologies {
		if err := cfg.Timeline.CheckNodes(ts.Nodes()); err != nil {
			return nil, &experiment.InputError{Err: fmt.Errorf("%s: %w", ts, err)}
		}
		var windows func(netsim.WindowStats)
		if cfg.Windows != nil {
			windows = func(ws netsim.WindowStats) { cfg.Windows(ts.String(), ws) }
		}
		c, done, err := buildCluster(ts.Fabric(), cfg.Fabric, cfg.Cluster, cfg.Threads, cfg.Timeline != nil, windows)
		if err != nil {
			return nil, err
		}
		events, err := runBarriers(cfg, res, c, k, ts.String())
		done()
		if err != nil {
			return nil, err
		}
		res.Events += events
	}
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}

// runBarriers runs cfg's barriers on c, the machine of topology ts (the k-th), into res, and
// says how many events they took.
func runBarriers(cfg BarrierConfig, res *BarrierResult, c *cluster.Cluster, k int, ts string) (uint64, error) {
	topo := c.Network().Topology()
	tl := experiment.MachineTimeline(cfg.Timeline, c, k, ts)
	lats := collective.NewLatencies(c.Network()) // the model's path walks, once per pair
	ps := cfg.Processes
	if len(ps) == 0 {
		ps = processCounts(topo.Nodes())
	}
	for _, p := range ps {
		if p < 2 || p > topo.Nodes() {
			return 0, fmt.Errorf("barrier: %d processes on %s (%d nodes)", p, ts, topo.Nodes())
		}
	}
	for _, nl := range cfg.NodeLatency {
		if err := c.SetNodeLatency(nl); err != nil {
			return 0, err
		}
		lat, err := putLatencies(c, ts)
		if err != nil {
			return 0, err
		}
		res.PutLatency = append(res.PutLatency, lat...)
		for _, alg := range cfg.Algorithms {
			for _, p := range ps {
				if alg == collective.Ring && p > cfg.RingMax {
					continue
				}
				t0 := c.Now()
				sim, err := collective.Run(c, alg, p)
				if err != nil {
					return 0, fmt.Errorf("%s: %w", ts, err)
				}
				cfg.Progress.Step(1, "")
				if tl != nil {
					tl.Run(fmt.Sprintf("%s barrier, %d processes", alg, p), t0, c.Now(), timeline.I("node_latency_ns", int64(nl/netsim.Nanosecond)))
				}
				model, err := collective.ModelWith(c, lats, alg, p)
				if err != nil {
					return 0, fmt.Errorf("%s: %w", ts, err)
				}
				res.Rows = append(res.Rows, BarrierRow{Topology: ts, Algorithm: string(alg), Processes: p,
					NodeLatencyUs: nl.Microseconds(), SimulatedUs: sim.Microseconds(), ModelUs: model.Microseconds()})
			}
		}
	}
	return c.Fired(), nil
}

// putLatencies times a lone put from node 0 to the nearest node at each router count.
func putLatencies(c *cluster.Cluster, topo string) ([]PutLatencyRow, error) {
	net, cfg := c.Network(), c.Config()
	var rows []PutLatencyRow
	seen := map[int]bool{}
	for dst := 1; dst < c.Size(); dst++ {
		path, err := net.Path(0, dst)
		if err != nil {
			return nil, err
		}
		routers := len(path) - 1
		if seen[routers] {
			continue
		}
		seen[routers] = true
		var landed, done netsim.Time
		start := c.Now()
		_, err = c.Run(dst+1, func(r *cluster.Rank) {
			switch r.ID() {
			case 0:
				h := r.Put(dst, collective.PutBytes, 0)
				r.Complete(h)
				done = r.Now() - start
			case dst:
				r.Poll(0)
				landed = r.Now() - start
			}
		})
		if err != nil {
			return nil, err
		}
		there, err := net.ZeroLoadLatency(0, dst, cfg.HeaderBytes+collective.PutBytes)
		if err != nil {
			return nil, err
		}
		back, err := net.ZeroLoadLatency(dst, 0, cfg.HeaderBytes)
		if err != nil {
			return nil, err
		}
		d := cfg.DMATime(collective.PutBytes)
		model := cfg.NodeLatency + d + there + d
		rows = append(rows, PutLatencyRow{Topology: topo, Routers: routers, Target: dst, NodeLatencyUs: cfg.NodeLatency.Microseconds(),
			LandedNs: landed.Nanoseconds(), LandedModelNs: model.Nanoseconds(), DoneNs: done.Nanoseconds(), DoneModelNs: (model + back).Nanoseconds()})
	}
	slices.SortFunc(rows, func(a, b PutLatencyRow) int { return a.Routers - b.Routers })
	return rows, nil
}

// WriteTable prints one table per topology and node latency: the three barriers side by side
// against process count, each simulated and modelled.
func (r *BarrierResult) WriteTable(w io.Writer) error {
	type group struct {
		topo string
		nl   float64
	}
	var groups []group
	cells := map[group]map[int]map[string]BarrierRow{}
	var algs []string
	for _, row := range r.Rows {
		g := group{row.Topology, row.NodeLatencyUs}
		if cells[g] == nil {
			cells[g] = map[int]map[string]BarrierRow{}
			groups = append(groups, g)
		}
		if cells[g][row.Processes] == nil {
			cells[g][row.Processes] = map[string]BarrierRow{}
		}
		cells[g][row.Processes][row.Algorithm] = row
		if !slices.Contains(algs, row.Algorithm) {
			algs = append(algs, row.Algorithm)
		}
	}
	fmt.Fprintln(w, "Zero-load latency of an 8-byte put from node 0, ns: simulated / closed form (o + d + L + d; completion + L back)")
	lt := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	lt.Header("topology", "node latency µs", "routers", "to node", "landed", "completed")
	for _, p := range r.PutLatency {
		if err := lt.Append(p.Topology, fmt.Sprintf("%.1f", p.NodeLatencyUs), fmt.Sprint(p.Routers), fmt.Sprint(p.Target),
			fmt.Sprintf("%.3f / %.3f", p.LandedNs, p.LandedModelNs), fmt.Sprintf("%.3f / %.3f", p.DoneNs, p.DoneModelNs)); err != nil {
			return err
		}
	}
	if err := lt.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nBarrier time by RDMA put and poll (the NSIM-ACE paper's section 4), µs: simulated / contention-free model")
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s, node latency %.1f µs\n", g.topo, g.nl)
		t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
		header := []any{"processes"}
		for _, a := range algs {
			header = append(header, strings.ReplaceAll(a, "_", " "))
		}
		t.Header(header...)
		var ps []int
		for p := range cells[g] {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		for _, p := range ps {
			line := []any{fmt.Sprint(p)}
			for _, a := range algs {
				row, ok := cells[g][p][a]
				if !ok {
					line = append(line, "-")
					continue
				}
				line = append(line, fmt.Sprintf("%.3f / %.3f", row.SimulatedUs, row.ModelUs))
			}
			if err := t.Append(line...); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n%d barriers, %d events, %.1f s wall\n", len(r.Rows), r.Events, r.WallSeconds)
	return nil
}

// WritePlot draws barrier time against process count for each topology and algorithm at one
// node latency (the first in the result).
func (r *BarrierResult) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	if len(r.Rows) == 0 {
		return fmt.Errorf("barrier: nothing to plot")
	}
	nl := r.Rows[0].NodeLatencyUs
	for _, row := range r.Rows {
		if row.NodeLatencyUs == 1.0 {
			nl = 1.0 // the latency that matched the NSIM-ACE paper's machine, when it is in the sweep
		}
	}
	p := experiment.LogXPlot(fmt.Sprintf("Barrier time, node latency %.1f µs (cf. Susukita et al.'s NSIM-ACE paper)", nl), "processes", "barrier time (µs)")
	experiment.LogY(p) // the ring's time grows as p², recursive doubling's as log p: one axis shows both
	var c experiment.Curves
	for _, row := range r.Rows {
		if row.NodeLatencyUs != nl {
			continue
		}
		c.Add(row.Topology+" "+strings.ReplaceAll(row.Algorithm, "_", " "), false, float64(row.Processes), row.SimulatedUs)
	}
	return c.Draw(p, file)
}
