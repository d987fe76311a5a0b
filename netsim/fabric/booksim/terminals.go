package booksim

// The terminals' cycle: BookSim2's TrafficManager::_Step, _Inject and _RetireFlit for the
// nodes of one part.

import "github.com/lhsim/lhsim/netsim/fabric"

// step is TrafficManager::_Step for part p's terminals and routers, in cycle p.now.
func (s *sim) step(p *part) {
	n := s.n
	moved0 := p.moved
	counting := s.state == simWarmingUp || s.state == simRunning
	n.readInputs(p, func(node int, f *flit) {
		t := &s.t[node]
		t.ejected, t.hasEj = *f, true
		if counting {
			t.accepted++
		}
	}, func(node, vc int) {
		s.t[node].buf.occ[vc]--
	})
	if !s.empty {
		s.inject(p)
	}
	now := p.now
	for _, node := range p.nodes {
		t := &s.t[node]
		// The terminal's send: the flit at the head of the packet being injected.
		if t.pkt < 0 {
			continue
		}
		_, pk := s.pkt(t.pkt)
		head := t.sent == 0
		if head && t.vc < 0 {
			// "Find first available VC": round-robin from the last one used.
			cnt := n.v
			for i := 1; i <= cnt; i++ {
				vc := 0
				if t.lastVC >= 0 && int(t.lastVC) < cnt {
					vc = (int(t.lastVC) + i) % cnt
				}
				if t.buf.available(vc) && !t.buf.full(vc) {
					t.vc = int16(vc)
					break
				}
			}
		}
		if t.vc < 0 || t.buf.full(int(t.vc)) {
			continue
		}
		tail := t.sent == pk.flits-1
		e := p.slot(&n.nodeFlitTo[node])
		e.dest = n.nodeFlitTo[node]
		e.f = flit{}
		f := &e.f
		f.pkt, f.dst, f.vc = t.pkt, pk.dst, int8(t.vc)
		if head {
			f.flags |= flitHead
			f.setHop(fabric.StartHop)
			t.buf.inUse[t.vc] = node // TakeBuffer
			t.lastVC = t.vc
			pk.itime = now
		}
		if tail {
			f.flags |= flitTail
		}
		t.buf.sending(t.vc, tail)
		if counting {
			t.sentFl++
		}
		t.sent++
		if t.sent == pk.flits {
			t.pkt = -1
		}
		n.injFlits[node]++
		p.moved++
	}
	for _, node := range p.nodes {
		t := &s.t[node]
		if !t.hasEj {
			continue
		}
		f := t.ejected
		t.hasEj = false
		p.sendCredit(&n.nodeCredTo[node], int16(f.vc))
		s.retire(p, f, now)
	}
	n.evaluate(p)
	if p.moved != moved0 {
		p.lastMove = now
	}
}

// inject is TrafficManager::_Inject for part p's nodes: a source with no packet in hand
// creates the next one, dated the cycle its Bernoulli trial succeeded (include_queuing = 1).
func (s *sim) inject(p *part) {
	now := p.now
	for _, node := range p.nodes {
		t := &s.t[node]
		if t.pkt >= 0 {
			continue
		}
		if t.next <= now {
			ct := t.next
			id := s.newPacket(p)
			_, pk := s.pkt(id)
			*pk = packet{src: node, dst: int32(s.pat.Dest(int(node), t.rng)), flits: s.flits, ctime: ct}
			pk.record = s.state == simRunning || s.state == simDraining && ct < s.drainAt
			t.pkt, t.sent, t.vc = id, 0, -1
			p.acc.inFlight += int64(pk.flits)
			p.acc.inFlightCtime += int64(pk.flits) * ct
			if pk.record {
				p.acc.measured += int64(pk.flits)
			}
			t.qtime = ct + 1
			t.next = s.geom(t, ct)
		} else {
			t.qtime = now + 1
		}
		if s.state == simDraining && t.qtime > s.drainAt {
			t.drained = true
		}
	}
}

// retire is _RetireFlit in part p: a packet's statistics when its tail is out.
func (s *sim) retire(p *part, f flit, now int64) {
	o, pk := s.pkt(f.pkt)
	p.acc.inFlight--
	p.acc.inFlightCtime -= pk.ctime
	if pk.record {
		p.acc.measured--
	}
	if !f.tail() {
		return
	}
	if s.state == simWarmingUp || pk.record {
		// (The head's hop count rides in every flit of the packet: wormhole keeps them in
		// order behind it, and the tail is the head on a 1-flit packet.)
		p.acc.hops.add(float64(f.hops))
		p.acc.plat.add(float64(now - pk.ctime))
		p.acc.nlat.add(float64(now - pk.itime))
	}
	// Every flit of it is out: its slot goes back to its part (at once, or at the window's
	// end: the slabs are their parts' own).
	idx := f.pkt / int32(len(s.n.parts))
	if o == p {
		p.pktFree = append(p.pktFree, idx)
	} else {
		b := &p.outs[p.win%2][o.id]
		b.freed = append(b.freed, idx)
	}
}

// newPacket is a free slot of p's slab (reserve keeps some), as a packet id.
func (s *sim) newPacket(p *part) int32 {
	k := len(p.pktFree) - 1
	idx := p.pktFree[k]
	p.pktFree = p.pktFree[:k]
	return idx*int32(len(s.n.parts)) + int32(p.id)
}
