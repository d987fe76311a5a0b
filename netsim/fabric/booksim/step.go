package booksim

// One cycle of the booksim router: reading the channels, routing, the router's pipeline
// (IQRouter::_InternalStep) and writing the channels.

import "fmt"

// route is the routing function at router r for the head flit f: the topology's own
// (fabric.Topology.Route) under BookSim2's rule, drawing from r's stream, and the range of
// VCs at its output port: routefunc.cpp's dim_order_torus splits them in two halves by the
// dateline partition, except at the destination router (class -1: any).
func (n *Network) route(r *router, f *flit) (out, lo, hi int) {
	r.hop = f.hop() // (in the router: a local passed to an interface's method would escape)
	out, class := n.topo.Route(int(r.id), int(f.dst), &r.hop, &r.rule)
	f.setHop(r.hop)
	lo, hi = 0, n.v-1
	if class >= 0 && !n.cfg.NoDateline && n.v >= 2 {
		avail := (hi - lo + 1) / 2
		if class == 0 {
			hi -= avail
		} else {
			lo += avail
		}
	}
	return out, lo, hi
}

// evaluate runs one cycle of every active router of part p after the terminals: the
// flits its inputs read, in input order (ReadInputs), then _InternalStep and WriteOutputs.
func (n *Network) evaluate(p *part) {
	act := p.active
	keep := p.spare[:0]
	const ahead = 4
	for i := range min(ahead, len(act)) {
		p.touch(&n.routers[act[i]])
	}
	for i, id := range act {
		if i+ahead < len(act) {
			p.touch(&n.routers[act[i+ahead]])
		}
		r := &n.routers[id]
		if len(r.arrived) > 0 {
			n.readFlits(r)
		}
		n.internalStep(r, p.now)
		n.writeOutputs(p, r)
		if r.active {
			keep = append(keep, id)
		}
	}
	// The routers still busy stay for the next cycle; reads add the ones woken then.
	p.spare, p.active = act[:0], keep
}

