package fabric

// The event-driven router (Config.Router = NSIMRouter): what each event does, how a packet
// asks for its output, wins it and crosses the link, and how credits come back.

import (
	"math"

	"github.com/lhsim/lhsim/netsim"
)

// Fire runs one of the network's events (netsim.Handler).
func (n *Network) Fire(now netsim.Time, arg int64) {
	x := int(arg >> kindBits)
	switch arg & kindMask {
	case evCredit:
		// Credits from input x's VC reach the output feeding it: counted, and the output
		// tried if a packet waits for it.
		x = int(arg >> creditInShift)
		vc, flits := creditOf(arg)
		n.upCred(x, vc).free += flits
		if o := int(n.in[x].upstream); len(n.out[o].reqs) > 0 {
			n.tryOutput(o, now)
		}
	case evOutWake:
		op := &n.out[x]
		if op.wakeAt == now {
			op.wakeAt = noWake
		}
		if op.owner < 0 {
			n.tryInject(int(-1-op.owner), now)
		} else {
			n.tryOutput(x, now)
		}
	case evInWake:
		ip := &n.in[x]
		if ip.wakeAt == now {
			ip.wakeAt = noWake
		}
		for k := x * n.v; k < (x+1)*n.v; k++ {
			if p := n.vcq(k).front(); p != nil && p.requested {
				n.tryOutput(int(p.out), now)
			}
		}
	case evDeliver:
		n.deliver(x, now)
	}
}

// Fire lands p, its head through input x's pipeline (a netsim.Handler: the event that
// carries a packet over a link, so that a link between parts passes it as an event): it
// joins its VC's buffer queue, and the first in the queue asks for its output.
func (p *Packet) Fire(now netsim.Time, arg int64) {
	n := p.net
	key := int(arg>>kindBits)*n.v + int(p.VC)
	q := n.vcq(key)
	if q.push(p); q.n == 1 {
		n.request(key, p, now)
	}
}

// Credit events' argument: the kind, the VC, the flits and the input they leave.
const (
	creditVCShift    = kindBits
	creditFlitsShift = creditVCShift + 6 // maxVCs is 64
	creditInShift    = creditFlitsShift + 21
)

func creditArg(i, vc int, flits int32) int64 {
	return evCredit | int64(vc)<<creditVCShift | int64(flits)<<creditFlitsShift | int64(i)<<creditInShift
}

func creditOf(arg int64) (vc int, flits int32) {
	return int(arg>>creditVCShift) & (maxVCs - 1), int32(arg>>creditFlitsShift) & (1<<21 - 1)
}

// at schedules the network's own event arg at t on part's engine, from the part running
// (its key is the argument: every event of the network says what it is).
func (n *Network) at(from, to int, t netsim.Time, h netsim.Handler, arg int64) {
	if n.bySeq {
		n.eng.At(t, h, arg)
		return
	}
	n.engs[from].Post(to, t, n.key|uint64(arg), h, arg)
}

// wakeOut makes sure output o is tried again at t (or earlier: an earlier try that still
// cannot send asks again for what it then waits for).
func (n *Network) wakeOut(o int, t netsim.Time) {
	op := &n.out[o]
	if op.wakeAt != noWake && op.wakeAt <= t {
		return
	}
	op.wakeAt = t
	p := n.outPart(o)
	n.at(p, p, t, n, evOutWake|int64(o)<<kindBits)
}

// wakeIn makes sure the waiting VCs of input i are tried again when it is free at t.
func (n *Network) wakeIn(i int, t netsim.Time) {
	ip := &n.in[i]
	if ip.wakeAt != noWake && ip.wakeAt <= t {
		return
	}
	ip.wakeAt = t
	p := n.partOf(ip.router)
	n.at(p, p, t, n, evInWake|int64(i)<<kindBits)
}

// giveBack sends flits of buffer space back to output o's VC q (ovc(o, vc)), arriving at
// at. Credits are counted lazily, when the output next looks at them; only an output that
// has a packet waiting gets an event for their arrival.
func (n *Network) giveBack(o int, q *outVC, flits int32, at netsim.Time) {
	if q.n > 0 {
		at = max(at, q.lastAt) // keep the FIFO in time order
	}
	q.push(credit{at, flits})
	if op := &n.out[o]; op.owner < 0 && n.nic[-1-op.owner].n > 0 || op.owner >= 0 && len(op.reqs) > 0 {
		n.wakeOut(o, at)
	}
}

