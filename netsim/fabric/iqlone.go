package fabric

// Lone packets and deadlock checks of the booksim model.

import "fmt"

// Lone sends one packet of flits flits from src to dst through an otherwise idle network
// and returns its latency in cycles (creation to the tail's ejection, as BookSim2 counts
// it) and the routers it crossed. The network is left idle again.
func (n *IQNet) Lone(src, dst, flits int) (latency int64, routers int, err error) {
	nodes := n.topo.Nodes()
	if src < 0 || src >= nodes || dst < 0 || dst >= nodes {
		return 0, 0, fmt.Errorf("lone packet %d -> %d: %w (the network has %d)", src, dst, ErrBadNode, nodes)
	}
	if flits < 1 {
		return 0, 0, fmt.Errorf("lone packet: %d flits: %w", flits, ErrBadSize)
	}
	if n.lone == nil {
		m := DefaultIQMeasure()
		m.DeadlockCycles = 1000
		s := &iqSim{n: n, flits: int32(flits), m: m, state: simRunning, empty: true}
		s.t = make([]iqTerminal, nodes)
		for i := range s.t {
			s.t[i].lastVC, s.t[i].pkt = -1, -1
			s.t[i].buf = newBufState(n.v, n.cfg.BufferFlits)
		}
		n.lone = s
	}
	s := n.lone
	s.plat, s.hops = stat{}, stat{}
	pi := s.newPacket()
	p := &s.pkts[pi]
	*p = iqPacket{src: int32(src), dst: int32(dst), flits: int32(flits), ctime: n.now, record: true}
	t := &s.t[src]
	t.pkt, t.sent, t.vc = pi, 0, -1
	s.inFlight += int64(flits)
	s.inFlightCtime += float64(flits) * float64(p.ctime)
	s.measured += int64(flits)
	for s.plat.n == 0 && !s.deadlock {
		s.step()
	}
	if s.deadlock {
		return 0, 0, fmt.Errorf("lone packet %d -> %d did not arrive", src, dst)
	}
	// Let the last credits come home.
	for range len(n.wheel) + 2 {
		s.step()
	}
	return int64(s.plat.max), int(s.hops.max), nil
}

// ZeroLoad is the closed form of a lone packet's latency in the booksim router, in cycles:
// each channel its latency plus the cycle it is read in, each router
// routing + VC allocation + switch allocation + switch traversal less one (the flit is
// routed in the cycle it is read), and the flits behind the head one a cycle. With every
// delay one cycle that is 2 + 5H on the fat tree and the crossbar and 1 + 6H on the torus
// (its channels have latency 2) for H routers.
func (n *IQNet) ZeroLoad(src, dst, flits int) (int64, error) {
	nodes := n.topo.Nodes()
	if src < 0 || src >= nodes || dst < 0 || dst >= nodes {
		return 0, fmt.Errorf("zero-load %d -> %d: %w (the network has %d)", src, dst, ErrBadNode, nodes)
	}
	chans := int64(n.nodeInLat[src]+1) + int64(n.nodeOutLat[dst]+1)
	routers := int64(1)
	cfg := &n.cfg
	switch t := n.topo.(type) {
	case *Torus:
		for d, k := range t.k {
			c1, c2 := t.coord(src, d), t.coord(dst, d)
			fwd := (c2 - c1 + k) % k
			dist := min(fwd, k-fwd)
			l, _ := cfg.cyclesOf("", int64(cfg.torusLatency(d)), 0)
			routers += int64(dist)
			chans += int64(dist) * (l + 2)
		}
	case *FatTree:
		l, _ := cfg.cyclesOf("", int64(cfg.CableLatency), 0)
		up := 0
		for src/t.pow[up+1] != dst/t.pow[up+1] {
			up++
		}
		routers += int64(2 * up)
		chans += int64(2*up) * (l + 2)
	}
	per := n.routingDelay + n.vcAllocDelay + n.swAllocDelay + n.xbarDelay - 1
	return chans + routers*per + int64(flits-1), nil
}

// DeadlockCheck says why the booksim router on topo with cfg can deadlock, or nil: a ring
// (a torus dimension of radix above 2) under dimension-order routing closes a cycle of
// buffers unless its VCs are split in two dateline partitions (routefunc.cpp's
// dim_order_torus), which takes at least 2 VCs and the dateline on. The fat tree's nca
// routing (up, then down) and the crossbar cannot close a cycle.
func DeadlockCheck(topo Topology, cfg Config) error {
	t, ok := topo.(*Torus)
	if !ok {
		return nil
	}
	ring := 0
	for _, k := range t.k {
		ring = max(ring, k)
	}
	if ring <= 2 {
		return nil
	}
	switch {
	case cfg.NoDateline:
		return fmt.Errorf("%v can deadlock: its rings of %d routers need the dateline VC partitions, which are off", topo, ring)
	case cfg.VCs < 2:
		return fmt.Errorf("%v with %d VC can deadlock: dimension-order routing round a ring of %d routers needs 2 VCs or more, one per dateline partition", topo, cfg.VCs, ring)
	}
	return nil
}
