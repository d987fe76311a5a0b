package lhsnic

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Group steps many nodes on one engine with a lookahead, SimBricks' rule: what a node does at
// time t (a message taken, an entry committed) reaches another node no sooner than t plus the
// lookahead, the network's shortest latency between two nodes. So a busy node may run ahead
// of the others' next steps by that much, instead of stepping in turn with them a cycle at a
// time. Alone, a node runs to the engine's next event; in a group, to the engine's next event
// that is not a node's step, or the others' next step plus the lookahead, whichever is first.
// The result is the same with any lookahead up to the network's (TestGroupLookahead); a node
// that finds a call in its past fails with a causality error rather than go on.
type Group struct {
	eng       *netsim.Engine
	lookahead netsim.Time
	nodes     []*Node
	at        netsim.Time // the group's engine event (Never: none)
	gen       int64
	firing    bool
	keys      *netsim.Keys // SetKeys's, or nil: the engine's order of scheduling
	fired     uint64       // its events fired (Events)
}

// SetKeys keys the group's events (netsim.Engine.AtKey; a group on each part of a machine of
// parts). Its event runs its nodes' due steps, which give the same results in any order
// among one instant's other events (a message or a host access at t goes in at the first
// cycle after t either way).
func (g *Group) SetKeys(k *netsim.Keys) { g.keys = k }

// Events is the number of the group's step events that fired (Node.WakeEvents).
func (g *Group) Events() uint64 { return g.fired }

// NewGroup makes a group on eng with the lookahead (0: the nodes step in turn).
func NewGroup(eng *netsim.Engine, lookahead netsim.Time) (*Group, error) {
	if lookahead < 0 {
		return nil, fmt.Errorf("lhsnic: lookahead %v: want >= 0", lookahead)
	}
	return &Group{eng: eng, lookahead: lookahead, at: netsim.Never}, nil
}

// New opens a node in the group (as lhsnic.New).
func (g *Group) New(cfg Config) (*Node, error) {
	n, err := New(g.eng, cfg)
	if err != nil {
		return nil, err
	}
	n.group = g
	g.nodes = append(g.nodes, n)
	return n, nil
}

// schedule makes sure the group's engine event comes no later than at.
func (g *Group) schedule(at netsim.Time) {
	if g.firing || at >= g.at {
		return // Fire schedules the next one when it ends
	}
	g.gen++
	g.at = at
	if g.keys != nil {
		g.eng.AtKey(at, g.keys.Next(), g, g.gen)
		return
	}
	g.eng.At(at, g, g.gen)
}

// others is the earliest step of the group's nodes but n, plus the lookahead.
func (g *Group) others(n *Node) netsim.Time {
	t := netsim.Never
	for _, o := range g.nodes {
		if o != n && o.wakeAt < t {
			t = o.wakeAt
		}
	}
	if t == netsim.Never {
		return t
	}
	return t + g.lookahead
}

// Fire implements netsim.Handler: run every node whose step is due, earliest first (ties in
// the order the nodes were made), then schedule the next.
func (g *Group) Fire(now netsim.Time, gen int64) {
	g.fired++
	if gen != g.gen {
		return // replaced by an earlier one
	}
	g.at, g.firing = netsim.Never, true
	for {
		var due *Node
		for _, n := range g.nodes {
			if n.wakeAt <= now && (due == nil || n.wakeAt < due.wakeAt) {
				due = n
			}
		}
		if due == nil {
			break
		}
		due.run(now)
	}
	g.firing = false
	next := netsim.Never
	for _, n := range g.nodes {
		next = min(next, n.wakeAt)
	}
	if next != netsim.Never {
		g.schedule(max(next, now))
	}
}

// Lookahead is the network's shortest latency between two nodes: a one-byte packet's
// zero-load latency from node 0 to its nearest node (the topologies are symmetric). Whatever
// one node does reaches another through the fabric, so no sooner than that.
func Lookahead(net *fabric.Network) (netsim.Time, error) {
	best := netsim.Never
	for d := 1; d < net.Topology().Nodes(); d++ {
		t, err := net.ZeroLoadLatency(0, d, 1)
		if err != nil {
			return 0, err
		}
		best = min(best, t)
	}
	if best == netsim.Never {
		return 0, fmt.Errorf("lhsnic: a network of %d nodes has no two to take a latency from", net.Topology().Nodes())
	}
	return best, nil
}
