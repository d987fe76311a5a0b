package fabric

// A network on the parts of a netsim.Parts: its routers split along the topology (slabs of
// the torus across the dimension whose links are slowest, subtrees of the fat tree), each
// part's routers and nodes on their own engine and thread, the windows as long as the
// least time in which one part can reach another over a cut link.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// MaxParts is the most parts NewParts splits topo into: the torus's largest radix among
// its slowest dimensions' (one slab of routers each), the fat tree's switches per level (a
// leaf switch's subtree each), one for a crossbar (a single router).
func MaxParts(topo Topology, cfg Config) int {
	switch t := topo.(type) {
	case *Torus:
		_, k := t.cutDim(&cfg, 1)
		return k
	case *FatTree:
		return t.sw
	}
	return 1
}

// cutDim is the dimension the torus is cut across for parts: the one whose links are
// slowest among those with at least parts coordinates (the widest on a tie), and its radix.
func (t *Torus) cutDim(cfg *Config, parts int) (int, int) {
	best, bestK := -1, 1
	for d, k := range t.k {
		if k < parts || k < 2 {
			continue
		}
		if best < 0 || cfg.torusLatency(d) > cfg.torusLatency(best) || cfg.torusLatency(d) == cfg.torusLatency(best) && k > bestK {
			best, bestK = d, k
		}
	}
	return best, bestK
}

// partition is router -> part for parts parts (2 to MaxParts).
func partition(topo Topology, cfg *Config, routers, parts int) []int32 {
	rp := make([]int32, routers)
	switch t := topo.(type) {
	case *Torus:
		d, k := t.cutDim(cfg, parts)
		for r := range rp {
			rp[r] = int32(t.coord(r, d) * parts / k)
		}
	case *FatTree:
		// A switch below the top serves a subtree of nodes: it goes with the first of them.
		// The top switches each reach every subtree: they are dealt out in order.
		nodes := t.Nodes()
		for r := range rp {
			l, s := r/t.sw, r%t.sw
			if l == t.n-1 {
				rp[r] = int32(s * parts / t.sw)
				continue
			}
			first := s / t.pow[l] * t.pow[l+1]
			rp[r] = int32(first * parts / nodes)
		}
	}
	return rp
}

// NewParts builds topo with cfg on parts parts (1 to MaxParts) of a new netsim.Parts: a
// run gives the same events in the same order, so the same results, on any number of parts
// (TestPartsSameAsSerial). The windows are the lookahead: the least, over the links cut
// between parts, of the link's latency and one flit's time (credits given back cross a cut
// link after the packet's first flit has left the downstream router; a packet's head, after
// its flit, the switch and the pipeline besides). A network with a tracer must stay on one
// part (the tracer is called from every part at once).
func NewParts(topo Topology, cfg Config, parts int) (*Network, *netsim.Parts, error) {
	if topo == nil {
		return nil, nil, fmt.Errorf("%w: need a topology", ErrBadConfig)
	}
	if m := MaxParts(topo, cfg); parts < 1 || parts > m {
		return nil, nil, fmt.Errorf("%w: %d parts of %v: want 1 to %d", ErrBadConfig, parts, topo, m)
	}
	if parts > 1 {
		if err := CheckFitsParts(topo, cfg, parts); err != nil {
			return nil, nil, err
		}
	}
	ps, err := netsim.NewParts(parts, 1)
	if err != nil {
		return nil, nil, err
	}
	n, err := New(ps.Engine(0), topo, cfg)
	if err != nil {
		return nil, nil, err
	}
	n.parts = ps
	// Each node's OnLeave list is its part's: made now, not by the first part to ask.
	n.leftWait = make([][]func(netsim.Time), len(n.nic))
	if parts == 1 {
		return n, ps, nil
	}
	n.rpart = partition(topo, &n.cfg, len(n.portBase), parts)
	n.engs = make([]*netsim.Engine, parts)
	for i := range parts {
		n.engs[i] = ps.Engine(i)
	}
	n.stats = make([]partStats, parts)
	la := n.Lookahead()
	if la <= 0 {
		return nil, nil, fmt.Errorf("%w: no lookahead between the parts of %v (a cut link takes no time): run it on one part", ErrBadConfig, topo)
	}
	if la != LookaheadOf(topo, cfg, parts) {
		panic(fmt.Sprintf("fabric: the lookahead of %v on %d parts is %v, and LookaheadOf says %v", topo, parts, la, LookaheadOf(topo, cfg, parts)))
	}
	ps.SetLookahead(la)
	return n, ps, nil
}

// Lookahead is the least time in which a router's event can cause one in another part: over
// the links cut between parts, the link's latency and the least flit time of any output
// (Never on one part).
func (n *Network) Lookahead() netsim.Time {
	f := netsim.Never
	for o := range n.out {
		if n.out[o].down != noPort { // (a port wired to nothing has no flit time)
			f = min(f, n.out[o].flitTime)
		}
	}
	la := netsim.Never
	for o := range n.in {
		op := &n.out[o]
		if op.owner < 0 || op.down < 0 || op.down == noPort {
			continue
		}
		if n.partOf(op.owner) != n.partOf(n.in[op.down].router) {
			la = min(la, op.latency+f)
		}
	}
	return la
}

// LookaheadOf is the lookahead of topo with cfg on parts parts (Network.Lookahead) without
// building the network; Never on one part, 0 when cfg or parts are not valid.
func LookaheadOf(topo Topology, cfg Config, parts int) netsim.Time {
	if parts == 1 {
		return netsim.Never
	}
	if cfg.Validate() != nil || parts < 1 || parts > MaxParts(topo, cfg) {
		return 0
	}
	var g graph
	if topo.build(&cfg, &g) != nil {
		return 0
	}
	rp := partition(topo, &cfg, len(g.ports), parts)
	sw := cfg.FlitTime(cfg.SwitchBandwidth)
	f := netsim.Never
	for _, l := range g.links {
		f = min(f, max(sw, cfg.FlitTime(l.gbps)))
	}
	for _, a := range g.nodes {
		f = min(f, cfg.FlitTime(a.gbps), max(sw, cfg.FlitTime(a.gbps)))
	}
	la := netsim.Never
	for _, l := range g.links {
		if rp[l.fromRouter] != rp[l.toRouter] {
			la = min(la, l.latency+f)
		}
	}
	return la
}

// Parts is the netsim.Parts the network runs on (nil: New's single engine).
func (n *Network) Parts() *netsim.Parts { return n.parts }
