// Package booksim is BookSim2's input-queued router (src/routers/iq_router.cpp) flit by
// flit, cycle by cycle, as BookSim2 steps it (trafficmanager.cpp _Step, networks/network.cpp,
// channel.hpp): every cycle the terminals and routers read what their channels deliver, the
// terminals inject and eject, every router runs its pipeline (_InternalStep) and writes one
// flit per output and one credit per input onto its channels. Only what lhsim traffic
// --preset booksim uses is here: wormhole flow control with private VC buffers
// (buffer_state.cpp's PrivateBufferPolicy), routing_delay >= 1 (no lookahead), no
// speculation, no switch hold, input and output speed-up 1, one traffic class.
//
// It runs on fabric's topologies: their channel graph (fabric.BuildGraph) and their routing
// function (fabric.Topology.Route, under BookSim2's rule: random ties and up ports, the
// dateline partition chosen on entering a dimension), so a topology added to fabric runs on
// both routers. Its random numbers are drawn from one stream per router and one per node,
// each seeded from the run's seed and the component's number, and every router reads its
// inputs in port order, so a run is the same whichever part of the network runs where: New
// cuts it into parts (fabric.Partition) that run on their own threads in windows of the
// least channel latency (Run; docs/network.md, "The booksim router").
//
// New builds a network, Run measures Bernoulli traffic on it as BookSim2 does, Lone and
// ZeroLoad give a lone packet's latency simulated and in closed form, DeadlockCheck says
// whether a configuration can deadlock, Estimate and CheckFits its memory, MeasureSpeed its
// speed.
package booksim

import (
	"fmt"
	"math/rand/v2"

	"github.com/lhsim/lhsim/netsim/fabric"
)

// packet is a packet of the booksim model: what BookSim2 keeps in its head flit and the
// routers do not read. Each part keeps those its nodes created in a slab (part.pkts); flits
// name theirs by packet id (part.pktID).
type packet struct {
	src, dst int32
	flits    int32
	ctime    int64 // created (f->ctime): the latency starts here
	itime    int64 // head injected into the network (f->itime)
	record   bool  // created while measuring (f->record)
}

// flit is one flit (flit.hpp), carried by value: what the routers read of its packet (the
// destination, the routing state, the hop count) travels in it, so that a router never
// touches the packet.
//
// 12 bytes: the VC buffers' rings and the channels' events take three quarters of the
// memory 16 would, which counts once the network outgrows the caches.
type flit struct {
	pkt   int32 // the packet's id (part.pktID)
	dst   int32 // its destination node
	hops  int16 // head: routers crossed so far (f->hops)
	vc    int8  // at most maxVCs (64)
	flags uint8 // flitHead, flitTail, flitClass, and the routing dimension + 1 above them
}

const (
	flitHead  = 1 << iota
	flitTail  //
	flitClass // head: the dateline class (partition, f->ph) in the current dimension
	flitDim   // head: the dimension it moves in + 1 (0: none yet), in the bits from here up
)

func (f *flit) head() bool { return f.flags&flitHead != 0 }
func (f *flit) tail() bool { return f.flags&flitTail != 0 }

// hop is the routing state the head carries (fabric.Hop), unpacked from its flags.
func (f *flit) hop() fabric.Hop {
	return fabric.Hop{Dim: int8(f.flags/flitDim) - 1, Class: f.flags / flitClass & 1}
}

