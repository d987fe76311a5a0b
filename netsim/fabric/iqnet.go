package fabric

// The booksim router (Config.Router = BookSimIQ): BookSim2's input-queued router
// (src/routers/iq_router.cpp) flit by flit, cycle by cycle, as BookSim2 steps it
// (trafficmanager.cpp _Step, networks/network.cpp, channel.hpp): every cycle the terminals
// and routers read what their channels deliver, the terminals inject and eject, every router
// runs its pipeline (_InternalStep) and writes one flit per output and one credit per input
// onto its channels. Only what the booksim preset uses is here: wormhole flow control with
// private VC buffers (buffer_state.cpp's PrivateBufferPolicy), routing_delay >= 1 (no
// lookahead), no speculation, no switch hold, input and output speed-up 1, one traffic class.

import (
	"fmt"
	"math/rand/v2"
)

// iqPacket is a packet of the booksim model: what BookSim2 keeps in its head flit.
type iqPacket struct {
	src, dst int32
	flits    int32
	ctime    int64 // created (f->ctime): the latency starts here
	itime    int64 // head injected into the network (f->itime)
	hops     int32 // routers crossed (f->hops)
	ph       int8  // the torus partition (dateline class) of the current dimension (f->ph)
	record   bool  // created while measuring (f->record)
	arrived  int32 // flits ejected so far
}

// iqFlit is one flit (flit.hpp).
type iqFlit struct {
	p          *iqPacket
	vc         int16
	head, tail bool
}

// Input VC states (vc.hpp).
const (
	vcIdle = iota
	vcRouting
	vcAlloc
	vcActive
)

// Stall codes, as iq_router.cpp's STALL_* (all < -1).
const (
	stallBusy     = -2
	stallConflict = -3
	stallFull     = -4
	stallXbar     = -5
)

// iqEntry is an item of one of the router's pipeline queues (_route_vcs, _vc_alloc_vcs,
// _sw_alloc_vcs): the time its stage completes (-1: not yet evaluated), the input VC, and
// the stage's result.
type iqEntry struct {
	time      int64
	input, vc int32
	res       int32
}

type iqQueue struct {
	buf  []iqEntry
	head int
}

func (q *iqQueue) len() int { return len(q.buf) - q.head }
func (q *iqQueue) push(e iqEntry) {
	if q.head > 0 && q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	q.buf = append(q.buf, e)
}
func (q *iqQueue) front() *iqEntry { return &q.buf[q.head] }
func (q *iqQueue) pop() {
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head > 64 && q.head*2 > len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		q.buf, q.head = q.buf[:n], 0
	}
}
func (q *iqQueue) pending() []iqEntry { return q.buf[q.head:] }

// xbarEntry is a flit crossing the switch (_crossbar_flits).
type xbarEntry struct {
	time   int64
	f      *iqFlit
	output int32
}

// flitRing is one VC's input buffer (buffer.cpp's per-VC FIFO): size flits in a ring of a
// power of two slots.
type flitRing struct {
	buf  []*iqFlit
	head int32
	n    int32
	size int32
}

func newFlitRing(size int) flitRing {
	c := 1
	for c < size {
		c *= 2
	}
	return flitRing{buf: make([]*iqFlit, c), size: int32(size)}
}

func (r *flitRing) front() *iqFlit {
	if r.n == 0 {
		return nil
	}
	return r.buf[r.head]
}
func (r *flitRing) push(f *iqFlit) bool {
	if r.n == r.size {
		return false
	}
	r.buf[(r.head+r.n)&int32(len(r.buf)-1)] = f
	r.n++
	return true
}
func (r *flitRing) pop() *iqFlit {
	f := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) & int32(len(r.buf)-1)
	r.n--
	return f
}

// bufState is the sender's view of the VCs of one downstream buffer (buffer_state.cpp with
// the private buffer policy): who holds each VC and how many of its slots are taken.
type bufState struct {
	inUse []int32 // the input VC (input*V+vc) that holds it, -1 free (_in_use_by)
	occ   []int32 // flits sent and not yet credited (_vc_occupancy)
	size  int32   // vc_buf_size
}

