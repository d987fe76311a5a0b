package fabric

import (
	"errors"
	"fmt"
	"sort"

	"github.com/lhsim/lhsim/netsim"
)

// Endpoint is a node's network interface as the fabric sees it.
type Endpoint interface {
	// Receive is called when p's tail has arrived in the node's ejection buffer. The node
	// gives the space back with Network.Consumed(now, node, p) when it has taken the packet
	// (in Receive or later); until then that space stays used, and a full ejection buffer
	// stops the last link (back-pressure into the fabric).
	Receive(now netsim.Time, p *Packet)
}

// Errors Inject and Consumed return; test with errors.Is.
var (
	ErrBadNode   = errors.New("no such node")
	ErrBadSize   = errors.New("bad packet size")
	ErrBadTime   = errors.New("injection out of time order")
	ErrBusy      = errors.New("packet is already in the fabric")
	ErrNotHeld   = errors.New("packet is not in this node's ejection buffer")
	ErrBadConfig = errors.New("bad fabric configuration")
)

// Stats counts what a Network has done.
type Stats struct {
	Injected  uint64 // packets accepted by Inject
	Delivered uint64 // packets whose tail reached the destination (Receive called)
	Consumed  uint64 // packets given back with Consumed (or taken by a node with no endpoint)
	Flits     uint64 // flits delivered
	FlitHops  uint64 // flits moved over a link (injection and ejection links included)
}

// outPort is the sending end of a link: a router output, or a node's injection port.
type outPort struct {
	down      int32 // the input port it feeds, or -1-node for a node's ejection buffer
	owner     int32 // the router it belongs to, or -1-node for a node's injection port
	rr        int32 // round-robin: the requester granted last
	latency   netsim.Time
	flitTime  netsim.Time // at the lower of the link and (for a router) switch rates
	hold      netsim.Time // switch latency before the link (0 for a node)
	busyUntil netsim.Time
	wakeAt    netsim.Time // a wake-up is scheduled then (noWake: none)
	reqs      []int32     // input virtual channels (in*V+vc) whose head packet wants this port
	flits     uint64      // flits sent on its link (LinkBusy)
}

// inPort is the receiving end of a link at a router.
type inPort struct {
	upstream  int32       // the outPort feeding it (credits go back there)
	router    int32       //
	busyUntil netsim.Time // the crossbar input is streaming a packet out until then
	wakeAt    netsim.Time // a wake-up is scheduled then (noWake: none)
}

const noWake netsim.Time = -1

// ring is a FIFO of packets.
type ring struct {
	buf  []*Packet
	head int32
	n    int32
}

func (q *ring) front() *Packet {
	if q.n == 0 {
		return nil
	}
	return q.buf[q.head]
}

func (q *ring) push(p *Packet) {
	if int(q.n) == len(q.buf) {
		nb := make([]*Packet, max(4, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)%int32(len(q.buf))]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%int32(len(q.buf))] = p
	q.n++
}

func (q *ring) pop() *Packet {
	p := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % int32(len(q.buf))
	q.n--
	return p
}

// timedRing is a FIFO of packets with the time each is due, so that the next one's event
// can be scheduled without touching the packet.
type timedRing struct {
	buf  []timed
	head int32
	n    int32
}

type timed struct {
	at netsim.Time
	p  *Packet
	vc int
}

func (q *timedRing) push(at netsim.Time, p *Packet, vc int) {
	if int(q.n) == len(q.buf) {
		nb := make([]timed, max(4, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)%int32(len(q.buf))]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%int32(len(q.buf))] = timed{at, p, vc}
	q.n++
}

// pop removes the first packet and returns it and its VC with the time the next one is
// due (if any).
func (q *timedRing) pop() (*Packet, int, netsim.Time) {
	t := q.buf[q.head]
	q.buf[q.head].p = nil
	q.head = (q.head + 1) % int32(len(q.buf))
	q.n--
	if q.n == 0 {
		return t.p, t.vc, netsim.Never
	}
	return t.p, t.vc, q.buf[q.head].at
}

