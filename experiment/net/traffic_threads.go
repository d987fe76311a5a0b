package net

// How many threads a load of lhsim traffic runs on (--threads), and the engine it runs on.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// TrafficThreads is how many threads a load of cfg runs on, and why that is fewer than
// cfg.Threads when it is: a timeline runs on one, a topology splits into at most
// fabric.MaxParts parts (both routers cut it alike), and a network of the event model whose
// cut links take no time has no lookahead.
func TrafficThreads(cfg TrafficConfig) (int, string) {
	t := max(cfg.Threads, 1)
	if t == 1 {
		return 1, ""
	}
	topo := cfg.Topology.Fabric()
	switch {
	case topo == nil:
		return 1, ""
	case cfg.Timeline != nil:
		return 1, "a timeline records the run on one thread"
	}
	return fitParts(t, topo, cfg.Fabric)
}

// fitParts is how many parts (threads) of t topo with fc splits into, and why fewer when it
// is: a topology splits into at most its router's MaxParts parts, and a network whose cut
// links take no time has no lookahead.
func fitParts(t int, topo fabric.Topology, fc fabric.Config) (int, string) {
	if t <= 1 {
		return 1, ""
	}
	m := fabric.MaxParts(topo, fc)
	if fc.Router == fabric.BookSimIQ {
		m = booksim.MaxParts(topo, fc)
	}
	if t > m {
		why := fmt.Sprintf("%v splits into at most %d parts", topo, m)
		if m == 1 {
			return 1, why
		}
		t = m
		return t, why
	}
	if fc.Router == fabric.BookSimIQ {
		return t, "" // (its channels take a cycle at least: its windows are never empty)
	}
	if la := fabric.LookaheadOf(topo, fc, t); la <= 0 {
		return 1, fmt.Sprintf("no lookahead: the links cut between parts of %v take no time", topo)
	}
	return t, ""
}

// runner is a serial engine or the parts of a parallel one.
type runner interface {
	Run(until netsim.Time) uint64
	Fired() uint64
	Now() netsim.Time
}

// trafficNet is a load's network on one engine, or on parts (cfg.Threads), and what to call
// when the run is over (it closes the parts and tells cfg.Windows of them).
func trafficNet(topo fabric.Topology, fc fabric.Config, cfg TrafficConfig, load float64) (*fabric.Network, runner, func(), error) {
	if threads, _ := TrafficThreads(cfg); threads > 1 {
		n, ps, err := fabric.NewParts(topo, fc, threads)
		if err != nil {
			return nil, nil, nil, err
		}
		return n, ps, func() {
			ps.Close()
			if cfg.Windows != nil {
				cfg.Windows(load, ps.Stats())
			}
		}, nil
	}
	e := &netsim.Engine{}
	n, err := fabric.New(e, topo, fc)
	return n, e, func() {}, err
}