// giveBackIn is giveBack from input i's VC vc to its upstream output, the packet's tail
// leaving at end. To a router's output the credits go as an event at their arrival (the
// router may be another part's); to a node's injection port (the same part) they go into its
// FIFO, with no look at the port's own record unless it waits. The credits that have arrived
// by now are counted first (as avail would count them when the port next looks), so that the
// FIFO holds only those still on the way: one, mostly, which stays inside the record.
func (n *Network) giveBackIn(i, vc int, flits int32, end, now netsim.Time) {
	ip := &n.in[i]
	if up := n.out[ip.upstream].owner; up >= 0 {
		n.at(n.partOf(ip.router), n.partOf(up), end+ip.upLatency, n, creditArg(i, vc, flits))
		return
	}
	q := n.upCred(i, vc)
	avail(q, now)
	at := end + ip.upLatency
	if q.n > 0 {
		at = max(at, q.lastAt) // keep the FIFO in time order
	}
	q.push(credit{at, flits})
	if ip.upWaits {
		n.wakeOut(int(ip.upstream), at)
	}
}

// avail counts the credits of output VC q that have arrived by now.
func avail(q *outVC, now netsim.Time) int32 {
	for q.n > 0 && q.nextAt <= now {
		q.free += q.buf[q.head].flits
		q.head = (q.head + 1) & int32(len(q.buf)-1)
		if q.n--; q.n > 0 {
			q.nextAt = q.buf[q.head].at
		}
	}
	return q.free
}

// request routes the head packet p of input VC key and queues it at its output.
func (n *Network) request(key int, p *Packet, now netsim.Time) {
	i := key / n.v
	r := int(n.in[i].router)
	port, class := n.topo.Route(r, p.Dst, &p.hop, DeterministicRule)
	o := int(n.portBase[r]) + port
	p.out = int32(o)
	switch {
	case n.out[o].down < 0: // ejection: one buffer, credits in VC 0
		p.vcLo, p.vcHi = 0, 1
	case class < 0 || n.cfg.NoDateline:
		p.vcLo, p.vcHi = 0, uint8(n.v)
	default:
		h := n.v / 2
		p.vcLo, p.vcHi = uint8(class*h), uint8(class*h+h)
	}
	p.requested = true
	n.out[o].reqs = append(n.out[o].reqs, int32(key))
	n.tryOutput(o, now)
}

// pickVC is the output VC in p's range that takes p whole, or -1; then it asks for a wake-up
// when credits already on their way arrive.
func (n *Network) pickVC(o int, p *Packet, now netsim.Time) int {
	lo, hi := int(p.vcLo), int(p.vcHi)
	if n.cfg.InOrder && hi-lo > 1 {
		lo += (p.Src*7919 + p.Dst) % (hi - lo)
		hi = lo + 1
	}
	best, bestC := -1, int32(0)
	for w := lo; w < hi; w++ {
		if c := avail(n.ovc(o, w), now); c >= p.Flits && c > bestC {
			best, bestC = w, c
		}
	}
	if best < 0 {
		next := netsim.Never
		for w := lo; w < hi; w++ {
			if q := n.ovc(o, w); q.n > 0 {
				next = min(next, q.nextAt)
			}
		}
		if next != netsim.Never {
			n.wakeOut(o, next)
		}
		// else: credits come back later, and their event (a router's output) or giveBack (a
		// node's port, which has a waiter) tries o then.
	}
	return best
}

// tryOutput grants output o to one waiting packet, if the port is free and one can go.
// Whatever stops it schedules the wake-up that tries again.
func (n *Network) tryOutput(o int, now netsim.Time) {
	op := &n.out[o]
	if len(op.reqs) == 0 {
		return
	}
	if op.busyUntil > now {
		n.wakeOut(o, op.busyUntil)
		return
	}
	best, bestIdx, bestVC := -1, -1, -1
	var bp *Packet
	var bestRank uint64
	li, lv := int(op.rr)/n.v, int(op.rr)%n.v
	for idx, k32 := range op.reqs {
		key := int(k32)
		i := key / n.v
		if b := n.in[i].busyUntil; b > now {
			n.wakeIn(i, b)
			continue
		}
		p := n.vcq(key).front()
		w := n.pickVC(o, p, now)
		if w < 0 {
			continue
		}
		// The winner has the lowest rank. Oldest-first: injection time, then injection
		// order. Round-robin: inputs take turns at the output (the first input after the one
		// granted last), and an input's VCs take turns among themselves, as a separable
		// allocator's arbiters would, so an input with several busy VCs gets no larger share.
		var rank uint64
		if n.cfg.Arbiter == OldestFirst {
			rank = uint64(p.InjectedAt)
		} else {
			rank = uint64(uint32(i-li-1))<<8 | uint64((key-i*n.v-lv-1+2*n.v)%n.v)
		}
		// Ties (oldest-first: injected at the same time) go to the lower source, then to
		// the source's own order: not to a count over the whole network, which would depend
		// on what it carried before (a network restarted from a checkpoint starts afresh).
		if best < 0 || rank < bestRank || rank == bestRank && (p.Src < bp.Src || p.Src == bp.Src && p.seq < bp.seq) {
			best, bestIdx, bestVC, bp, bestRank = key, idx, w, p, rank
		}
	}
	if best < 0 {
		return
	}
	last := len(op.reqs) - 1
	op.reqs[bestIdx] = op.reqs[last]
	op.reqs = op.reqs[:last]
	op.rr = int32(best)
	q := n.vcq(best)
	q.pop()
	bp.requested = false
	i := best / n.v
	end := n.send(o, bestVC, bp, now, i)
	n.in[i].busyUntil = end
	if len(op.reqs) > 0 {
		n.wakeOut(o, end)
	}
	// The buffer space the packet leaves goes back upstream when its tail has left.
	n.giveBackIn(i, best%n.v, bp.Flits, end, now)
	if p := q.front(); p != nil {
		n.request(best, p, now)
	}
}