// credit is buffer space on its way back upstream: flits that arrive at the sender at at.
type credit struct {
	at    netsim.Time
	flits int32
}

// outVC is the sender's view of one virtual channel of the buffer downstream: the free
// space counted so far, and a FIFO (in time order) of credits on their way back.
type outVC struct {
	free   int32
	head   int32
	n      int32
	nextAt netsim.Time // buf[head].at, when n > 0
	lastAt netsim.Time // the newest entry's at, when n > 0
	buf    []credit
}

func (q *outVC) push(c credit) {
	if q.n == 0 {
		q.nextAt = c.at
	}
	q.lastAt = c.at
	if int(q.n) == len(q.buf) {
		nb := make([]credit, max(2, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)%int32(len(q.buf))]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%int32(len(q.buf))] = c
	q.n++
}

// Event kinds, in the low bits of an event's arg; the rest is a port or node number.
const (
	evReady   = iota // the first packet landing at an input has been through the pipeline: in
	evOutWake        // an output may be able to send (free again, credits back, injection due): out
	evInWake         // a crossbar input has finished streaming a packet out: in
	evDeliver        // a tail reaches a node: node
	kindBits  = 2
	kindMask  = 1<<kindBits - 1
	noPort    = 1<<31 - 1
)

// Network is the fabric: the routers, links and buffers of one topology on one engine, and
// every packet inside it. It is driven only by engine events and by the calls below; it
// starts no goroutine.
type Network struct {
	eng  *netsim.Engine
	topo Topology
	cfg  Config
	v    int // VCs

	portBase []int32 // first global port of each router
	in       []inPort
	out      []outPort   // router ports first, then one injection port per node
	ovc      []outVC     // out*V+vc: free flits downstream and credits on the way back
	vcq      []ring      // in*V+vc: the input buffers
	landing  []timedRing // in: packets on the link to it whose head has not yet been through the pipeline

	nodeIn  []int32 // node's router input port (its injection link's end)
	nodeOut []int32 // node's router output port (its ejection link's start)
	nic     []ring  // node's injection queue (unbounded)
	arrive  []ring  // node's ejection link: packets whose tails are on the way, in order
	lastInj []netsim.Time
	eps     []Endpoint

	seq   uint64
	stats Stats

	linkFlits []uint64 // out port -> flits sent on its link, when CountLinks asked for it
	tracer    Tracer
}

// Tracer sees each packet's life in the fabric (Network.Trace; docs/timeline.md): queued at
// its source (Injected), its head on the source's link (Left), its tail in the destination's
// ejection buffer (Delivered), given back by the destination (Consumed). Packet.Seq names a
// packet for the whole of one life.
type Tracer interface {
	Injected(now netsim.Time, p *Packet)
	Left(now netsim.Time, p *Packet)
	Delivered(now netsim.Time, p *Packet)
	Consumed(now netsim.Time, p *Packet)
}

// Trace makes the network tell t of every packet from now on (nil: none, the default; a
// network without one pays a nil test per event).
func (n *Network) Trace(t Tracer) { n.tracer = t }

// CountLinks makes the network count the flits each link carries from now on (LinkFlits,
// Busiest); off by default, it costs nothing then.
func (n *Network) CountLinks() {
	if n.linkFlits == nil {
		n.linkFlits = make([]uint64, len(n.out))
	}
}

// LinkFlits is a copy of the per-link flit counts (nil unless CountLinks was called).
func (n *Network) LinkFlits() []uint64 { return append([]uint64(nil), n.linkFlits...) }

