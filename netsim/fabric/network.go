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

// partStats is a part's Stats on cache lines of its own: every hop adds to its part's, and
// two parts' counters on one line would bounce it between the cores running them.
type partStats struct {
	Stats
	_ [64]byte
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
	upLatency netsim.Time // the upstream output's link latency (the credits' way back)
	// upWaits: the upstream output, a node's injection port, has a packet waiting (it wants
	// credits' arrivals). A router's output is told of credits by an event (evCredit).
	upWaits bool
	// The upstream output's credit counters for its VCs and its VCs' buffers, inline when
	// there are no more than inlineVCs (else in Network.ovcx and vcqx). The credit counters
	// are the upstream output's: only its events touch them (a router's), or only its
	// node's and this router's (an injection link, never cut between parts).
	cred [inlineVCs]outVC
	vcs  [inlineVCs]ring
}

// inlineVCs is how many VCs a port keeps inside its own record (the default's 2).
const inlineVCs = 2

// vcArrays makes New keep every VC in Network.ovcx and vcqx, as with more than inlineVCs
// (tests: the two layouts must run the same).
var vcArrays = false

const noWake netsim.Time = -1

// Event kinds, in the low bits of an event's arg; the rest is a port or node number.
const (
	evReady   = iota // a packet landing at an input has been through the pipeline: in (the packet is the handler)
	evOutWake        // an output may be able to send (free again, credits back, injection due): out
	evInWake         // a crossbar input has finished streaming a packet out: in
	evDeliver        // a tail reaches a node: node
	evCredit         // credits reach a router's output: the input they come from, with VC and flits (creditArg)
	kindBits  = 3
	kindMask  = 1<<kindBits - 1
	noPort    = 1<<31 - 1
)

