package fabric

// One cycle of the booksim router: reading the channels, routing, the router's pipeline
// (IQRouter::_InternalStep) and writing the channels.

import "fmt"

// route is the routing function at router r for the head flit f arriving on local input
// port in: the output port and the range of VCs at it.
func (n *IQNet) route(r *iqRouter, in int, f *iqFlit) (out, lo, hi int) {
	lo, hi = 0, n.v-1
	switch t := n.topo.(type) {
	case *Torus:
		out = n.dimOrderTorus(t, int(r.id), in, f)
		if out != 0 && !n.cfg.NoDateline && n.v >= 2 {
			// routefunc.cpp dim_order_torus: the VCs split in two halves by partition,
			// except at the destination router.
			avail := (hi - lo + 1) / 2
			if f.flags&flitPh == 0 {
				hi -= avail
			} else {
				lo += avail
			}
		}
	case *FatTree:
		out = n.ncaFatTree(t, int(r.id), f)
	case *Crossbar:
		out = int(f.dst)
	}
	return out, lo, hi
}

// dimOrderTorus is routefunc.cpp's dor_next_torus (balance off) on lhsim's port numbering
// (0 the node, 1+2d the + link of dimension d, 2+2d the - link; a + link arrives on the next
// router's 2+2d). Dimensions in order; on turning into a dimension the direction is the
// shorter way round, a tie (exactly k/2) decided by a fair coin (RandomInt(1)); the
// partition is 1 when the route will cross the wrap link (the dateline between k-1 and 0)
// and holds for the whole dimension. At the destination: the node's port.
func (n *IQNet) dimOrderTorus(t *Torus, cur, in int, p *iqFlit) int {
	dims := len(t.k)
	rc, dc := t.coords[cur*dims:cur*dims+dims], t.coords[int(p.dst)*dims:int(p.dst)*dims+dims]
	for d, k := range t.k {
		c, dst := int(rc[d]), int(dc[d])
		if c == dst {
			continue
		}
		if in > 0 && (in-1)/2 == d && k > 2 {
			// Going on in the same dimension keeps the direction (in_port ^ 1).
			if in == 2+2*d {
				return 1 + 2*d
			}
			return 2 + 2*d
		}
		fwd := dst - c // (dst - c) mod k, without a division
		if fwd < 0 {
			fwd += k
		}
		dist2 := k - 2*fwd
		right := dist2 > 0 || dist2 == 0 && n.rng.IntN(2) == 1
		if right && c > dst || !right && dst > c {
			p.flags |= flitPh
		} else {
			p.flags &^= flitPh
		}
		if right || k == 2 {
			return 1 + 2*d
		}
		return 2 + 2*d
	}
	return 0
}

// ncaFatTree is routefunc.cpp's fattree_nca: down (by the destination's digit) once the
// destination is below this switch, otherwise up by a port drawn at random
// (gK + RandomInt(gK-1)). lhsim numbers levels from the leaves (level 0), BookSim2 from the
// top; the rule is the same.
func (n *IQNet) ncaFatTree(t *FatTree, r int, p *iqFlit) int {
	l, s := r/t.sw, r%t.sw
	dst := int(p.dst)
	if dst/t.pow[l+1] == s/t.pow[l] {
		return (dst / t.pow[l]) % t.k
	}
	return t.k + n.rng.IntN(t.k)
}

// evaluate runs one cycle of every active router after the terminals: ReadInputs happened when
// the wheel slot was read; here _InternalStep and WriteOutputs.
func (n *IQNet) evaluate() {
	act := n.active
	keep := n.spare[:0]
	const ahead = 4
	for i := range min(ahead, len(act)) {
		n.touch(&n.routers[act[i]])
	}
	for i, id := range act {
		if i+ahead < len(act) {
			n.touch(&n.routers[act[i+ahead]])
		}
		r := &n.routers[id]
		n.internalStep(r)
		n.writeOutputs(r)
		if r.active {
			keep = append(keep, id)
		}
	}
	// The routers still busy stay for the next cycle; reads add the ones woken then.
	n.spare, n.active = act[:0], keep
}