func newBufState(v, size int) bufState {
	b := bufState{inUse: make([]int32, v), occ: make([]int32, v), size: int32(size)}
	for i := range b.inUse {
		b.inUse[i] = -1
	}
	return b
}
func (b *bufState) available(vc int) bool { return b.inUse[vc] < 0 }
func (b *bufState) full(vc int) bool      { return b.occ[vc] >= b.size }

// sending is BufferState::SendingFlit: one more slot taken; a tail frees the VC for the
// next packet (wait_for_tail_credit = 0).
func (b *bufState) sending(f *iqFlit) {
	b.occ[f.vc]++
	if f.tail {
		b.inUse[f.vc] = -1
	}
}

type iqRouter struct {
	id       int32
	inputs   int
	outputs  int
	active   bool
	inBase   int32      // first global input port
	outBase  int32      // first global output port
	buf      []flitRing // input*V+vc
	state    []uint8
	outPort  []int32 // route / assignment of each input VC: output port
	vcLo     []int16 // the route's VC range at that output
	vcHi     []int16
	outVC    []int16 // the output VC granted
	next     []bufState
	inQueue  []*iqFlit // input -> flit received this cycle (_in_queue_flits)
	inQueued []int32
	credits  []creditArr // received, to be processed (_proc_credits)

	routeQ, vcQ, swQ iqQueue
	xbar             []xbarEntry
	xbarHead         int
	outBuf           [][]*iqFlit // output -> flits to send (_output_buffer)
	creditOut        []int32     // input -> VC whose credit leaves this cycle, -1 none
	creditIns        []int32

	vcAlloc, swAlloc *sepInputFirst
	swRR             []int32 // _sw_rr_offset
}

type creditArr struct {
	output, vc int32
}

// iqEvent is something a channel delivers: a flit to a router input or a node, or a credit
// to a router output or a node's injection port.
type iqEvent struct {
	kind uint8
	port int32 // global input (flit), global output (credit), or node
	vc   int16
	f    *iqFlit
}

const (
	evFlitIn = iota
	evCreditOut
	evEject
	evInjCredit
)

// IQNet is the booksim model of a topology: routers, channels and the terminals' injection
// and ejection ports. NewIQ builds it; Synthetic traffic runs on it with RunIQ.
type IQNet struct {
	topo Topology
	cfg  Config
	v    int
	// BookSim2's delays in cycles (booksim_config.cpp: routing_delay, vc_alloc_delay,
	// sw_alloc_delay, st_final_delay).
	routingDelay, vcAllocDelay, swAllocDelay, xbarDelay int64

	routers []*iqRouter
	inR     []int32 // global input -> router
	outR    []int32 // global output -> router
	down    []int32 // global output -> global input it feeds, or -1-node (ejection)
	downLat []int32 // its channel latency, cycles
	up      []int32 // global input -> global output feeding it, or -1-node (injection)
	upLat   []int32 // the latency of the channel back (credits)

	nodeIn     []int32 // node -> global input of its injection channel
	nodeInLat  []int32
	nodeOut    []int32 // node -> global output of its ejection channel
	nodeOutLat []int32

	wheel  [][]iqEvent
	now    int64
	rng    *rand.Rand
	active []int32 // routers to evaluate this cycle
	spare  []int32

	// flits sent per global output and per injection channel, for the busiest links.
	outFlits []int64
	injFlits []int64
	moved    int64 // flits moved across a switch or channel, all time
	events   int64 // flits and credits the channels delivered, all time
	lone     *iqSim
}

// RouterModel is which router a Config describes.
type RouterModel uint8

const (
	// NSIMRouter is the event-driven virtual cut-through router of NSIM-ACE (Susukita et al.'s NSIM-ACE paper).
	NSIMRouter RouterModel = iota
	// BookSimIQ is BookSim2's input-queued wormhole router, cycle by cycle (NewIQ).
	BookSimIQ
)

func (m RouterModel) String() string {
	if m == BookSimIQ {
		return "booksim-iq"
	}
	return "nsim"
}

// cyclesOf is d in whole cycles of the clock, or an error naming the field.
func (c *Config) cyclesOf(name string, d int64, least int64) (int64, error) {
	if d%int64(c.ClockPeriod) != 0 {
		return 0, fmt.Errorf("%s %v is not a whole number of %v cycles (the booksim router counts cycles)", name, d, c.ClockPeriod)
	}
	n := d / int64(c.ClockPeriod)
	if n < least {
		return 0, fmt.Errorf("%s is %d cycles: the booksim router needs at least %d (BookSim2's iq_router.cpp)", name, n, least)
	}
	return n, nil
}

