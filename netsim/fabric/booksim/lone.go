package booksim

// Lone packets, their closed form, and deadlock checks of the booksim model.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/fabric"
)

// Lone sends one packet of flits flits from src to dst through an otherwise idle network
// and returns its latency in cycles (creation to the tail's ejection, as BookSim2 counts
// it) and the routers it crossed. The network is left idle again.
func (n *Network) Lone(src, dst, flits int) (latency int64, routers int, err error) {
	nodes := n.topo.Nodes()
	if src < 0 || src >= nodes || dst < 0 || dst >= nodes {
		return 0, 0, fmt.Errorf("lone packet %d -> %d: %w (the network has %d)", src, dst, fabric.ErrBadNode, nodes)
	}
	if flits < 1 {
		return 0, 0, fmt.Errorf("lone packet: %d flits: %w", flits, fabric.ErrBadSize)
	}
	defer n.stopCrew()
	if n.lone == nil {
		s := newTerminals(n, flits, DefaultMeasure())
		s.state, s.empty = simRunning, true
		n.lone = s
	}
	s := n.lone
	s.flits = int32(flits)
	for _, p := range n.parts {
		p.acc.plat, p.acc.hops = stat{}, stat{}
	}
	s.reserve()
	from := n.parts[n.nodeFlitTo[src].part]
	id := s.newPacket(from)
	_, pk := s.pkt(id)
	*pk = packet{src: int32(src), dst: int32(dst), flits: int32(flits), ctime: n.now, record: true}
	t := &s.t[src]
	t.pkt, t.sent, t.vc = id, 0, -1
	from.acc.inFlight += int64(flits)
	from.acc.inFlightCtime += int64(flits) * pk.ctime
	from.acc.measured += int64(flits)
	s.plat.n = 0
	for s.plat.n == 0 && !s.deadlock {
		s.window(n.now + n.window)
	}
	if s.deadlock {
		return 0, 0, fmt.Errorf("lone packet %d -> %d did not arrive", src, dst)
	}
	// Let the last credits come home.
	s.advance(n.now + int64(len(n.parts[0].wheel)) + 2)
	return int64(s.plat.max), int(s.hops.max), nil
}

// ZeroLoad is the closed form of a lone packet's latency in the booksim router, in cycles,
// along the topology's route from src to dst: each channel its latency plus the cycle it is
// read in, each router routing + VC allocation + switch allocation + switch traversal less
// one (the flit is routed in the cycle it is read), and the flits behind the head one a
// cycle. With every delay one cycle that is 2 + 5H on the fat tree and the crossbar and
// 1 + 6H on the torus (its channels have latency 2) for H routers.
func (n *Network) ZeroLoad(src, dst, flits int) (int64, error) {
	nodes := n.topo.Nodes()
	if src < 0 || src >= nodes || dst < 0 || dst >= nodes {
		return 0, fmt.Errorf("zero-load %d -> %d: %w (the network has %d)", src, dst, fabric.ErrBadNode, nodes)
	}
	in := n.nodeFlitTo[src]
	chans, routers := int64(in.lat)+1, int64(0)
	// The routes the rule could draw differ only in which of equal ports they take: the
	// deterministic one stands for them all.
	h := fabric.StartHop
	for r := in.r; ; {
		routers++
		port, _ := n.topo.Route(int(r), dst, &h, fabric.DeterministicRule)
		to := &n.flitTo[int(n.routers[r].outBase)+port]
		chans += int64(to.lat) + 1
		if to.kind == evEject {
			break
		}
		if routers > int64(len(n.routers)) {
			return 0, fmt.Errorf("zero-load %d -> %d on %v: the route does not arrive", src, dst, n.topo)
		}
		r = to.r
	}
	per := n.routingDelay + n.vcAllocDelay + n.swAllocDelay + n.xbarDelay - 1
	return chans + routers*per + int64(flits-1), nil
}

// DeadlockCheck says why the booksim router on topo with cfg can deadlock, or nil: a ring
// the routing goes round (fabric.Topology.DatelineRing: a torus dimension of radix above 2
// under dimension order) closes a cycle of buffers unless its VCs are split in two dateline
// partitions (routefunc.cpp's dim_order_torus), which takes at least 2 VCs and the dateline
// on. Up/down routing and a single switch cannot close a cycle.
func DeadlockCheck(topo fabric.Topology, cfg fabric.Config) error {
	ring := topo.DatelineRing()
	switch {
	case ring == 0:
		return nil
	case cfg.NoDateline:
		return fmt.Errorf("%v can deadlock: its rings of %d routers need the dateline VC partitions, which are off", topo, ring)
	case cfg.VCs < 2:
		return fmt.Errorf("%v with %d VC can deadlock: dimension-order routing round a ring of %d routers needs 2 VCs or more, one per dateline partition", topo, cfg.VCs, ring)
	}
	return nil
}
