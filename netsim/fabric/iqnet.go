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

// iqPacket is a packet of the booksim model: what BookSim2 keeps in its head flit and the
// routers do not read. The terminals keep them in a slab (iqSim.pkts); flits name theirs by
// index.
type iqPacket struct {
	src, dst int32
	flits    int32
	hops     int32 // routers crossed (f->hops), copied from the head when it is ejected
	ctime    int64 // created (f->ctime): the latency starts here
	itime    int64 // head injected into the network (f->itime)
	record   bool  // created while measuring (f->record)
}

// iqFlit is one flit (flit.hpp), carried by value: what the routers read of its packet
// (the destination, the partition, the hop count) travels in it, so that a router never
// touches the packet.
//
// 12 bytes: the VC buffers' rings and the channels' events take three quarters of the
// memory 16 would, which counts once the network outgrows the caches.
type iqFlit struct {
	pkt   int32 // the packet, an index into iqSim.pkts
	dst   int32 // its destination node
	hops  int16 // head: routers crossed so far (f->hops)
	vc    int8  // at most maxVCs (64)
	flags uint8 // flitHead, flitTail, flitPh
}

const (
	flitHead = 1 << iota
	flitTail
	flitPh // head: the torus partition (dateline class) of the current dimension (f->ph)
)

func (f *iqFlit) head() bool { return f.flags&flitHead != 0 }
func (f *iqFlit) tail() bool { return f.flags&flitTail != 0 }

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

type iqRouter struct {
	id      int32
	active  bool
	inBase  int32    // first global input port
	outBase int32    // first global output port
	vcs     []iqVC   // input*V+vc
	flits   []iqFlit // the input VCs' buffers: VC key's ring is flits[key<<ringShift:]
	next    []iqNext // output*V+vc: the VC of the buffer downstream, as this router sees it

	routeQ, vcQ, swQ iqQueue
	xbar             []xbarEntry
	xbarHead         int
	// _output_buffer: output -> the flit to send. With output speed-up 1 it holds at most
	// one: the switch grants an output to one input a cycle, those granted in one cycle
	// leave the crossbar together, and WriteOutputs sends one per output every cycle.
	outFlit   []iqFlit
	outHas    []bool
	outN      int
	creditOut []int32 // input -> VC whose credit leaves this cycle, -1 none
	creditIns []int32

	vcAlloc, swAlloc rrAlloc
	swRR             []int32 // _sw_rr_offset
}

// iqVC is an input VC (vc.hpp) and the ring of its buffer (buffer.cpp's per-VC FIFO) in
// iqRouter.flits.
type iqVC struct {
	head, n    int32 // the ring's first slot and its flits
	outPort    int32 // the route's output port, then the assignment's
	vcLo, vcHi int16 // the route's VC range at that output
	outVC      int16 // the output VC granted
	state      uint8
}

// iqNext is the sender's view of one VC of the buffer downstream (buffer_state.cpp with the
// private buffer policy): who holds it and how many of its slots are taken.
type iqNext struct {
	inUse int32 // the input VC (input*V+vc) that holds it, -1 free (_in_use_by)
	occ   int32 // flits sent and not yet credited (_vc_occupancy)
}

// iqEvent is something a channel delivers: a flit to a router input or a node, or a credit
// (for the VC f.vc) to a router output or a node's injection port.
type iqEvent struct {
	iqDest
	f iqFlit
}