// NewIQ builds the booksim model of topo. cfg.VCs, BufferFlits (vc_buf_size), the four
// delays in cycles, and the channels: a channel's BookSim2 latency is one cycle plus its
// flight time in cycles (CableLatency, TorusLinkLatency).
func NewIQ(topo Topology, cfg Config, seed uint64) (*IQNet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	n := &IQNet{topo: topo, cfg: cfg, v: cfg.VCs, rng: rand.New(rand.NewPCG(seed, 0x626f6f6b73696d))}
	var err error
	for _, d := range []struct {
		name  string
		v     int64
		least int64
		to    *int64
	}{{"RoutingDelay", int64(cfg.RoutingDelay), 1, &n.routingDelay}, {"VCAllocDelay", int64(cfg.VCAllocDelay), 1, &n.vcAllocDelay},
		{"SwitchAllocDelay", int64(cfg.SwitchAllocDelay), 1, &n.swAllocDelay}, {"SwitchLatency", int64(cfg.SwitchLatency), 1, &n.xbarDelay}} {
		if *d.to, err = cfg.cyclesOf(d.name, d.v, d.least); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
	}
	if n.vcAllocDelay != 1 || n.swAllocDelay != 1 {
		return nil, fmt.Errorf("%w: the booksim router models one-cycle VC and switch allocation (BookSim2's default), not %d and %d",
			ErrBadConfig, n.vcAllocDelay, n.swAllocDelay)
	}
	if cfg.FlitTime(cfg.LinkBandwidth) != cfg.ClockPeriod || cfg.FlitTime(cfg.SwitchBandwidth) != cfg.ClockPeriod || cfg.FlitTime(cfg.torusBandwidth()) != cfg.ClockPeriod {
		return nil, fmt.Errorf("%w: the booksim router moves one flit per cycle on every link and switch port; the rates give %v, %v, %v per flit against a %v cycle",
			ErrBadConfig, cfg.FlitTime(cfg.LinkBandwidth), cfg.FlitTime(cfg.SwitchBandwidth), cfg.FlitTime(cfg.torusBandwidth()), cfg.ClockPeriod)
	}
	var g graph
	if err := topo.build(&cfg, &g); err != nil {
		return nil, err
	}
	lat := func(name string, t int64) (int32, error) {
		c, err := cfg.cyclesOf(name, t, 0)
		return int32(c + 1), err
	}
	total := 0
	v := n.v
	maxLat := int32(1)
	for r, p := range g.ports {
		rt := &iqRouter{id: int32(r), inputs: p, outputs: p, inBase: int32(total), outBase: int32(total),
			buf: make([]flitRing, p*v), state: make([]uint8, p*v), outPort: make([]int32, p*v),
			vcLo: make([]int16, p*v), vcHi: make([]int16, p*v), outVC: make([]int16, p*v),
			inQueue: make([]*iqFlit, p), outBuf: make([][]*iqFlit, p), creditOut: make([]int32, p),
			vcAlloc: newSepInputFirst(p*v, p*v), swAlloc: newSepInputFirst(p, p), swRR: make([]int32, p)}
		for i := range rt.buf {
			rt.buf[i] = newFlitRing(cfg.BufferFlits)
		}
		for o := range p {
			rt.next = append(rt.next, newBufState(v, cfg.BufferFlits))
			rt.creditOut[o] = -1
		}
		n.routers = append(n.routers, rt)
		for range p {
			n.inR = append(n.inR, int32(r))
			n.outR = append(n.outR, int32(r))
		}
		total += p
	}
	n.down, n.downLat = make([]int32, total), make([]int32, total)
	n.up, n.upLat = make([]int32, total), make([]int32, total)
	for i := range total {
		n.down[i], n.up[i] = noPort, noPort
	}
	for _, l := range g.links {
		o, i := int(n.routers[l.fromRouter].outBase)+l.fromPort, int(n.routers[l.toRouter].inBase)+l.toPort
		d, err := lat("a link's latency", int64(l.latency))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
		n.down[o], n.downLat[o], n.up[i], n.upLat[i] = int32(i), d, int32(o), d
		maxLat = max(maxLat, d)
	}
	nodes := len(g.nodes)
	n.nodeIn, n.nodeOut = make([]int32, nodes), make([]int32, nodes)
	n.nodeInLat, n.nodeOutLat = make([]int32, nodes), make([]int32, nodes)
	for node, a := range g.nodes {
		p := int(n.routers[a.router].inBase) + a.port
		d, err := lat("CableLatency", int64(a.latency))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
		n.nodeIn[node], n.nodeInLat[node] = int32(p), d
		n.nodeOut[node], n.nodeOutLat[node] = int32(p), d
		n.up[p], n.upLat[p] = int32(-1-node), d
		n.down[p], n.downLat[p] = int32(-1-node), d
		maxLat = max(maxLat, d)
	}
	for i := range total {
		if n.down[i] == noPort || n.up[i] == noPort {
			// A port wired to nothing (the fat tree's top up ports): no route uses it.
			n.down[i], n.up[i] = noPort, noPort
		}
	}
	w := 2
	for w < int(maxLat)+2 {
		w *= 2
	}
	n.wheel = make([][]iqEvent, w) // a power of two: the slot is a mask away
	n.outFlits = make([]int64, total)
	n.injFlits = make([]int64, nodes)
	return n, nil
}

