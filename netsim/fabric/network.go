package fabric

import (
	"errors"
	"fmt"

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
	latency   netsim.Time
	flitTime  netsim.Time // at the lower of the link and (for a router) switch rates
	hold      netsim.Time // switch latency before the link (0 for a node)
	busyUntil netsim.Time
	rr        int32   // round-robin: the requester granted last
	reqs      []int32 // input virtual channels (in*V+vc) whose head packet wants this port
}

// inPort is the receiving end of a link at a router.
type inPort struct {
	upstream  int32 // the outPort feeding it (credits go back there)
	router    int32
	busyUntil netsim.Time // the crossbar input is streaming a packet out until then
}

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

// Event kinds, in the low bits of an event's arg.
const (
	evReady   = iota // an input VC's head may have finished the router pipeline: arg>>3 = in*V+vc
	evFree           // a transfer has ended: out = arg>>3 & mask, in = arg>>33
	evCredit         // credits come back to an output: see creditArg
	evDeliver        // a tail reaches a node: arg>>3 = node
	evInject         // a queued injection's time has come: arg>>3 = node
	kindBits  = 3
	kindMask  = 1<<kindBits - 1
	portMask  = 1<<30 - 1
	noPort    = portMask
)

func creditArg(out, vc, flits int) int64 {
	return evCredit | int64(vc)<<kindBits | int64(flits)<<(kindBits+6) | int64(out)<<(kindBits+6+21)
}

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
	out      []outPort // router ports first, then one injection port per node
	credits  []int32   // out*V+vc: free flits in the downstream buffer
	vcq      []ring    // in*V+vc

	nodeIn  []int32 // node's router input port (its injection link's end)
	nodeOut []int32 // node's router output port (its ejection link's start)
	nic     []ring  // node's injection queue (unbounded)
	arrive  []ring  // node's ejection link: packets whose tails are on the way, in order
	lastInj []netsim.Time
	eps     []Endpoint

	seq   uint64
	stats Stats
}

