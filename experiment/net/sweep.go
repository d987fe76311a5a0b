package net

// The network sweeps cut into parts that run on their own (one Slurm array task each, lhsim
// --slurm) and merged back into the result the whole sweep gives when run at once: the same
// rows in the same order, the same event counts. Only what measures this machine differs:
// wall and CPU times and the rates made from them, which the merge recomputes from the
// parts (CPU time adds up; wall time is the caller's to set).

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/alltoall"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// Parts are the barrier sweep by topology and node latency: each part builds its machine
// and runs every algorithm and process count on it, as the whole sweep does.
func (cfg BarrierConfig) Parts() []experiment.Part[BarrierConfig] {
	var out []experiment.Part[BarrierConfig]
	for _, ts := range cfg.Topologies {
		for _, nl := range cfg.NodeLatency {
			c := cfg
			c.Topologies, c.NodeLatency, c.Progress = experiment.Topologies{ts}, []netsim.Time{nl}, nil
			out = append(out, experiment.Part[BarrierConfig]{Label: fmt.Sprintf("%s node-latency %gus", ts, nl.Microseconds()), Config: c})
		}
	}
	return out
}

// Merge puts the parts' results (in Parts order) together; WallSeconds is their sum.
func (cfg BarrierConfig) Merge(parts []*BarrierResult) (*BarrierResult, error) {
	res := &BarrierResult{}
	for _, p := range parts {
		res.PutLatency = append(res.PutLatency, p.PutLatency...)
		res.Rows = append(res.Rows, p.Rows...)
		res.Events += p.Events
		res.WallSeconds += p.WallSeconds
	}
	return res, nil
}

// Parts are the all-to-all sweep by size and scheme; each part runs its size and scheme on
// every latency and evenness the sweep asks for, and tells Progress (when set) of each run
// with its own count: parts run at once (--jobs) call it from their goroutines.
func (cfg AlltoallConfig) Parts() []experiment.Part[AlltoallConfig] {
	var out []experiment.Part[AlltoallConfig]
	for _, size := range cfg.Sizes {
		for _, sc := range cfg.Schemes {
			c := cfg
			c.Sizes, c.Schemes = []int{size}, []alltoall.Scheme{sc} // Progress is told of each part's runs
			out = append(out, experiment.Part[AlltoallConfig]{Label: fmt.Sprintf("%dB %s", size, sc), Config: c})
		}
	}
	return out
}

// Merge puts the parts' results together in the whole sweep's row order (latency,
// evenness, size, scheme). WallS is the parts' sum; EventsPerS is made from it.
func (cfg AlltoallConfig) Merge(parts []*AlltoallResult) (*AlltoallResult, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("alltoall: no parts to merge")
	}
	res := &AlltoallResult{Torus: parts[0].Torus, Algorithm: parts[0].Algorithm, Steps: parts[0].Steps, Puts: parts[0].Puts,
		UnevenWeights: parts[0].UnevenWeights, Heavy: parts[0].Heavy, SyncRule: parts[0].SyncRule}
	for _, p := range parts {
		if p.Torus != res.Torus || p.Algorithm != res.Algorithm || p.Steps != res.Steps || p.Puts != res.Puts {
			return nil, fmt.Errorf("alltoall: parts of different sweeps (%s %s %d steps, %s %s %d steps)", res.Torus, res.Algorithm, res.Steps, p.Torus, p.Algorithm, p.Steps)
		}
		res.Rows = append(res.Rows, p.Rows...)
		res.Events += p.Events
		res.WallS += p.WallS
	}
	size := func(r AlltoallRow) int { return slices.Index(cfg.Sizes, r.BytesPerPair) }
	scheme := func(r AlltoallRow) int { return slices.Index(cfg.Schemes, alltoall.Scheme(r.Scheme)) }
	equal := func(r AlltoallRow) bool { return strings.HasSuffix(r.LinkLatencyNs, " (equal)") }
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(res.Rows, func(a, b AlltoallRow) int {
		return cmp.Or(cmp.Compare(b2i(equal(a)), b2i(equal(b))), cmp.Compare(b2i(a.Uneven), b2i(b.Uneven)),
			cmp.Compare(size(a), size(b)), cmp.Compare(scheme(a), scheme(b)))
	})
	if res.WallS > 0 {
		res.EventsPerS = float64(res.Events) / res.WallS
	}
	res.fillSavings()
	return res, nil
}

// Parts are the traffic sweep by offered load; each part also computes the bounds and the
// zero-load latencies, which every part finds the same.
func (cfg TrafficConfig) Parts() []experiment.Part[TrafficConfig] {
	return experiment.Split(cfg, cfg.Loads,
		func(l float64) string { return fmt.Sprintf("load %g", l) }, func(c *TrafficConfig, l float64) { c.Loads = []float64{l} })
}