// send puts an event on a channel of latency d: BookSim2's channel takes what was sent in
// a cycle at its next ReadInputs and delivers it d cycles later, so the receiver reads it
// d+1 cycles after the send.
func (n *IQNet) send(d int32, e iqEvent) {
	s := (n.now + int64(d) + 1) & int64(len(n.wheel)-1)
	n.wheel[s] = append(n.wheel[s], e)
}

func (n *IQNet) wake(r *iqRouter) {
	if !r.active {
		r.active = true
		n.active = append(n.active, r.id)
	}
}

// route is the routing function at router r for the head flit f arriving on local input
// port in: the output port and the range of VCs at it.
func (n *IQNet) route(r *iqRouter, in int, f *iqFlit) (out, lo, hi int) {
	p := f.p
	lo, hi = 0, n.v-1
	switch t := n.topo.(type) {
	case *Torus:
		out = n.dimOrderTorus(t, int(r.id), in, p)
		if out != 0 && !n.cfg.NoDateline && n.v >= 2 {
			// routefunc.cpp dim_order_torus: the VCs split in two halves by partition,
			// except at the destination router.
			avail := (hi - lo + 1) / 2
			if p.ph == 0 {
				hi -= avail
			} else {
				lo += avail
			}
		}
	case *FatTree:
		out = n.ncaFatTree(t, int(r.id), p)
	case *Crossbar:
		out = int(p.dst)
	}
	return out, lo, hi
}

// dimOrderTorus is routefunc.cpp's dor_next_torus (balance off) on lhsim's port numbering
// (0 the node, 1+2d the + link of dimension d, 2+2d the - link; a + link arrives on the next
// router's 2+2d). Dimensions in order; on turning into a dimension the direction is the
// shorter way round, a tie (exactly k/2) decided by a fair coin (RandomInt(1)); the
// partition is 1 when the route will cross the wrap link (the dateline between k-1 and 0)
// and holds for the whole dimension. At the destination: the node's port.
func (n *IQNet) dimOrderTorus(t *Torus, cur, in int, p *iqPacket) int {
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
		dist2 := k - 2*((dst-c+k)%k)
		right := dist2 > 0 || dist2 == 0 && n.rng.IntN(2) == 1
		if right && c > dst || !right && dst > c {
			p.ph = 1
		} else {
			p.ph = 0
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
func (n *IQNet) ncaFatTree(t *FatTree, r int, p *iqPacket) int {
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
	for _, id := range act {
		r := n.routers[id]
		n.internalStep(r)
		n.writeOutputs(r)
		if r.active {
			keep = append(keep, id)
		}
	}
	// The routers still busy stay for the next cycle; reads add the ones woken then.
	n.spare, n.active = act[:0], keep
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
			r := n.routers[n.inR[e.port]]
			in := int(e.port - r.inBase)
			r.inQueue[in] = e.f
			r.inQueued = append(r.inQueued, int32(in))
			n.wake(r)
		case evCreditOut:
			r := n.routers[n.outR[e.port]]
			r.credits = append(r.credits, creditArr{e.port - r.outBase, int32(e.vc)})
			n.wake(r)
		case evEject:
			eject(int(e.port), e.f)
		case evInjCredit:
			injCredit(int(e.port), int(e.vc))
		}
		e.f = nil
	}
	n.wheel[s] = evs[:0]
}