// tryInject puts the head of node's injection queue on its link, if it can go.
func (n *Network) tryInject(node int, now netsim.Time) {
	q := &n.nic[node]
	p := q.front()
	if p == nil {
		return
	}
	o := len(n.in) + node
	op := &n.out[o]
	if t := max(p.InjectedAt, op.busyUntil); t > now {
		n.wakeOut(o, t)
		return
	}
	p.vcLo, p.vcHi = 0, uint8(n.v)
	w := n.pickVC(o, p, now)
	if w < 0 {
		return
	}
	if q.pop(); q.n == 0 {
		n.waits(o, false)
	}
	if n.tracer != nil {
		n.tracer.Left(now, p)
	}
	end := n.send(o, w, p, now, noPort)
	if next := q.front(); next != nil {
		n.wakeOut(o, max(end, next.InjectedAt))
	}
	if n.leftWait != nil {
		if w := n.leftWait[node]; len(w) > 0 {
			f := w[0]
			// Shifted down rather than resliced: the list keeps its array, and a sender
			// that waits for every packet adds no allocation per packet.
			copy(w, w[1:])
			w[len(w)-1] = nil
			n.leftWait[node] = w[:len(w)-1]
			f(now)
		}
	}
}

// send starts p on output o's link in VC w at now, coming from input port in (noPort for
// a node's injection), and returns when its tail has left.
func (n *Network) send(o, w int, p *Packet, now netsim.Time, in int) netsim.Time {
	op := &n.out[o]
	f := op.flitTime
	end := now + netsim.Time(p.Flits)*f
	if t := p.tailAt + f; in != noPort && t > end {
		end = t // cut-through: the tail cannot leave before it has arrived
	}
	op.busyUntil = end
	op.flits += uint64(p.Flits)
	n.ovc(o, w).free -= p.Flits
	part := n.outPart(o)
	n.stats[part].FlitHops += uint64(p.Flits)
	if n.linkFlits != nil {
		n.linkFlits[o] += uint64(p.Flits)
	}
	if in != noPort {
		p.Hops++
	}
	p.state = stNetwork
	p.VC = uint8(w)
	head := now + op.hold + op.latency + f
	p.tailAt = end + op.hold + op.latency
	// The zero-load latency link by link (ZeroLoadLatency's sum): into a router, its hold,
	// flight, one flit and the next router's pipeline; at the destination, the whole packet.
	if p.zeroLoad >= 0 {
		z := netsim.Time(p.zeroLoad) + op.hold + op.latency
		if op.down < 0 {
			z += netsim.Time(p.Flits) * f
		} else {
			z += f + n.cfg.Pipeline()
		}
		p.zeroLoad = -1
		if z <= math.MaxInt32 {
			p.zeroLoad = int32(z)
		}
	}
	if op.down < 0 {
		node := int(-1 - op.down)
		a := &n.arrive[node]
		if a.push(p); a.n == 1 {
			n.at(part, part, p.tailAt, n, evDeliver|int64(node)<<kindBits)
		}
		return end
	}
	// The packet lands at the next input one pipeline after its head: an event of that
	// input's router, which may be another part's. Packets land at an input in the order
	// they left the upstream port, each at its own time.
	in2 := int(op.down)
	n.at(part, n.partOf(n.in[in2].router), head+n.cfg.Pipeline(), p, evReady|int64(in2)<<kindBits)
	return end
}

func (n *Network) deliver(node int, now netsim.Time) {
	a := &n.arrive[node]
	p := a.pop()
	part := n.nodePart(node)
	if a.n > 0 {
		n.at(part, part, a.front().tailAt, n, evDeliver|int64(node)<<kindBits)
	}
	p.state = stDelivered
	p.ArrivedAt = now
	n.stats[part].Delivered++
	if n.flight != nil {
		n.flight[part].out = append(n.flight[part].out, now)
	}
	n.stats[part].Flits += uint64(p.Flits)
	if n.tracer != nil {
		n.tracer.Delivered(now, p)
	}
	if ep := n.eps[node]; ep != nil {
		ep.Receive(now, p)
		return
	}
	_ = n.Consumed(now, node, p)
}