// setHop packs h into the head's flags.
func (f *flit) setHop(h fabric.Hop) {
	f.flags = f.flags&(flitHead|flitTail) | h.Class&1*flitClass | uint8(h.Dim+1)*flitDim
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

type router struct {
	id      int32
	active  bool
	inBase  int32  // first global input port
	outBase int32  // first global output port
	vcs     []vc   // input*V+vc
	flits   []flit // the input VCs' buffers: VC key's ring is flits[key<<ringShift:]
	next    []next // output*V+vc: the VC of the buffer downstream, as this router sees it
	// What the input channels delivered this cycle: a flit per input at most, queued in
	// input order (ReadInputs walks the inputs in order), whichever order they were read in.
	inFlit  []flit
	arrived []int32

	routeQ, vcQ, swQ queue
	xbar             []xbarEntry
	xbarHead         int
	// _output_buffer: output -> the flit to send. With output speed-up 1 it holds at most
	// one: the switch grants an output to one input a cycle, those granted in one cycle
	// leave the crossbar together, and WriteOutputs sends one per output every cycle.
	outFlit   []flit
	outHas    []bool
	outN      int
	creditOut []int32 // input -> VC whose credit leaves this cycle, -1 none
	creditIns []int32

	vcAlloc, swAlloc rrAlloc
	swRR             []int32     // _sw_rr_offset
	rule             fabric.Rule // BookSim2's, drawing from the router's own stream
	hop              fabric.Hop  // the routing state of the flit being routed
}

// vc is an input VC (vc.hpp) and the ring of its buffer (buffer.cpp's per-VC FIFO) in
// router.flits.
type vc struct {
	head, n    int32 // the ring's first slot and its flits
	outPort    int32 // the route's output port, then the assignment's
	vcLo, vcHi int16 // the route's VC range at that output
	outVC      int16 // the output VC granted
	state      uint8
}

// next is the sender's view of one VC of the buffer downstream (buffer_state.cpp with the
// private buffer policy): who holds it and how many of its slots are taken.
type next struct {
	inUse int32 // the input VC (input*V+vc) that holds it, -1 free (_in_use_by)
	occ   int32 // flits sent and not yet credited (_vc_occupancy)
}

// event is something a channel delivers: a flit to a router input or a node, or a credit
// (for the VC f.vc) to a router output or a node's injection port.
type event struct {
	dest
	f flit
}

// dest is where a channel leads: its far end's kind of event, part, router (or node) and
// local port, and the channel's latency.
type dest struct {
	kind uint8
	part uint8  // the part the far end runs in
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

// noPort marks a port wired to nothing.
const noPort = 1<<31 - 1

// Network is the booksim model of a topology: routers, channels and the terminals'
// injection and ejection ports, in parts. New builds it; Run measures traffic on it.
type Network struct {
	topo fabric.Topology
	cfg  fabric.Config
	v    int
	seed uint64
	// BookSim2's delays in cycles (booksim_config.cpp: routing_delay, vc_alloc_delay,
	// sw_alloc_delay, st_final_delay).
	routingDelay, vcAllocDelay, swAllocDelay, xbarDelay int64

	routers []router
	// The VC buffers' rings: 1<<ringShift slots each (a power of two at least BufferFlits),
	// of which BufferFlits are used (vc_buf_size).
	ringShift uint
	bufFlits  int32
	inR       []int32 // global input -> router
	outR      []int32 // global output -> router
	down      []int32 // global output -> global input it feeds, or -1-node (ejection)
	up        []int32 // global input -> global output feeding it, or -1-node (injection)

	// Where the flits and credits go: global output -> the flit's, global input -> the
	// credit's, node -> its injected flit's and its credit's.
	flitTo, creditTo       []dest
	nodeFlitTo, nodeCredTo []dest

	parts  []*part
	window int64 // cycles a window runs (the lookahead)
	now    int64 // the cycle every part has reached, between windows
	crew   *crew

	// flits sent per global output and per injection channel, for the busiest links.
	outFlits []int64
	injFlits []int64
	lone     *sim
}

// cycles is d in whole cycles of cfg's clock, or an error naming the field.
func cycles(cfg *fabric.Config, name string, d int64, least int64) (int64, error) {
	if d%int64(cfg.ClockPeriod) != 0 {
		return 0, fmt.Errorf("%s %v is not a whole number of %v cycles (the booksim router counts cycles)", name, d, cfg.ClockPeriod)
	}
	n := d / int64(cfg.ClockPeriod)
	if n < least {
		return 0, fmt.Errorf("%s is %d cycles: the booksim router needs at least %d (BookSim2's iq_router.cpp)", name, n, least)
	}
	return n, nil
}

// stream is the random stream of component id of kind (a router, a node) in a run of
// seed: each its own, so that what one draws does not depend on when the others draw
// (splitmix64's finaliser spreads seed, kind and id over both words of PCG's state).
func stream(seed uint64, kind, id int) *rand.Rand {
	mix := func(x uint64) uint64 {
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	return rand.New(rand.NewPCG(mix(seed^0x626f6f6b73696d), mix(uint64(kind)<<56^uint64(id)^mix(seed))))
}

// Kinds of component a random stream belongs to.
const (
	streamRouter = 1
	streamNode   = 2
)

// New builds the booksim model of topo on one part. cfg.VCs, BufferFlits (vc_buf_size),
// the four delays in cycles, and the channels: a channel's BookSim2 latency is one cycle
// plus its flight time in cycles (CableLatency, TorusLinkLatency).
func New(topo fabric.Topology, cfg fabric.Config, seed uint64) (*Network, error) {
	return NewParts(topo, cfg, seed, 1)
}

// NewParts is New on parts parts (1 to fabric.MaxParts), cut as fabric.Partition cuts
// the event model's: each runs on its own thread, and a run's results are the same for any
// number of parts.
func NewParts(topo fabric.Topology, cfg fabric.Config, seed uint64, parts int) (*Network, error) {
	if topo == nil {
		return nil, fmt.Errorf("%w: need a topology", fabric.ErrBadConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
	}
	if parts > maxParts {
		return nil, fmt.Errorf("%w: %d parts: the booksim router runs at most %d", fabric.ErrBadConfig, parts, maxParts)
	}
	rpart, err := fabric.Partition(topo, cfg, parts)
	if err != nil {
		return nil, err
	}
	n := &Network{topo: topo, cfg: cfg, v: cfg.VCs, seed: seed}
	g, err := n.check()
	if err != nil {
		return nil, err
	}
	lat := func(name string, t int64) (int32, error) {
		c, err := cycles(&cfg, name, t, 0)
		return int32(c + 1), err
	}
	total := 0
	v := n.v
	maxLat := int32(1)
	n.bufFlits = int32(cfg.BufferFlits)
	for 1<<n.ringShift < cfg.BufferFlits {
		n.ringShift++
	}
	n.routers = make([]router, len(g.Ports))
	for r, p := range g.Ports {
		if p > 1<<16-1 {
			return nil, fmt.Errorf("%w: router %d has %d ports: the booksim router numbers at most 65535", fabric.ErrBadConfig, r, p)
		}
		rt := &n.routers[r]
		*rt = router{id: int32(r), inBase: int32(total), outBase: int32(total),
			vcs: make([]vc, p*v), flits: make([]flit, p*v<<n.ringShift), next: make([]next, p*v),
			outFlit: make([]flit, 2*p), outHas: make([]bool, p),
			routeQ: newQueue(p * v), vcQ: newQueue(p * v), swQ: newQueue(p * v)}
		rt.inFlit = rt.outFlit[p:]
		rt.outFlit = rt.outFlit[:p:p]
		rt.rule = fabric.Rule{Rand: stream(seed, streamRouter, r), Partition: true}
		// The small arrays and both allocators in two objects, not twenty.
		va32, va64 := rrAllocSize(p*v, p*v, false)
		sa32, sa64 := rrAllocSize(p, p, true)
		i32, u64 := make([]int32, 4*p+va32+sa32), make([]uint64, va64+sa64)
		rt.creditOut, rt.creditIns, rt.swRR = carve32(&i32, p), carve32(&i32, p)[:0], carve32(&i32, p)
		rt.arrived = carve32(&i32, p)[:0]
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
	n.down, n.up = make([]int32, total), make([]int32, total)
	downLat, upLat := make([]int32, total), make([]int32, total)
	for i := range total {
		n.down[i], n.up[i] = noPort, noPort
	}
	n.window = 0
	for _, l := range g.Links {
		o, i := int(n.routers[l.FromRouter].outBase)+l.FromPort, int(n.routers[l.ToRouter].inBase)+l.ToPort
		d, err := lat("a link's latency", int64(l.Latency))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
		}
		n.down[o], downLat[o], n.up[i], upLat[i] = int32(i), d, int32(o), d
		maxLat = max(maxLat, d)
		// A flit or credit sent on it in a cycle is read d+1 cycles later: the parts may run
		// that many cycles apart, whichever links the cut crosses.
		if n.window == 0 || int64(d)+1 < n.window {
			n.window = int64(d) + 1
		}
	}
	nodes := len(g.Nodes)
	nodeInLat := make([]int32, nodes)
	for node, a := range g.Nodes {
		p := int(n.routers[a.Router].inBase) + a.Port
		d, err := lat("CableLatency", int64(a.Latency))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
		}
		nodeInLat[node] = d
		n.up[p], upLat[p] = int32(-1-node), d
		n.down[p], downLat[p] = int32(-1-node), d
		maxLat = max(maxLat, d)
	}
	if n.window == 0 { // no link between routers: one router, one part
		n.window = int64(maxLat) + 1
	}
	for i := range total {
		if n.down[i] == noPort || n.up[i] == noPort {
			// A port wired to nothing (the fat tree's top up ports): no route uses it.
			n.down[i], n.up[i] = noPort, noPort
		}
	}
	local := func(g int32) uint16 { return uint16(g - n.routers[n.inR[g]].inBase) } // inputs and outputs are numbered alike
	partOf := func(r int32) uint8 { return uint8(rpart[r]) }
	n.flitTo, n.creditTo = make([]dest, total), make([]dest, total)
	for g := range total {
		if n.down[g] == noPort {
			continue // wired to nothing: no route uses it
		}
		if d := n.down[g]; d < 0 {
			n.flitTo[g] = dest{kind: evEject, part: partOf(n.outR[g]), r: -1 - d, lat: downLat[g]}
		} else {
			n.flitTo[g] = dest{kind: evFlitIn, part: partOf(n.inR[d]), port: local(d), r: n.inR[d], lat: downLat[g]}
		}
		if u := n.up[g]; u < 0 {
			n.creditTo[g] = dest{kind: evInjCredit, part: partOf(n.inR[g]), r: -1 - u, lat: upLat[g]}
		} else {
			n.creditTo[g] = dest{kind: evCreditOut, part: partOf(n.outR[u]), port: local(u), r: n.outR[u], lat: upLat[g]}
		}
	}
	n.nodeFlitTo, n.nodeCredTo = make([]dest, nodes), make([]dest, nodes)
	for node, a := range g.Nodes {
		p := int32(int(n.routers[a.Router].inBase) + a.Port)
		n.nodeFlitTo[node] = dest{kind: evFlitIn, part: partOf(n.inR[p]), port: local(p), r: n.inR[p], lat: nodeInLat[node]}
		n.nodeCredTo[node] = dest{kind: evCreditOut, part: partOf(n.outR[p]), port: local(p), r: n.outR[p], lat: nodeInLat[node]}
	}
	w := 2
	for w < int(maxLat)+2 {
		w *= 2
	}
	for i := range parts {
		pt := &part{id: i, n: n, wheel: make([][]event, w), mask: int64(w - 1)} // a power of two: the slot is a mask away
		for k := range pt.outs {
			pt.outs[k] = make([]box, parts)
		}
		n.parts = append(n.parts, pt)
	}
	for r := range n.routers {
		pt := n.parts[rpart[r]]
		pt.routers = append(pt.routers, int32(r))
	}
	for node := range nodes {
		pt := n.parts[n.nodeFlitTo[node].part]
		pt.nodes = append(pt.nodes, int32(node))
	}
	n.outFlits = make([]int64, total)
	n.injFlits = make([]int64, nodes)
	return n, nil
}

// Check says what New would refuse of topo with cfg, without building the network: a
// configuration the booksim router does not model, or a network that does not fit in
// memory (CheckFits).
func Check(topo fabric.Topology, cfg fabric.Config) error {
	if topo == nil {
		return fmt.Errorf("%w: need a topology", fabric.ErrBadConfig)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
	}
	n := &Network{topo: topo, cfg: cfg, v: cfg.VCs}
	_, err := n.check()
	return err
}

// check validates n's configuration, sets its delays in cycles and lays out its graph.
func (n *Network) check() (*fabric.Graph, error) {
	topo, cfg := n.topo, n.cfg
	var err error
	if err := CheckFits(topo, cfg); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name  string
		v     int64
		least int64
		to    *int64
	}{{"RoutingDelay", int64(cfg.RoutingDelay), 1, &n.routingDelay}, {"VCAllocDelay", int64(cfg.VCAllocDelay), 1, &n.vcAllocDelay},
		{"SwitchAllocDelay", int64(cfg.SwitchAllocDelay), 1, &n.swAllocDelay}, {"SwitchLatency", int64(cfg.SwitchLatency), 1, &n.xbarDelay}} {
		if *d.to, err = cycles(&cfg, d.name, d.v, d.least); err != nil {
			return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
		}
	}
	if n.vcAllocDelay != 1 || n.swAllocDelay != 1 {
		return nil, fmt.Errorf("%w: the booksim router models one-cycle VC and switch allocation (BookSim2's default), not %d and %d",
			fabric.ErrBadConfig, n.vcAllocDelay, n.swAllocDelay)
	}
	g, err := fabric.BuildGraph(topo, cfg)
	if err != nil {
		return nil, err
	}
	rates := []float64{cfg.SwitchBandwidth}
	for _, l := range g.Links {
		rates = append(rates, l.GBps)
	}
	for _, a := range g.Nodes {
		rates = append(rates, a.GBps)
	}
	for _, bw := range rates {
		if cfg.FlitTime(bw) != cfg.ClockPeriod {
			return nil, fmt.Errorf("%w: the booksim router moves one flit per cycle on every link and switch port; %v GB/s gives %v per flit against a %v cycle",
				fabric.ErrBadConfig, bw, cfg.FlitTime(bw), cfg.ClockPeriod)
		}
	}
	for _, l := range g.Links {
		if _, err := cycles(&cfg, "a link's latency", int64(l.Latency), 0); err != nil {
			return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
		}
	}
	for _, a := range g.Nodes {
		if _, err := cycles(&cfg, "CableLatency", int64(a.Latency), 0); err != nil {
			return nil, fmt.Errorf("%w: %w", fabric.ErrBadConfig, err)
		}
	}
	for r, p := range g.Ports {
		if p > 1<<16-1 {
			return nil, fmt.Errorf("%w: router %d has %d ports: the booksim router numbers at most 65535", fabric.ErrBadConfig, r, p)
		}
	}
	return g, nil
}

// Parts is how many parts the network runs in.
func (n *Network) Parts() int { return len(n.parts) }

// Window is how many cycles the parts run between two exchanges: the least latency, in
// cycles, of a channel between routers, plus the cycle it is read in.
func (n *Network) Window() int64 { return n.window }

// Topology is the network's topology.
func (n *Network) Topology() fabric.Topology { return n.topo }

// Config is the network's configuration.
func (n *Network) Config() fabric.Config { return n.cfg }