// Busiest is the k links that carried the most flits between two LinkFlits snapshots, with
// their utilisation in flits per cycle over the cycles between them. Injection links are
// left out: they carry what the sources offer, the cap is downstream of them.
func (n *Network) Busiest(from, to []uint64, cycles float64, k int) []LinkUse {
	type use struct {
		o     int
		flits uint64
	}
	var all []use
	for o := range min(len(from), len(to)) {
		if d := to[o] - from[o]; d > 0 && n.out[o].owner >= 0 {
			all = append(all, use{o, d})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].flits > all[j].flits })
	var out []LinkUse
	for i := 0; i < len(all) && i < k; i++ {
		op := &n.out[all[i].o]
		var name string
		if op.owner < 0 {
			name = fmt.Sprintf("node %d -> router %d", -1-op.owner, n.in[op.down].router)
		} else if op.down < 0 {
			name = fmt.Sprintf("router %d port %d -> node %d", op.owner, all[i].o-int(n.portBase[op.owner]), -1-op.down)
		} else {
			name = fmt.Sprintf("router %d port %d -> router %d", op.owner, all[i].o-int(n.portBase[op.owner]), n.in[op.down].router)
		}
		out = append(out, LinkUse{name, float64(all[i].flits) / cycles})
	}
	return out
}