// iqDest is where a channel leads: its far end's kind of event, router (or node) and local
// port, and the channel's latency.
type iqDest struct {
	kind uint8
	port uint16 // the router's local input (flit) or output (credit) port
	r    int32  // the router, or the node (evEject, evInjCredit)
	lat  int32
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

	routers []iqRouter
	// The VC buffers' rings: 1<<ringShift slots each (a power of two at least BufferFlits),
	// of which BufferFlits are used (vc_buf_size).
	ringShift uint
	bufFlits  int32
	inR       []int32 // global input -> router
	outR      []int32 // global output -> router
	down      []int32 // global output -> global input it feeds, or -1-node (ejection)
	downLat   []int32 // its channel latency, cycles
	up        []int32 // global input -> global output feeding it, or -1-node (injection)
	upLat     []int32 // the latency of the channel back (credits)

	nodeIn     []int32 // node -> global input of its injection channel
	nodeInLat  []int32
	nodeOut    []int32 // node -> global output of its ejection channel
	nodeOutLat []int32

	// The same, as where the flits and credits go: global output -> the flit's,
	// global input -> the credit's, node -> its injected flit's and its credit's.
	flitTo, creditTo       []iqDest
	nodeFlitTo, nodeCredTo []iqDest

	wheel     [][]iqEvent
	wheelMask int64 // len(wheel) - 1, a power of two less one
	now       int64
	rng       *rand.Rand
	active    []int32 // routers to evaluate this cycle
	spare     []int32

	// flits sent per global output and per injection channel, for the busiest links.
	outFlits []int64
	injFlits []int64
	moved    int64 // flits moved across a switch or channel, all time
	events   int64 // flits and credits the channels delivered, all time
	lone     *iqSim
	touched  int64 // what touch read: kept, so that its reads are not dropped
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
	n.bufFlits = int32(cfg.BufferFlits)
	for 1<<n.ringShift < cfg.BufferFlits {
		n.ringShift++
	}
	n.routers = make([]iqRouter, len(g.ports))
	for r, p := range g.ports {
		if p > 1<<16-1 {
			return nil, fmt.Errorf("%w: router %d has %d ports: the booksim router numbers at most 65535", ErrBadConfig, r, p)
		}
		rt := &n.routers[r]
		*rt = iqRouter{id: int32(r), inBase: int32(total), outBase: int32(total),
			vcs: make([]iqVC, p*v), flits: make([]iqFlit, p*v<<n.ringShift), next: make([]iqNext, p*v),
			outFlit: make([]iqFlit, p), outHas: make([]bool, p),
			routeQ: newIQQueue(p * v), vcQ: newIQQueue(p * v), swQ: newIQQueue(p * v)}
		// The small arrays and both allocators in two objects, not twenty.
		va32, va64 := rrAllocSize(p*v, p*v, false)
		sa32, sa64 := rrAllocSize(p, p, true)
		i32, u64 := make([]int32, 3*p+va32+sa32), make([]uint64, va64+sa64)
		rt.creditOut, rt.creditIns, rt.swRR = carve32(&i32, p), carve32(&i32, p)[:0], carve32(&i32, p)
		rt.vcAlloc.init(p*v, p*v, false, &i32, &u64)
		rt.swAlloc.init(p, p, true, &i32, &u64)
		for i := range rt.next {
			rt.next[i].inUse = -1
		}
		for o := range p {
			rt.creditOut[o] = -1
		}
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
	local := func(g int32) uint16 { return uint16(g - n.routers[n.inR[g]].inBase) } // inputs and outputs are numbered alike
	n.flitTo, n.creditTo = make([]iqDest, total), make([]iqDest, total)
	for g := range total {
		if n.down[g] == noPort {
			continue // wired to nothing: no route uses it
		}
		if d := n.down[g]; d < 0 {
			n.flitTo[g] = iqDest{kind: evEject, r: -1 - d, lat: n.downLat[g]}
		} else {
			n.flitTo[g] = iqDest{kind: evFlitIn, port: local(d), r: n.inR[d], lat: n.downLat[g]}
		}
		if u := n.up[g]; u < 0 {
			n.creditTo[g] = iqDest{kind: evInjCredit, r: -1 - u, lat: n.upLat[g]}
		} else {
			n.creditTo[g] = iqDest{kind: evCreditOut, port: local(u), r: n.outR[u], lat: n.upLat[g]}
		}
	}
	n.nodeFlitTo, n.nodeCredTo = make([]iqDest, nodes), make([]iqDest, nodes)
	for node := range nodes {
		in, out := n.nodeIn[node], n.nodeOut[node]
		n.nodeFlitTo[node] = iqDest{kind: evFlitIn, port: local(in), r: n.inR[in], lat: n.nodeInLat[node]}
		n.nodeCredTo[node] = iqDest{kind: evCreditOut, port: local(out), r: n.outR[out], lat: n.nodeOutLat[node]}
	}
	w := 2
	for w < int(maxLat)+2 {
		w *= 2
	}
	n.wheel = make([][]iqEvent, w) // a power of two: the slot is a mask away
	n.wheelMask = int64(w - 1)
	n.outFlits = make([]int64, total)
	n.injFlits = make([]int64, nodes)
	return n, nil
}

// send puts an event on a channel of latency d: BookSim2's channel takes what was sent in
// a cycle at its next ReadInputs and delivers it d cycles later, so the receiver reads it
// d+1 cycles after the send.
//
// It and the functions below take and write flits through pointers, memory to memory: a
// flit passed by value travels field by field in registers, and copying it whole right after
// its fields were stored one by one waits for those stores to drain.
func (n *IQNet) send(to *iqDest, f *iqFlit) {
	e := n.slot(to)
	e.iqDest, e.f = *to, *f
}

// sendCredit sends a credit for VC vc.
func (n *IQNet) sendCredit(to *iqDest, vc int16) {
	e := n.slot(to)
	e.iqDest, e.f = *to, iqFlit{}
	e.f.vc = int8(vc)
}

// slot is a new event at the end of the wheel slot that a send on to lands in.
// Its event is not cleared: the sender writes every field.
func (n *IQNet) slot(to *iqDest) *iqEvent {
	w := &n.wheel[(n.now+int64(to.lat)+1)&n.wheelMask]
	k := len(*w)
	if k == cap(*w) {
		growSlot(w)
	}
	*w = (*w)[:k+1]
	return &(*w)[k]
}

// growSlot makes room for one more event in a wheel slot (out of line: slot stays small
// enough to be inlined).
//
//go:noinline
func growSlot(w *[]iqEvent) { *w = append(*w, iqEvent{})[:len(*w)] }

// push puts f at the back of input VC key's buffer; false if the buffer is full.
func (n *IQNet) push(r *iqRouter, key int, f *iqFlit) bool {
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
func (n *IQNet) front(r *iqRouter, key int) *iqFlit {
	return &r.flits[key<<n.ringShift+int(r.vcs[key].head)]
}

// pop takes the flit at the front of input VC key's buffer, which is not empty.
func (n *IQNet) pop(r *iqRouter, key int) iqFlit {
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

func (n *IQNet) wake(r *iqRouter) {
	if !r.active {
		r.active = true
		n.active = append(n.active, r.id)
	}
}