// readFlits queues the flits r's inputs read this cycle, in the order of the inputs, as
// BookSim2's ReadInputs walks them: not in the order the channels delivered them, which
// depends on the order the routers upstream ran in, and so on the parts.
func (n *Network) readFlits(r *router) {
	a := r.arrived
	for i := 1; i < len(a); i++ { // a few inputs at most: insertion sort
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	for _, in := range a {
		n.inputQueuing(r, int(in), &r.inFlit[in])
	}
	r.arrived = a[:0]
}

// touch reads a line of each of the objects internalStep reads first in router r, a few
// routers before it is evaluated: on a network larger than the caches each is a miss, and
// read early they overlap instead of waiting one after another. It changes nothing.
func (p *part) touch(r *router) {
	x := r.routeQ.buf[r.routeQ.head].time ^ r.vcQ.buf[r.vcQ.head].time ^ r.swQ.buf[r.swQ.head].time
	x ^= int64(r.next[0].occ) ^ int64(r.vcs[0].n) ^ int64(r.creditOut[0])
	if r.xbarHead < len(r.xbar) {
		x ^= r.xbar[r.xbarHead].time
	}
	p.touched ^= x
}

// readInputs delivers this cycle's wheel slot of part p: flits and credits to routers
// (their ReadInputs: a flit waits in its input until the router runs), ejected flits and
// injection credits to the terminals (returned).
func (n *Network) readInputs(p *part, eject func(node int, f *flit), injCredit func(node, vc int)) {
	s := p.now & p.mask
	evs := p.wheel[s]
	p.events += int64(len(evs))
	for i := range evs {
		e := &evs[i]
		switch e.kind {
		case evFlitIn:
			r := &n.routers[e.r]
			r.inFlit[e.port] = e.f
			r.arrived = append(r.arrived, int32(e.port))
			p.wake(r)
		case evCreditOut:
			// _InternalStep's processing of the credits read (_proc_credits), done as
			// they are read: nothing reads the router's credit counts in between.
			r := &n.routers[e.r]
			r.next[int(e.port)*n.v+int(e.f.vc)].occ--
			p.wake(r)
		case evEject:
			eject(int(e.r), &e.f)
		case evInjCredit:
			injCredit(int(e.r), int(e.f.vc))
		}
	}
	p.wheel[s] = evs[:0]
}

// inputQueuing is _InternalStep's _InputQueuing for the flit f read on input in (in input
// order, as _in_queue_flits is walked).
func (n *Network) inputQueuing(r *router, in int, f *flit) {
	key := in*n.v + int(f.vc)
	if !n.push(r, key, f) {
		panic(fmt.Sprintf("booksim router %d input %d VC %d: buffer overflow (credit accounting broken)", r.id, in, f.vc))
	}
	switch c := &r.vcs[key]; {
	case c.state == vcIdle:
		c.state = vcRouting
		r.routeQ.push(entry{time: -1, res: -1, input: uint16(in), vc: int16(f.vc)})
	case c.state == vcActive && c.n == 1: // it is at the front
		r.swQ.push(entry{time: -1, res: -1, input: uint16(in), vc: int16(f.vc)})
	}
}

// internalStep is IQRouter::_InternalStep with the options above, after its input queuing
// and credit processing (readInputs).
func (n *Network) internalStep(r *router, now int64) {
	v := n.v

	// _RouteEvaluate
	for i := range r.routeQ.len() {
		e := r.routeQ.at(i)
		if e.time >= 0 {
			break
		}
		e.time = now + n.routingDelay - 1
	}
	// _VCAllocEvaluate
	if len(r.vcAlloc.inOcc) > 0 {
		r.vcAlloc.clear()
	}
	if r.vcQ.len() > 0 {
		for i := range r.vcQ.len() {
			e := r.vcQ.at(i)
			if e.time >= 0 {
				break
			}
			key := int(e.input)*v + int(e.vc)
			c := &r.vcs[key]
			out := int(c.outPort)
			nb := r.next[out*v : out*v+v]
			elig := false
			for ovc := int(c.vcLo); ovc <= int(c.vcHi); ovc++ {
				if nb[ovc].inUse < 0 {
					elig = true
					r.vcAlloc.ask(key, out*v+ovc)
				}
			}
			if !elig {
				e.res = stallBusy
			}
			// vc_alloc_delay is 1 (New): the entry completes this cycle, and
			// _VCAllocUpdate reads its grant from the allocator (nothing in between
			// touches it).
			e.time = now + n.vcAllocDelay - 1
		}
		r.vcAlloc.allocate()
	}
	// _SWAllocEvaluate
	if len(r.swAlloc.inOcc) > 0 {
		r.swAlloc.clear()
	}
	sw := &r.swAlloc
	if r.swQ.len() > 0 {
		for i := range r.swQ.len() {
			e := r.swQ.at(i)
			if e.time >= 0 {
				break
			}
			c := &r.vcs[int(e.input)*v+int(e.vc)]
			// sw_alloc_delay is 1 (New): the entry completes this cycle, and
			// _SWAllocUpdate reads its grant from the allocator (nothing in between
			// touches it).
			e.time = now + n.swAllocDelay - 1
			out := int(c.outPort)
			if r.next[out*v+int(c.outVC)].occ >= n.bufFlits {
				e.res = stallFull
				continue
			}
			// _SWAllocAddReq: one request per (input, output); a VC of the same input
			// replaces another's request when it comes first round-robin from the input's
			// offset.
			in := int(e.input)
			if sw.has(in, out) {
				if lab := &sw.label[in*sw.outputs+out]; rrSupersedes(int(e.vc), 0, int(*lab), 0, int(r.swRR[in]), v) {
					*lab = int32(e.vc)
				}
				continue
			}
			sw.add(in, out, int(e.vc))
		}
		r.swAlloc.allocate()
	}
	// _SwitchEvaluate: the flits granted last cycle are at the tail, behind those still
	// crossing a switch of more than one cycle (st_final_delay > 1), so it times the tail.
	for i := len(r.xbar) - 1; i >= r.xbarHead && r.xbar[i].time < 0; i-- {
		r.xbar[i].time = now + n.xbarDelay - 1
	}

	// _RouteUpdate
	for r.routeQ.len() > 0 {
		e := *r.routeQ.front()
		if e.time < 0 || now < e.time {
			break
		}
		key := int(e.input)*v + int(e.vc)
		out, lo, hi := n.route(r, n.front(r, key))
		c := &r.vcs[key]
		c.outPort, c.vcLo, c.vcHi = int32(out), int16(lo), int16(hi)
		c.state = vcAlloc
		r.vcQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
		r.routeQ.pop()
	}
	// _VCAllocUpdate
	for r.vcQ.len() > 0 {
		e := *r.vcQ.front()
		if e.time < 0 || now < e.time {
			break
		}
		key := int(e.input)*v + int(e.vc)
		if e.res >= -1 { // not stalled before asking: the grant, if any
			if ov := r.vcAlloc.inmatch[key]; ov >= 0 {
				e.res = int32(ov)
			} else {
				e.res = stallConflict
			}
		}
		if e.res >= 0 {
			c := &r.vcs[key]
			out := int(c.outPort) // the only output it asked for
			ovc := int(e.res) - out*v
			r.next[int(e.res)].inUse = int32(key) // TakeBuffer
			c.outPort, c.outVC = int32(out), int16(ovc)
			c.state = vcActive
			r.swQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
		} else {
			r.vcQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
		}
		r.vcQ.pop()
	}
	// _SWAllocUpdate
	for r.swQ.len() > 0 {
		e := *r.swQ.front()
		if e.time < 0 || now < e.time {
			break
		}
		r.swQ.pop()
		in := int(e.input)
		key := in*v + int(e.vc)
		if e.res >= -1 { // not stalled before asking: the grant, if this VC's request won
			if out := sw.inmatch[in]; out >= 0 && sw.label[in*sw.outputs+int(out)] == int32(e.vc) {
				r.swRR[in] = rrNext(int32(e.vc), v)
				e.res = out
			} else {
				e.res = stallXbar
			}
		}
		if e.res < 0 {
			r.swQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
			continue
		}
		out := int(e.res)
		c := &r.vcs[key]
		// Into the crossbar, then changed there: a flit copied whole right after a field
		// of it was written would wait for the store to drain.
		r.xbar = append(r.xbar, xbarEntry{})
		x := &r.xbar[len(r.xbar)-1]
		x.time, x.f, x.output = -1, n.pop(r, key), int32(out)
		f := &x.f
		f.hops++ // every flit counts them (the tail's count is read when it is out)
		f.vc = int8(c.outVC)
		// BufferState::SendingFlit: one more slot taken; a tail frees the VC for the next
		// packet (wait_for_tail_credit = 0).
		nx := &r.next[out*v+int(f.vc)]
		nx.occ++
		if f.tail() {
			nx.inUse = -1
		}
		if r.creditOut[in] < 0 {
			r.creditIns = append(r.creditIns, int32(in))
		}
		r.creditOut[in] = int32(e.vc)
		if c.n == 0 {
			if f.tail() {
				c.state = vcIdle
			}
		} else if f.tail() {
			c.state = vcRouting
			r.routeQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
		} else {
			r.swQ.push(entry{time: -1, res: -1, input: e.input, vc: e.vc})
		}
	}
	// _SwitchUpdate
	for r.xbarHead < len(r.xbar) {
		x := &r.xbar[r.xbarHead]
		if x.time < 0 || now < x.time {
			break
		}
		if r.outHas[x.output] {
			panic(fmt.Sprintf("booksim router %d output %d: two flits to send in one cycle (switch allocation broken)", r.id, x.output))
		}
		r.outFlit[x.output], r.outHas[x.output] = x.f, true
		r.outN++
		r.xbarHead++
	}
	if r.xbarHead == len(r.xbar) {
		r.xbar, r.xbarHead = r.xbar[:0], 0
	} else if r.xbarHead > 16 && 2*r.xbarHead > len(r.xbar) {
		k := copy(r.xbar, r.xbar[r.xbarHead:])
		r.xbar, r.xbarHead = r.xbar[:k], 0
	}
	r.active = r.routeQ.len() > 0 || r.vcQ.len() > 0 || r.swQ.len() > 0 || r.xbarHead < len(r.xbar)
}

// writeOutputs is _SendFlits and _SendCredits: one flit per output, one credit per input.
func (n *Network) writeOutputs(p *part, r *router) {
	for o := 0; r.outN > 0; o++ {
		if !r.outHas[o] {
			continue
		}
		r.outHas[o] = false
		r.outN--
		g := int(r.outBase) + o
		n.outFlits[g]++
		p.moved++
		p.send(&n.flitTo[g], &r.outFlit[o])
	}
	for _, in := range r.creditIns {
		vc := r.creditOut[in]
		r.creditOut[in] = -1
		p.sendCredit(&n.creditTo[int(r.inBase)+int(in)], int16(vc))
	}
	r.creditIns = r.creditIns[:0]
}

// send puts an event on a channel of latency d: BookSim2's channel takes what was sent in
// a cycle at its next ReadInputs and delivers it d cycles later, so the receiver reads it
// d+1 cycles after the send.
//
// It and the functions below take and write flits through pointers, memory to memory: a
// flit passed by value travels field by field in registers, and copying it whole right after
// its fields were stored one by one waits for those stores to drain.
func (p *part) send(to *dest, f *flit) {
	e := p.slot(to)
	e.dest, e.f = *to, *f
}

// sendCredit sends a credit for VC vc.
func (p *part) sendCredit(to *dest, vc int16) {
	e := p.slot(to)
	e.dest, e.f = *to, flit{}
	e.f.vc = int8(vc)
}

// push puts f at the back of input VC key's buffer; false if the buffer is full.
func (n *Network) push(r *router, key int, f *flit) bool {
	c := &r.vcs[key]
	if c.n == n.bufFlits {
		return false
	}
	mask := int32(1)<<n.ringShift - 1
	r.flits[key<<n.ringShift+int((c.head+c.n)&mask)] = *f
	c.n++
	return true
}

// front is the flit at the front of input VC key's buffer, which is not empty.
func (n *Network) front(r *router, key int) *flit {
	return &r.flits[key<<n.ringShift+int(r.vcs[key].head)]
}

// pop takes the flit at the front of input VC key's buffer, which is not empty.
func (n *Network) pop(r *router, key int) flit {
	c := &r.vcs[key]
	f := r.flits[key<<n.ringShift+int(c.head)]
	c.n--
	if c.n == 0 {
		// An empty ring starts again at its first slot: at light load a VC's flits stay in
		// one cache line instead of walking round all of its ring.
		c.head = 0
	} else {
		c.head = (c.head + 1) & (int32(1)<<n.ringShift - 1)
	}
	return f
}

func (p *part) wake(r *router) {
	if !r.active {
		r.active = true
		p.active = append(p.active, r.id)
	}
}