// Merge puts the parts' results (in Parts order) together as the whole sweep would
// have run: in load order, stopping after the first saturated load unless AllLoads (a part
// past it ran for nothing and counts nowhere). CPU time is the sum of the counted parts';
// the rates are made from it.
func (cfg TrafficConfig) Merge(parts []*TrafficResult) (*TrafficResult, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("traffic: no parts to merge")
	}
	head := func(r *TrafficResult) TrafficResult {
		h := *r
		h.Rows, h.EventsPerS, h.FlitHopsPerS, h.CPUSeconds, h.SimulatedSeconds = nil, 0, 0, 0, 0
		return h
	}
	want := head(parts[0])
	res := want
	var events, flitHops float64
	var simulated netsim.Time // summed in picoseconds, as the whole sweep does, not in float seconds
	for i, p := range parts {
		if !reflect.DeepEqual(head(p), want) {
			return nil, fmt.Errorf("traffic: part %d (load %v) describes another machine than part 0", i, cfg.Loads[i])
		}
		if len(p.Rows) != 1 {
			return nil, fmt.Errorf("traffic: part %d has %d rows, want 1", i, len(p.Rows))
		}
		res.Rows = append(res.Rows, p.Rows[0])
		res.CPUSeconds += p.CPUSeconds
		simulated += netsim.Time(math.Round(p.SimulatedSeconds * float64(netsim.Second)))
		events += float64(p.Rows[0].Events)
		flitHops += p.FlitHopsPerS * p.CPUSeconds
		if p.Rows[0].Saturated && !cfg.AllLoads {
			break
		}
	}
	res.SimulatedSeconds = float64(simulated) / float64(netsim.Second)
	if s := res.CPUSeconds; s > 0 {
		res.EventsPerS, res.FlitHopsPerS = events/s, flitHops/s
	}
	return &res, nil
}

// Parts of a sweep also run at once in one process (lhsim --jobs): each part's machine is
// its own, so what bounds how many run together is memory. JobMemory is what one part may
// take: its largest network's footprint doubled for the garbage collector's headroom, the
// estimate fabric.CheckFits holds a run to (the processes' and messages' state comes on
// top: docs/performance.md gives the resident size measured). Remeasure sets, on a result
// merged from parts run at once, what measures this machine: the wall time of the whole and
// the CPU time the process used, with the rates made from them.

// networkMemory is twice the largest footprint of the networks named (fabric.CheckFits's
// estimate); none (the zero Topology) counts nothing (the run refuses it itself).
func networkMemory(fc fabric.Config, topologies ...experiment.Topology) int64 {
	var most int64
	for _, t := range topologies {
		if topo := t.Fabric(); topo != nil {
			most = max(most, 2*fabric.Footprint(topo, fc))
		}
	}
	return most
}

// JobMemory is the memory one part of the barrier sweep may take (its topology's network).
func (cfg BarrierConfig) JobMemory() int64 { return networkMemory(cfg.Fabric, cfg.Topologies...) }

// JobMemory is the memory one part of the all-to-all sweep may take (the torus's network).
func (cfg AlltoallConfig) JobMemory() int64 { return networkMemory(cfg.Fabric, cfg.Torus) }

// JobMemory is the memory one part of the traffic sweep may take (the topology's network).
func (cfg TrafficConfig) JobMemory() int64 {
	if topo := cfg.Topology.Fabric(); topo != nil && cfg.Fabric.Router == fabric.BookSimIQ {
		return 2 * booksim.Footprint(topo, cfg.Fabric) // (the booksim router's own, not the event model's)
	}
	return networkMemory(cfg.Fabric, cfg.Topology)
}

// Remeasure sets the barrier sweep's wall time to the whole run's.
func (r *BarrierResult) Remeasure(wallS, _ float64) { r.WallSeconds = wallS }

// Remeasure sets the all-to-all sweep's wall time to the whole run's, and its events per
// wall second from it.
func (r *AlltoallResult) Remeasure(wallS, _ float64) {
	r.WallS, r.EventsPerS = wallS, 0
	if wallS > 0 {
		r.EventsPerS = float64(r.Events) / wallS
	}
}

// Remeasure sets the traffic sweep's CPU time to the process's over the whole run (parts
// run at once cannot tell their CPU time apart), and its rates per CPU second from it.
func (r *TrafficResult) Remeasure(_, cpuS float64) {
	var events float64
	for _, row := range r.Rows {
		events += float64(row.Events)
	}
	flitHops := r.FlitHopsPerS * r.CPUSeconds
	r.CPUSeconds, r.EventsPerS, r.FlitHopsPerS = cpuS, 0, 0
	if cpuS > 0 {
		r.EventsPerS, r.FlitHopsPerS = events/cpuS, flitHops/cpuS
	}
}