// New builds topo with cfg on eng.
func New(eng *netsim.Engine, topo Topology, cfg Config) (*Network, error) {
	if eng == nil || topo == nil {
		return nil, fmt.Errorf("%w: need an engine and a topology", ErrBadConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if _, ok := topo.(*Torus); ok && !cfg.NoDateline && cfg.VCs%2 != 0 {
		return nil, fmt.Errorf("%w: the torus's dateline needs an even number of VCs, not %d", ErrBadConfig, cfg.VCs)
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
	if total+nodes >= portMask || total*cfg.VCs >= 1<<31 {
		return nil, fmt.Errorf("%w: %d ports is too many", ErrBadConfig, total)
	}
	n.in = make([]inPort, total)
	n.out = make([]outPort, total+nodes)
	n.credits = make([]int32, len(n.out)*n.v)
	n.vcq = make([]ring, total*n.v)
	for i := range n.in {
		n.in[i].upstream = -1
	}
	for i := range n.out {
		n.out[i].down, n.out[i].owner = noPort, noPort
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
			n.credits[o*n.v+vc] = int32(cfg.BufferFlits)
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
		n.credits[p*n.v] = int32(cfg.EjectBufferFlits)
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
		if now > n.eng.Now() {
			n.eng.At(now, n, evInject|int64(p.Src)<<kindBits)
		} else {
			n.tryInject(p.Src, now)
		}
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
	o := int(n.nodeOut[node])
	n.eng.At(max(now, n.eng.Now())+n.out[o].latency, n, creditArg(o, 0, int(p.Flits)))
	return nil
}

// Fire runs one of the network's events (netsim.Handler).
func (n *Network) Fire(now netsim.Time, arg int64) {
	switch arg & kindMask {
	case evReady:
		key := int(arg >> kindBits)
		if p := n.vcq[key].front(); p != nil && !p.requested && p.ready <= now {
			n.request(key, p, now)
		}
	case evFree:
		o, i := int(arg>>kindBits)&portMask, int(arg>>(kindBits+30))
		if ow := n.out[o].owner; ow < 0 {
			n.tryInject(int(-1-ow), now)
		} else {
			n.tryOutput(o, now)
		}
		if i != noPort {
			// The input is free again: its other waiting VCs may go now.
			for k := i * n.v; k < (i+1)*n.v; k++ {
				if p := n.vcq[k].front(); p != nil && p.requested && int(p.out) != o {
					n.tryOutput(int(p.out), now)
				}
			}
		}
	case evCredit:
		vc := int(arg>>kindBits) & 63
		flits := int(arg>>(kindBits+6)) & (1<<21 - 1)
		o := int(arg >> (kindBits + 6 + 21))
		n.credits[o*n.v+vc] += int32(flits)
		if ow := n.out[o].owner; ow < 0 {
			n.tryInject(int(-1-ow), now)
		} else {
			n.tryOutput(o, now)
		}
	case evDeliver:
		n.deliver(int(arg>>kindBits), now)
	case evInject:
		n.tryInject(int(arg>>kindBits), now)
	}
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

// pickVC is the output VC in p's range that takes p whole, or -1.
func (n *Network) pickVC(o int, p *Packet) int {
	lo, hi := int(p.vcLo), int(p.vcHi)
	c := n.credits[o*n.v:]
	if n.cfg.InOrder && hi-lo > 1 {
		w := lo + (p.Src*7919+p.Dst)%(hi-lo)
		if c[w] >= p.Flits {
			return w
		}
		return -1
	}
	best := -1
	for w := lo; w < hi; w++ {
		if c[w] >= p.Flits && (best < 0 || c[w] > c[best]) {
			best = w
		}
	}
	return best
}

// tryOutput grants output o to one waiting packet, if the port is free and one can go.
func (n *Network) tryOutput(o int, now netsim.Time) {
	op := &n.out[o]
	if op.busyUntil > now || len(op.reqs) == 0 {
		return
	}
	best, bestIdx, bestVC := -1, -1, -1
	var bp *Packet
	for idx, k32 := range op.reqs {
		key := int(k32)
		if n.in[key/n.v].busyUntil > now {
			continue
		}
		p := n.vcq[key].front()
		w := n.pickVC(o, p)
		if w < 0 {
			continue
		}
		better := best < 0
		if !better {
			switch n.cfg.Arbiter {
			case OldestFirst:
				better = p.InjectedAt < bp.InjectedAt || p.InjectedAt == bp.InjectedAt && p.seq < bp.seq
			default: // round-robin: the first key after the last granted
				better = uint32(key-int(op.rr)-1) < uint32(best-int(op.rr)-1)
			}
		}
		if better {
			best, bestIdx, bestVC, bp = key, idx, w, p
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
	// The buffer space the packet leaves goes back upstream when its tail has left.
	up := int(n.in[i].upstream)
	n.eng.At(end+n.out[up].latency, n, creditArg(up, best%n.v, int(bp.Flits)))
	if p := q.front(); p != nil && p.ready <= now {
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
	if p.InjectedAt > now {
		return // its evInject is on the way
	}
	o := len(n.in) + node
	if n.out[o].busyUntil > now {
		return // the evFree at busyUntil tries again
	}
	p.vcLo, p.vcHi = 0, uint8(n.v)
	w := n.pickVC(o, p)
	if w < 0 {
		return // an evCredit tries again
	}
	q.pop()
	n.send(o, w, p, now, noPort)
	if next := q.front(); next != nil && next.InjectedAt > now {
		n.eng.At(next.InjectedAt, n, evInject|int64(node)<<kindBits)
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
	n.eng.At(end, n, evFree|int64(o)<<kindBits|int64(in)<<(kindBits+30))
	n.credits[o*n.v+w] -= p.Flits
	n.stats.FlitHops += uint64(p.Flits)
	if in != noPort {
		p.Hops++
	}
	p.state = stNetwork
	p.VC = uint8(w)
	head := now + op.hold + op.latency + f
	p.tailAt = end + op.hold + op.latency
	if op.down < 0 {
		node := int(-1 - op.down)
		n.arrive[node].push(p)
		n.eng.At(p.tailAt, n, evDeliver|int64(node)<<kindBits)
		return end
	}
	key := int(op.down)*n.v + w
	p.ready = head + n.cfg.Pipeline()
	n.vcq[key].push(p)
	n.eng.At(p.ready, n, evReady|int64(key)<<kindBits)
	return end
}

func (n *Network) deliver(node int, now netsim.Time) {
	p := n.arrive[node].pop()
	p.state = stDelivered
	p.ArrivedAt = now
	n.stats.Delivered++
	n.stats.Flits += uint64(p.Flits)
	if ep := n.eps[node]; ep != nil {
		ep.Receive(now, p)
		return
	}
	_ = n.Consumed(now, node, p)
}