// New builds topo with cfg on eng.
func New(eng *netsim.Engine, topo Topology, cfg Config) (*Network, error) {
	if eng == nil || topo == nil {
		return nil, fmt.Errorf("%w: need an engine and a topology", ErrBadConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if cfg.Router != NSIMRouter {
		return nil, fmt.Errorf("%w: Router %v is run by NewIQ, not New", ErrBadConfig, cfg.Router)
	}
	if _, ok := topo.(*Torus); ok && !cfg.NoDateline && cfg.VCs%2 != 0 {
		return nil, fmt.Errorf("%w: the torus's dateline needs an even number of VCs, not %d", ErrBadConfig, cfg.VCs)
	}
	if err := CheckFits(topo, cfg); err != nil {
		return nil, err
	}
	var g graph
	if err := topo.build(&cfg, &g); err != nil {
		return nil, err
	}
	n := &Network{eng: eng, topo: topo, cfg: cfg, v: cfg.VCs}
	total := 0
	for _, p := range g.ports {
		n.portBase = append(n.portBase, int32(total))
		total += p
	}
	nodes := len(g.nodes)
	if total+nodes >= noPort/maxVCs {
		return nil, fmt.Errorf("%w: %d ports is too many", ErrBadConfig, total)
	}
	n.in = make([]inPort, total)
	n.out = make([]outPort, total+nodes)
	n.ovc = make([]outVC, len(n.out)*n.v)
	n.vcq = make([]ring, total*n.v)
	n.landing = make([]timedRing, total)
	for i := range n.in {
		n.in[i].upstream, n.in[i].wakeAt = -1, noWake
	}
	for i := range n.out {
		n.out[i].down, n.out[i].owner, n.out[i].wakeAt = noPort, noPort, noWake
	}
	for r, p := range g.ports {
		for j := range p {
			n.in[int(n.portBase[r])+j].router = int32(r)
			n.out[int(n.portBase[r])+j].owner = int32(r)
		}
	}
	sw := cfg.FlitTime(cfg.SwitchBandwidth)
	link := func(o, i int, lat netsim.Time, gbps float64) {
		n.out[o].down, n.out[o].latency = int32(i), lat
		n.out[o].flitTime = max(sw, cfg.FlitTime(gbps))
		n.out[o].hold = cfg.SwitchLatency
		n.in[i].upstream = int32(o)
		for vc := range n.v {
			n.ovc[o*n.v+vc].free = int32(cfg.BufferFlits)
		}
	}
	for _, l := range g.links {
		o, i := int(n.portBase[l.fromRouter])+l.fromPort, int(n.portBase[l.toRouter])+l.toPort
		if n.out[o].down != noPort || n.in[i].upstream != -1 {
			return nil, fmt.Errorf("%w: %v wires a port twice", ErrBadConfig, topo)
		}
		link(o, i, l.latency, l.gbps)
	}
	n.nodeIn, n.nodeOut = make([]int32, nodes), make([]int32, nodes)
	n.nic, n.arrive = make([]ring, nodes), make([]ring, nodes)
	n.lastInj, n.eps = make([]netsim.Time, nodes), make([]Endpoint, nodes)
	for node, a := range g.nodes {
		p := int(n.portBase[a.router]) + a.port
		inj := total + node
		link(inj, p, a.latency, a.gbps)
		n.out[inj].owner, n.out[inj].hold = int32(-1-node), 0
		n.out[inj].flitTime = cfg.FlitTime(a.gbps)
		n.out[p].down, n.out[p].latency = int32(-1-node), a.latency
		n.out[p].flitTime = max(sw, cfg.FlitTime(a.gbps))
		n.out[p].hold = cfg.SwitchLatency
		n.ovc[p*n.v].free = int32(cfg.EjectBufferFlits)
		n.nodeIn[node], n.nodeOut[node] = int32(p), int32(p)
	}
	return n, nil
}

// Engine is the engine the network runs on.
func (n *Network) Engine() *netsim.Engine { return n.eng }

// Topology is the network's topology.
func (n *Network) Topology() Topology { return n.topo }

// Config is the network's configuration.
func (n *Network) Config() Config { return n.cfg }

// Nodes is the number of nodes.
func (n *Network) Nodes() int { return len(n.nic) }

// Stats is what the network has done so far.
func (n *Network) Stats() Stats { return n.stats }

// InFlight is the number of packets injected and not yet delivered.
func (n *Network) InFlight() int { return int(n.stats.Injected - n.stats.Delivered) }

// Queued is the number of packets waiting in node's injection queue (not yet on its link).
func (n *Network) Queued(node int) int { return int(n.nic[node].n) }

// Attach makes ep node's endpoint. A node with no endpoint is a sink: it takes every
// packet as it arrives (Consumed at once).
func (n *Network) Attach(node int, ep Endpoint) error {
	if node < 0 || node >= len(n.eps) {
		return fmt.Errorf("attach to node %d: %w (the network has %d)", node, ErrBadNode, len(n.eps))
	}
	n.eps[node] = ep
	return nil
}

// Inject queues p at p.Src's injection port at time now (now, or later than now: it waits
// until then). The queue is unbounded, as in a NIC's memory; the fabric takes packets from
// it in order when the first link has credits for the whole packet. Inject fills p.Flits
// and p.InjectedAt. Errors: ErrBadNode, ErrBadSize, ErrBadTime (before the engine's now, or
// before the last injection at the same node), ErrBusy (p is already in the fabric).
func (n *Network) Inject(now netsim.Time, p *Packet) error {
	switch {
	case p == nil:
		return fmt.Errorf("inject: nil packet")
	case p.state != stFree:
		return fmt.Errorf("inject packet %d: %w", p.ID, ErrBusy)
	case p.Src < 0 || p.Src >= len(n.nic):
		return fmt.Errorf("inject packet %d: source %d: %w (the network has %d)", p.ID, p.Src, ErrBadNode, len(n.nic))
	case p.Dst < 0 || p.Dst >= len(n.nic):
		return fmt.Errorf("inject packet %d: destination %d: %w (the network has %d)", p.ID, p.Dst, ErrBadNode, len(n.nic))
	case p.Bytes < 1:
		return fmt.Errorf("inject packet %d: %d bytes: %w (want at least 1)", p.ID, p.Bytes, ErrBadSize)
	case n.cfg.MaxPacketBytes > 0 && p.Bytes > n.cfg.MaxPacketBytes:
		return fmt.Errorf("inject packet %d: %d bytes: %w (MaxPacketBytes is %d)", p.ID, p.Bytes, ErrBadSize, n.cfg.MaxPacketBytes)
	case p.Bytes > n.cfg.maxPacketFlits()*n.cfg.FlitBytes:
		return fmt.Errorf("inject packet %d: %d bytes: %w (a packet must fit a %d-flit buffer whole; split it)",
			p.ID, p.Bytes, ErrBadSize, n.cfg.maxPacketFlits())
	case now < n.eng.Now():
		return fmt.Errorf("inject packet %d at %v: %w (the engine is at %v)", p.ID, now, ErrBadTime, n.eng.Now())
	case now < n.lastInj[p.Src]:
		return fmt.Errorf("inject packet %d at %v: %w (node %d injected at %v)", p.ID, now, ErrBadTime, p.Src, n.lastInj[p.Src])
	}
	n.seq++
	p.seq = n.seq
	p.Flits = int32(n.cfg.Flits(p.Bytes))
	p.InjectedAt, p.ArrivedAt = now, 0
	p.Hops, p.VC = 0, 0
	p.dim, p.class, p.requested = -1, 0, false
	p.state = stQueued
	n.lastInj[p.Src] = now
	n.stats.Injected++
	q := &n.nic[p.Src]
	q.push(p)
	if q.n == 1 {
		n.tryInject(p.Src, n.eng.Now())
	}
	if n.tracer != nil {
		n.tracer.Injected(now, p) // (after Left, when it left at once)
	}
	return nil
}

// Consumed gives p's ejection buffer space at node back: the credits travel back over the
// ejection link. Errors: ErrBadNode, ErrNotHeld (p is not in node's ejection buffer: never
// delivered there, or already consumed).
func (n *Network) Consumed(now netsim.Time, node int, p *Packet) error {
	if node < 0 || node >= len(n.nic) {
		return fmt.Errorf("consumed at node %d: %w", node, ErrBadNode)
	}
	if p == nil || p.state != stDelivered || p.Dst != node {
		return fmt.Errorf("consumed at node %d: %w", node, ErrNotHeld)
	}
	p.state = stFree
	n.stats.Consumed++
	if n.tracer != nil {
		n.tracer.Consumed(max(now, n.eng.Now()), p)
	}
	o := int(n.nodeOut[node])
	n.giveBack(o, 0, p.Flits, max(now, n.eng.Now())+n.out[o].latency)
	return nil
}

// Fire runs one of the network's events (netsim.Handler).
func (n *Network) Fire(now netsim.Time, arg int64) {
	x := int(arg >> kindBits)
	switch arg & kindMask {
	case evReady:
		// Packets land at an input in the order they left the upstream port, each one
		// pipeline after its head: one event at a time per input keeps the queue short.
		// A landed packet joins its VC's buffer queue; the first in the queue asks for
		// its output.
		p, vc, next := n.landing[x].pop()
		if next != netsim.Never {
			n.eng.At(next, n, evReady|int64(x)<<kindBits)
		}
		key := x*n.v + vc
		q := &n.vcq[key]
		if q.push(p); q.n == 1 {
			n.request(key, p, now)
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
			if p := n.vcq[k].front(); p != nil && p.requested {
				n.tryOutput(int(p.out), now)
			}
		}
	case evDeliver:
		n.deliver(x, now)
	}
}

// wakeOut makes sure output o is tried again at t (or earlier: an earlier try that still
// cannot send asks again for what it then waits for).
func (n *Network) wakeOut(o int, t netsim.Time) {
	op := &n.out[o]
	if op.wakeAt != noWake && op.wakeAt <= t {
		return
	}
	op.wakeAt = t
	n.eng.At(t, n, evOutWake|int64(o)<<kindBits)
}

// wakeIn makes sure the waiting VCs of input i are tried again when it is free at t.
func (n *Network) wakeIn(i int, t netsim.Time) {
	ip := &n.in[i]
	if ip.wakeAt != noWake && ip.wakeAt <= t {
		return
	}
	ip.wakeAt = t
	n.eng.At(t, n, evInWake|int64(i)<<kindBits)
}

// giveBack sends flits of buffer space back to output o's VC vc, arriving at at. Credits
// are counted lazily, when the output next looks at them; only an output that has a
// packet waiting gets an event for their arrival.
func (n *Network) giveBack(o, vc int, flits int32, at netsim.Time) {
	q := &n.ovc[o*n.v+vc]
	if q.n > 0 {
		at = max(at, q.lastAt) // keep the FIFO in time order
	}
	q.push(credit{at, flits})
	op := &n.out[o]
	if op.owner < 0 && n.nic[-1-op.owner].n > 0 || op.owner >= 0 && len(op.reqs) > 0 {
		n.wakeOut(o, at)
	}
}

// avail counts the credits of output VC ix that have arrived by now.
func (n *Network) avail(ix int, now netsim.Time) int32 {
	q := &n.ovc[ix]
	for q.n > 0 && q.nextAt <= now {
		q.free += q.buf[q.head].flits
		q.head = (q.head + 1) % int32(len(q.buf))
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
	port, class := n.topo.route(r, p)
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
	base := o * n.v
	if n.cfg.InOrder && hi-lo > 1 {
		lo += (p.Src*7919 + p.Dst) % (hi - lo)
		hi = lo + 1
	}
	best, bestC := -1, int32(0)
	for w := lo; w < hi; w++ {
		if c := n.avail(base+w, now); c >= p.Flits && c > bestC {
			best, bestC = w, c
		}
	}
	if best < 0 {
		next := netsim.Never
		for w := lo; w < hi; w++ {
			if q := &n.ovc[base+w]; q.n > 0 {
				next = min(next, q.nextAt)
			}
		}
		if next != netsim.Never {
			n.wakeOut(o, next)
		}
		// else: credits come back later, and giveBack wakes o then (it has a waiter).
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
		p := n.vcq[key].front()
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
		if best < 0 || rank < bestRank || rank == bestRank && p.seq < bp.seq {
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
	q := &n.vcq[best]
	q.pop()
	bp.requested = false
	i := best / n.v
	end := n.send(o, bestVC, bp, now, i)
	n.in[i].busyUntil = end
	if len(op.reqs) > 0 {
		n.wakeOut(o, end)
	}
	// The buffer space the packet leaves goes back upstream when its tail has left.
	up := int(n.in[i].upstream)
	n.giveBack(up, best%n.v, bp.Flits, end+n.out[up].latency)
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
	q.pop()
	if n.tracer != nil {
		n.tracer.Left(now, p)
	}
	end := n.send(o, w, p, now, noPort)
	if next := q.front(); next != nil {
		n.wakeOut(o, max(end, next.InjectedAt))
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
	n.ovc[o*n.v+w].free -= p.Flits
	n.stats.FlitHops += uint64(p.Flits)
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
	if op.down < 0 {
		node := int(-1 - op.down)
		a := &n.arrive[node]
		if a.push(p); a.n == 1 {
			n.eng.At(p.tailAt, n, evDeliver|int64(node)<<kindBits)
		}
		return end
	}
	in2 := int(op.down)
	ready := head + n.cfg.Pipeline()
	l := &n.landing[in2]
	if l.push(ready, p, w); l.n == 1 {
		n.eng.At(ready, n, evReady|int64(in2)<<kindBits)
	}
	return end
}

func (n *Network) deliver(node int, now netsim.Time) {
	a := &n.arrive[node]
	p := a.pop()
	if a.n > 0 {
		n.eng.At(a.front().tailAt, n, evDeliver|int64(node)<<kindBits)
	}
	p.state = stDelivered
	p.ArrivedAt = now
	n.stats.Delivered++
	n.stats.Flits += uint64(p.Flits)
	if n.tracer != nil {
		n.tracer.Delivered(now, p)
	}
	if ep := n.eps[node]; ep != nil {
		ep.Receive(now, p)
		return
	}
	_ = n.Consumed(now, node, p)
}