// touch reads a line of each of the objects internalStep reads first in router r, a few
// routers before it is evaluated: on a network larger than the caches each is a miss, and
// read early they overlap instead of waiting one after another. It changes nothing.
func (n *IQNet) touch(r *iqRouter) {
	x := r.routeQ.buf[r.routeQ.head].time ^ r.vcQ.buf[r.vcQ.head].time ^ r.swQ.buf[r.swQ.head].time
	x ^= int64(r.next[0].occ) ^ int64(r.vcs[0].n) ^ int64(r.creditOut[0])
	if r.xbarHead < len(r.xbar) {
		x ^= r.xbar[r.xbarHead].time
	}
	n.touched ^= x
}

// readInputs delivers this cycle's wheel slot: flits and credits to routers (their
// ReadInputs), ejected flits and injection credits to the terminals (returned).
func (n *IQNet) readInputs(eject func(node int, f *iqFlit), injCredit func(node, vc int)) {
	s := n.now & int64(len(n.wheel)-1)
	evs := n.wheel[s]
	n.events += int64(len(evs))
	for i := range evs {
		e := &evs[i]
		switch e.kind {
		case evFlitIn:
			r := &n.routers[e.r]
			n.inputQueuing(r, int(e.port), &e.f)
			n.wake(r)
		case evCreditOut:
			// _InternalStep's processing of the credits read (_proc_credits), done as
			// they are read: nothing reads the router's credit counts in between.
			r := &n.routers[e.r]
			r.next[int(e.port)*n.v+int(e.f.vc)].occ--
			n.wake(r)
		case evEject:
			eject(int(e.r), &e.f)
		case evInjCredit:
			injCredit(int(e.r), int(e.f.vc))
		}
	}
	n.wheel[s] = evs[:0]
}

// inputQueuing is _InternalStep's _InputQueuing for the flit f read on input in, done as
// it is read (in the order read, as _in_queue_flits is walked): nothing touches the router's
// buffers or queues between its ReadInputs and its _InternalStep.
func (n *IQNet) inputQueuing(r *iqRouter, in int, f *iqFlit) {
	key := in*n.v + int(f.vc)
	if !n.push(r, key, f) {
		panic(fmt.Sprintf("booksim router %d input %d VC %d: buffer overflow (credit accounting broken)", r.id, in, f.vc))
	}
	switch c := &r.vcs[key]; {
	case c.state == vcIdle:
		c.state = vcRouting
		r.routeQ.push(iqEntry{time: -1, res: -1, input: uint16(in), vc: int16(f.vc)})
	case c.state == vcActive && c.n == 1: // it is at the front
		r.swQ.push(iqEntry{time: -1, res: -1, input: uint16(in), vc: int16(f.vc)})
	}
}

// internalStep is IQRouter::_InternalStep with the options above, after its input queuing
// and credit processing (readInputs).
func (n *IQNet) internalStep(r *iqRouter) {
	v := n.v
	now := n.now

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
			// vc_alloc_delay is 1 (NewIQ): the entry completes this cycle, and
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
			// sw_alloc_delay is 1 (NewIQ): the entry completes this cycle, and
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
		out, lo, hi := n.route(r, int(e.input), n.front(r, key))
		c := &r.vcs[key]
		c.outPort, c.vcLo, c.vcHi = int32(out), int16(lo), int16(hi)
		c.state = vcAlloc
		r.vcQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
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
			r.swQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
		} else {
			r.vcQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
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
			r.swQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
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
		if f.head() {
			f.hops++
		}
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
			r.routeQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
		} else {
			r.swQ.push(iqEntry{time: -1, res: -1, input: e.input, vc: e.vc})
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
func (n *IQNet) writeOutputs(r *iqRouter) {
	for o := 0; r.outN > 0; o++ {
		if !r.outHas[o] {
			continue
		}
		r.outHas[o] = false
		r.outN--
		g := int(r.outBase) + o
		n.outFlits[g]++
		n.moved++
		n.send(&n.flitTo[g], &r.outFlit[o])
	}
	for _, in := range r.creditIns {
		vc := r.creditOut[in]
		r.creditOut[in] = -1
		n.sendCredit(&n.creditTo[int(r.inBase)+int(in)], int16(vc))
	}
	r.creditIns = r.creditIns[:0]
}