// Network is the fabric: the routers, links and buffers of one topology on one engine (or
// on the parts of a netsim.Parts: NewParts), and every packet inside it. It is driven only
// by engine events and by the calls below; it starts no goroutine.
type Network struct {
	eng  *netsim.Engine   // part 0's
	engs []*netsim.Engine // part -> its engine
	// rpart is router -> part (nil: one part). Events between routers of different parts
	// are posted (netsim.Engine.Post): a landing packet and credits given back.
	rpart []int32
	parts *netsim.Parts // nil: one engine
	key   uint64        // the network's key space
	bySeq bool          // OrderByScheduling
	topo  Topology
	cfg   Config
	v     int // VCs

	// leftWait[node] are called, one per packet that leaves node's injection queue, in the
	// order they were given (OnLeave): NIC DMAs waiting for room in its transmit queue.
	leftWait [][]func(now netsim.Time)

	portBase []int32 // first global port of each router
	in       []inPort
	out      []outPort // router ports first, then one injection port per node
	ovcx     []outVC   // out*V+vc, when V > inlineVCs: free flits downstream and credits on the way back
	eject    []outVC   // node's ejection buffer's credits, when V <= inlineVCs
	vcqx     []ring    // in*V+vc, when V > inlineVCs: the input buffers
	vmask    int       // V-1 when V <= inlineVCs
	vshift   uint      // log2(V) when V <= inlineVCs

	nodeIn  []int32 // node's router input port (its injection link's end)
	nodeOut []int32 // node's router output port (its ejection link's start)
	nic     []ring  // node's injection queue (unbounded)
	arrive  []ring  // node's ejection link: packets whose tails are on the way, in order
	lastInj []netsim.Time
	eps     []Endpoint
	nseq    []uint32 // node -> packets it has injected (Packet.Seq)

	stats []partStats // part -> what its routers and nodes did

	linkFlits []uint64 // out port -> flits sent on its link, when CountLinks asked for it
	tracer    Tracer
	flight    []flightLog // part -> its injections and deliveries, when RecordInFlight asked for them
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
func (n *Network) Trace(t Tracer) {
	if len(n.engs) > 1 && t != nil {
		panic("fabric: a tracer on a network of several parts (it would be called from all at once)")
	}
	n.tracer = t
}

// CountLinks makes the network count the flits each link carries from now on (LinkFlits,
// Busiest); off by default, it costs nothing then.
func (n *Network) CountLinks() {
	if n.linkFlits == nil {
		n.linkFlits = make([]uint64, len(n.out))
	}
}

// LinkFlits is a copy of the per-link flit counts (nil unless CountLinks was called).
func (n *Network) LinkFlits() []uint64 { return append([]uint64(nil), n.linkFlits...) }

// LinkUse is a channel and the share of cycles it carried a flit.
type LinkUse struct {
	Link        string  `json:"link"`
	Utilisation float64 `json:"utilisation"` // flits per cycle over the measurement
}

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
		return nil, fmt.Errorf("%w: Router %v is run by netsim/fabric/booksim, not New", ErrBadConfig, cfg.Router)
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
	n := &Network{eng: eng, engs: []*netsim.Engine{eng}, topo: topo, cfg: cfg, v: cfg.VCs, key: eng.NewKeySpace(), stats: make([]partStats, 1)}
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
	if n.v > inlineVCs || vcArrays {
		n.ovcx = make([]outVC, len(n.out)*n.v)
		n.vcqx = make([]ring, total*n.v)
	} else {
		n.vmask, n.vshift = n.v-1, uint(n.v-1) // V is 1 or 2
	}
	for i := range n.ovcx {
		n.ovcx[i].inline()
	}
	for i := range n.in {
		for vc := range n.v {
			n.vcq(i*n.v + vc).inline()
			n.in[i].cred[min(vc, inlineVCs-1)].inline()
		}
	}
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
		n.in[i].upstream, n.in[i].upLatency = int32(o), lat
		for vc := range n.v {
			n.ovc(o, vc).free = int32(cfg.BufferFlits)
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
	if n.ovcx == nil {
		n.eject = make([]outVC, nodes)
		for i := range n.eject {
			n.eject[i].inline()
		}
	}
	n.nic, n.arrive = make([]ring, nodes), make([]ring, nodes)
	n.lastInj, n.eps = make([]netsim.Time, nodes), make([]Endpoint, nodes)
	n.nseq = make([]uint32, nodes)
	for node, a := range g.nodes {
		p := int(n.portBase[a.router]) + a.port
		inj := total + node
		link(inj, p, a.latency, a.gbps)
		n.out[inj].owner, n.out[inj].hold = int32(-1-node), 0
		n.out[inj].flitTime = cfg.FlitTime(a.gbps)
		n.out[p].down, n.out[p].latency = int32(-1-node), a.latency
		n.out[p].flitTime = max(sw, cfg.FlitTime(a.gbps))
		n.out[p].hold = cfg.SwitchLatency
		n.ovc(p, 0).free = int32(cfg.EjectBufferFlits)
		n.nodeIn[node], n.nodeOut[node] = int32(p), int32(p)
	}
	return n, nil
}

// ovc is output o's VC w: free flits downstream and credits on the way back. It is kept
// in the record of the input the output feeds (or, for an ejection port, its node's).
func (n *Network) ovc(o, w int) *outVC {
	if n.ovcx != nil {
		return &n.ovcx[o*n.v+w]
	}
	if d := n.out[o].down; d >= 0 {
		return &n.in[d].cred[w]
	}
	return &n.eject[-1-n.out[o].down]
}

// upCred is the credit counter of input i's VC vc at its upstream output (ovc(upstream, vc)).
func (n *Network) upCred(i, vc int) *outVC {
	if n.ovcx != nil {
		return &n.ovcx[int(n.in[i].upstream)*n.v+vc]
	}
	return &n.in[i].cred[vc]
}

// waits records in the record of the input that output o feeds whether o has a packet
// waiting (a request, or a queued packet at a node's injection port), for giveBack.
func (n *Network) waits(o int, yes bool) {
	if d := n.out[o].down; d >= 0 {
		n.in[d].upWaits = yes
	}
}

// vcq is input VC key's buffer (in*V+vc).
func (n *Network) vcq(key int) *ring {
	if n.vcqx != nil {
		return &n.vcqx[key]
	}
	return &n.in[key>>n.vshift].vcs[key&n.vmask]
}

// OrderByScheduling makes the network's events run, among those of their instant, in the
// order they were scheduled (netsim.Engine.At), as they did before events had keys: for a
// system whose own events are ordered so and whose outcome relies on the fabric's taking
// their turn among them (ib's checkpoint restarts a network afresh and expects its HCAs to
// go on bit for bit, which holds in that order and not in the keyed one). Such a network
// runs on one part only.
func (n *Network) OrderByScheduling() {
	if len(n.engs) > 1 {
		panic("fabric: OrderByScheduling on a network of several parts")
	}
	n.bySeq = true
}

// Engine is the engine the network runs on (part 0's, on parts).
func (n *Network) Engine() *netsim.Engine { return n.eng }

// partOf is router r's part.
func (n *Network) partOf(r int32) int {
	if n.rpart == nil {
		return 0
	}
	return int(n.rpart[r])
}

// nodePart is node's part (its router's).
func (n *Network) nodePart(node int) int { return n.partOf(n.in[n.nodeIn[node]].router) }

// outPart is output o's part (its router's, or its node's).
func (n *Network) outPart(o int) int {
	if w := n.out[o].owner; w >= 0 {
		return n.partOf(w)
	}
	return n.nodePart(o - len(n.in))
}

// NodeEngine is the engine node's events run on (Engine, but on parts its part's).
func (n *Network) NodeEngine(node int) *netsim.Engine { return n.engs[n.nodePart(node)] }

// Topology is the network's topology.
func (n *Network) Topology() Topology { return n.topo }

// Config is the network's configuration.
func (n *Network) Config() Config { return n.cfg }

// Nodes is the number of nodes.
func (n *Network) Nodes() int { return len(n.nic) }

// Stats is what the network has done so far.
func (n *Network) Stats() Stats {
	var s Stats
	for i := range n.stats {
		p := &n.stats[i].Stats
		s.Injected += p.Injected
		s.Delivered += p.Delivered
		s.Consumed += p.Consumed
		s.Flits += p.Flits
		s.FlitHops += p.FlitHops
	}
	return s
}

// InFlight is the number of packets injected and not yet delivered.
func (n *Network) InFlight() int {
	s := n.Stats()
	return int(s.Injected - s.Delivered)
}

// Queued is the number of packets waiting in node's injection queue (not yet on its link).
func (n *Network) Queued(node int) int { return int(n.nic[node].n) }

// OnLeave calls f once, at the time a packet leaves node's injection queue for its link, so
// that a sender can hold its next packet until its NIC has room (the queue itself is
// unbounded). Each packet that leaves calls the longest-waiting f. f runs inside the
// fabric's event, at the time it gives: it may Inject at that time.
func (n *Network) OnLeave(node int, f func(now netsim.Time)) {
	if n.leftWait == nil {
		n.leftWait = make([][]func(netsim.Time), len(n.nic))
	}
	n.leftWait[node] = append(n.leftWait[node], f)
}

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
	case now < n.NodeEngine(p.Src).Now():
		return fmt.Errorf("inject packet %d at %v: %w (the engine is at %v)", p.ID, now, ErrBadTime, n.NodeEngine(p.Src).Now())
	case now < n.lastInj[p.Src]:
		return fmt.Errorf("inject packet %d at %v: %w (node %d injected at %v)", p.ID, now, ErrBadTime, p.Src, n.lastInj[p.Src])
	}
	// The number is the source's own count, so that it is the same whichever part of a
	// netsim.Parts the node runs on: oldest-first's tie-break and the timeline's flows.
	p.seq = uint64(n.nseq[p.Src])*uint64(len(n.nic)) + uint64(p.Src) + 1
	n.nseq[p.Src]++
	p.net = n
	p.Flits = int32(n.cfg.Flits(p.Bytes))
	p.InjectedAt, p.ArrivedAt = now, 0
	p.Hops, p.VC, p.zeroLoad = 0, 0, 0
	p.hop, p.requested = StartHop, false
	p.state = stQueued
	n.lastInj[p.Src] = now
	n.stats[n.nodePart(p.Src)].Injected++
	if n.flight != nil {
		f := &n.flight[n.nodePart(p.Src)]
		f.in = append(f.in, now)
	}
	q := &n.nic[p.Src]
	q.push(p)
	if q.n == 1 {
		n.waits(len(n.in)+p.Src, true)
		n.tryInject(p.Src, n.NodeEngine(p.Src).Now())
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
	n.stats[n.nodePart(node)].Consumed++
	now = max(now, n.NodeEngine(node).Now())
	if n.tracer != nil {
		n.tracer.Consumed(now, p)
	}
	o := int(n.nodeOut[node])
	n.giveBack(o, n.ovc(o, 0), p.Flits, now+n.out[o].latency)
	return nil
}
