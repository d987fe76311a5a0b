package net

// How many threads a barrier's or an all-to-all's machine runs on (--threads), and the
// machine: a cluster on the parts of a netsim.Parts, its events keyed, so that its results
// are the same on any number of threads (one included).

import (
	"slices"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// clusterThreads is how many threads a machine of topo with fc runs on when t are asked,
// and why fewer: a timeline records the run on one, and fitParts.
func clusterThreads(t int, topo fabric.Topology, fc fabric.Config, timeline bool) (int, string) {
	if t > 1 && timeline {
		return 1, "a timeline records the run on one thread"
	}
	return fitParts(t, topo, fc)
}

// BarrierThreads is how many threads the barriers of cfg run on: the most any of its
// topologies takes, and why some (or all) take fewer than asked.
func BarrierThreads(cfg BarrierConfig) (int, string) {
	best := 1
	var why []string
	for _, ts := range cfg.Topologies {
		topo := ts.Fabric()
		if topo == nil {
			continue
		}
		got, w := clusterThreads(cfg.Threads, topo, cfg.Fabric, cfg.Timeline != nil)
		best = max(best, got)
		if w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	return best, strings.Join(why, "; ")
}

// AlltoallThreads is how many threads each all-to-all of cfg runs on, and why fewer.
func AlltoallThreads(cfg AlltoallConfig) (int, string) {
	topo := cfg.Torus.Fabric()
	if topo == nil {
		return 1, ""
	}
	return clusterThreads(cfg.Threads, topo, cfg.Fabric, cfg.Timeline != nil)
}

// buildCluster makes a machine of topo on the threads asked (fitted to it) and what to call
// when done with it: it closes the parts and tells windows (when set) of them, if they ran
// on more than one thread.
func buildCluster(topo fabric.Topology, fc fabric.Config, cc cluster.Config, threads int, timeline bool,
	windows func(netsim.WindowStats)) (*cluster.Cluster, func(), error) {
	parts, _ := clusterThreads(threads, topo, fc, timeline)
	c, err := cluster.BuildParts(topo, fc, cc, parts)
	if err != nil {
		return nil, nil, err
	}
	return c, func() {
		ps := c.Parts()
		ps.Close()
		if windows != nil && ps.Len() > 1 {
			windows(ps.Stats())
		}
	}, nil
}

// FitParts is how many parts a machine of topo with fc splits into when t are asked, and why
// fewer (a topology's parts, no lookahead): for the commands whose machines are built
// elsewhere (netsim/machine).
func FitParts(t int, topo fabric.Topology, fc fabric.Config) (int, string) {
	return fitParts(t, topo, fc)
}