// internalStep is IQRouter::_InternalStep with the options above.
func (n *IQNet) internalStep(r *iqRouter) {
	v := n.v
	now := n.now
	// _InputQueuing: the flits read this cycle join their VC buffers.
	for _, in32 := range r.inQueued {
		in := int(in32)
		f := r.inQueue[in]
		r.inQueue[in] = nil
		key := in*v + int(f.vc)
		b := &r.buf[key]
		if !b.push(f) {
			panic(fmt.Sprintf("booksim router %d input %d VC %d: buffer overflow (credit accounting broken)", r.id, in, f.vc))
		}
		switch {
		case r.state[key] == vcIdle:
			r.state[key] = vcRouting
			r.routeQ.push(iqEntry{-1, int32(in), int32(f.vc), -1})
		case r.state[key] == vcActive && b.front() == f:
			r.swQ.push(iqEntry{-1, int32(in), int32(f.vc), -1})
		}
	}
	r.inQueued = r.inQueued[:0]
	for _, c := range r.credits {
		r.next[c.output].occ[c.vc]--
	}
	r.credits = r.credits[:0]

	// _RouteEvaluate
	for i := range r.routeQ.pending() {
		e := &r.routeQ.pending()[i]
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
		pend := r.vcQ.pending()
		for i := range pend {
			e := &pend[i]
			if e.time >= 0 {
				break
			}
			key := int(e.input)*v + int(e.vc)
			out := int(r.outPort[key])
			nb := &r.next[out]
			elig := false
			for ovc := int(r.vcLo[key]); ovc <= int(r.vcHi[key]); ovc++ {
				if nb.available(ovc) {
					elig = true
					r.vcAlloc.addNew(key, out*v+ovc, 0, 0, 0)
				}
			}
			if !elig {
				e.res = stallBusy
			}
		}
		r.vcAlloc.allocate()
		for i := range pend {
			e := &pend[i]
			if e.time >= 0 {
				break
			}
			e.time = now + n.vcAllocDelay - 1
			if e.res < -1 {
				continue
			}
			if ov := r.vcAlloc.outputAssigned(int(e.input)*v + int(e.vc)); ov >= 0 {
				e.res = int32(ov)
			} else {
				e.res = stallConflict
			}
		}
	}
	// _SWAllocEvaluate
	if len(r.swAlloc.inOcc) > 0 {
		r.swAlloc.clear()
	}
	if r.swQ.len() > 0 {
		pend := r.swQ.pending()
		for i := range pend {
			e := &pend[i]
			if e.time >= 0 {
				break
			}
			key := int(e.input)*v + int(e.vc)
			out := int(r.outPort[key])
			if r.next[out].full(int(r.outVC[key])) {
				e.res = stallFull
				continue
			}
			// _SWAllocAddReq: one request per (input, output); a VC of the same input
			// replaces another's request when it comes first round-robin from the input's
			// offset.
			in := int(e.input)
			if lab := r.swAlloc.label(in, out); lab >= 0 {
				if rrSupersedes(int(e.vc), 0, lab, 0, int(r.swRR[in]), v) {
					r.swAlloc.add(in, out, int(e.vc), 0, 0)
				}
				continue
			}
			r.swAlloc.add(in, out, int(e.vc), 0, 0)
		}
		r.swAlloc.allocate()
		for i := range pend {
			e := &pend[i]
			if e.time >= 0 {
				break
			}
			e.time = now + n.swAllocDelay - 1
			if e.res < -1 {
				continue
			}
			in := int(e.input)
			if out := r.swAlloc.outputAssigned(in); out >= 0 && r.swAlloc.label(in, out) == int(e.vc) {
				r.swRR[in] = (e.vc + 1) % int32(v)
				e.res = int32(out)
			} else {
				e.res = stallXbar
			}
		}
	}
	// _SwitchEvaluate
	for i := r.xbarHead; i < len(r.xbar); i++ {
		if r.xbar[i].time >= 0 {
			break
		}
		r.xbar[i].time = now + n.xbarDelay - 1
	}

	// _RouteUpdate
	for r.routeQ.len() > 0 {
		e := *r.routeQ.front()
		if e.time < 0 || now < e.time {
			break
		}
		key := int(e.input)*v + int(e.vc)
		out, lo, hi := n.route(r, int(e.input), r.buf[key].front())
		r.outPort[key], r.vcLo[key], r.vcHi[key] = int32(out), int16(lo), int16(hi)
		r.state[key] = vcAlloc
		r.vcQ.push(iqEntry{-1, e.input, e.vc, -1})
		r.routeQ.pop()
	}
	// _VCAllocUpdate
	for r.vcQ.len() > 0 {
		e := *r.vcQ.front()
		if e.time < 0 || now < e.time {
			break
		}
		key := int(e.input)*v + int(e.vc)
		if e.res >= 0 {
			out, ovc := int(e.res)/v, int(e.res)%v
			r.next[out].inUse[ovc] = int32(key) // TakeBuffer
			r.outPort[key], r.outVC[key] = int32(out), int16(ovc)
			r.state[key] = vcActive
			r.swQ.push(iqEntry{-1, e.input, e.vc, -1})
		} else {
			r.vcQ.push(iqEntry{-1, e.input, e.vc, -1})
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
		if e.res < 0 {
			r.swQ.push(iqEntry{-1, e.input, e.vc, -1})
			continue
		}
		out := int(e.res)
		b := &r.buf[key]
		f := b.pop()
		if f.head {
			f.p.hops++
		}
		f.vc = r.outVC[key]
		r.next[out].sending(f)
		r.xbar = append(r.xbar, xbarEntry{-1, f, int32(out)})
		if r.creditOut[in] < 0 {
			r.creditIns = append(r.creditIns, int32(in))
		}
		r.creditOut[in] = e.vc
		if b.n == 0 {
			if f.tail {
				r.state[key] = vcIdle
			}
		} else if f.tail {
			r.state[key] = vcRouting
			r.routeQ.push(iqEntry{-1, e.input, e.vc, -1})
		} else {
			r.swQ.push(iqEntry{-1, e.input, e.vc, -1})
		}
	}
	// _SwitchUpdate
	for r.xbarHead < len(r.xbar) {
		x := r.xbar[r.xbarHead]
		if x.time < 0 || now < x.time {
			break
		}
		r.outBuf[x.output] = append(r.outBuf[x.output], x.f)
		r.xbar[r.xbarHead].f = nil
		r.xbarHead++
	}
	if r.xbarHead == len(r.xbar) {
		r.xbar, r.xbarHead = r.xbar[:0], 0
	} else if r.xbarHead > 16 && 2*r.xbarHead > len(r.xbar) {
		k := copy(r.xbar, r.xbar[r.xbarHead:])
		clear(r.xbar[k:])
		r.xbar, r.xbarHead = r.xbar[:k], 0
	}
	r.active = r.routeQ.len() > 0 || r.vcQ.len() > 0 || r.swQ.len() > 0 || r.xbarHead < len(r.xbar)
}

// writeOutputs is _SendFlits and _SendCredits: one flit per output, one credit per input.
func (n *IQNet) writeOutputs(r *iqRouter) {
	for o := range r.outBuf {
		q := r.outBuf[o]
		if len(q) == 0 {
			continue
		}
		f := q[0]
		copy(q, q[1:])
		q[len(q)-1] = nil
		r.outBuf[o] = q[:len(q)-1]
		if len(r.outBuf[o]) > 0 {
			r.active = true
		}
		g := int(r.outBase) + o
		n.outFlits[g]++
		n.moved++
		d := n.down[g]
		if d < 0 {
			n.send(n.downLat[g], iqEvent{kind: evEject, port: -1 - d, f: f})
		} else {
			n.send(n.downLat[g], iqEvent{kind: evFlitIn, port: d, f: f})
		}
	}
	for _, in := range r.creditIns {
		vc := r.creditOut[in]
		r.creditOut[in] = -1
		g := int(r.inBase) + int(in)
		u := n.up[g]
		if u < 0 {
			n.send(n.upLat[g], iqEvent{kind: evInjCredit, port: -1 - u, vc: int16(vc)})
		} else {
			n.send(n.upLat[g], iqEvent{kind: evCreditOut, port: u, vc: int16(vc)})
		}
	}
	r.creditIns = r.creditIns[:0]
}
