// Package cluster is a machine of nodes on a fabric, each a host running a rank and its NIC (NSIM-ACE).
package cluster

// cluster is a machine of nodes on a fabric: each node a host that runs one rank's
// program and a NIC that moves its data, as NSIM-ACE models them (the NSIM-ACE paper's section 2.2).
//
// A put (Rank.Put) costs the issuing rank the node latency (the NSIM-ACE paper's "node latency": the
// communication library's overhead with the minimum memory and DMA latencies), then the NIC
// reads the data from host memory by DMA, a packet of at most MTU bytes at a time, and hands
// each packet to the fabric as soon as it is read. The target NIC writes each arriving
// packet's data to memory by DMA; when the last byte is in memory the put has landed (a Poll
// on its tag returns) and the target NIC sends a control packet back; its arrival at the
// initiator completes the put (Complete returns). A get (Rank.Get) sends a request packet;
// the target NIC reads the data and sends it back as a put would, with no control packet.
// Send and Recv are MPI eager messages matched as drivers/mpi matches them (source and tag,
// wildcards, the unexpected queue).
//
// Programs are plain Go functions of a *Rank, run as coroutines (iter.Pull) by the one
// goroutine that runs the engine: a blocking call (Poll, Complete, Recv, Comp) suspends the
// program until the event that satisfies it, so a run is deterministic. A program that
// waits for something that never comes is reported with the ranks still waiting and what
// they wait for; a call with bad arguments fails the run with the rank and the call.

import (
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Config is the machine around the fabric. Parameters cite their source.
type Config struct {
	// DMABandwidth is the NIC's DMA rate between host memory and the NIC, GB/s, each
	// direction. source: the NSIM-ACE paper's Table 1, DMA 転送速度 2.8 GB/s.
	DMABandwidth float64
	// NodeLatency is charged to a rank for each communication call it issues (Put, Get,
	// Send). source: the NSIM-ACE paper's section 5.1: a free parameter, 0 or 0.8..1.2 µs; 1.0 µs
	// matched their machine.
	NodeLatency netsim.Time
	// MTU is the largest packet on the wire, header included. assumption: 1024 bytes, the
	// largest packet the fabric's default buffers hold (Susukita et al.'s NSIM-ACE paper gives no MTU).
	MTU int
	// RxBufferBytes is the NIC's receive buffer: packets taken from the fabric wait there for
	// the DMA write to host memory. Full, the NIC leaves packets in the fabric's ejection
	// buffer (back-pressure). assumption: 16 KiB, enough for the DMA to stream (Susukita et al.'s NSIM-ACE paper
	// gives no size).
	RxBufferBytes int
	// HeaderBytes is each packet's header; a control packet or a get request is a header
	// alone. assumption: 32 bytes (an InfiniBand-sized LRH+BTH+RETH+CRC header; Susukita et al.'s NSIM-ACE paper gives
	// none).
	HeaderBytes int
}

// DefaultConfig is the NSIM-ACE paper's node with a node latency of 1.0 µs.
func DefaultConfig() Config {
	return Config{DMABandwidth: 2.8, NodeLatency: netsim.Microsecond, MTU: 1024, RxBufferBytes: 16 << 10, HeaderBytes: 32}
}

// Validate reports the first parameter that cannot work.
func (c Config) Validate() error {
	switch {
	case c.DMABandwidth <= 0:
		return fmt.Errorf("cluster: DMA bandwidth %g GB/s: want > 0", c.DMABandwidth)
	case c.NodeLatency < 0:
		return fmt.Errorf("cluster: node latency %v: want >= 0", c.NodeLatency)
	case c.HeaderBytes < 1:
		return fmt.Errorf("cluster: header of %d bytes: want >= 1", c.HeaderBytes)
	case c.MTU <= c.HeaderBytes:
		return fmt.Errorf("cluster: MTU %d bytes: want more than the %d-byte header", c.MTU, c.HeaderBytes)
	case c.RxBufferBytes < c.MTU:
		return fmt.Errorf("cluster: receive buffer of %d bytes: want at least the MTU (%d)", c.RxBufferBytes, c.MTU)
	}
	return nil
}

// DMATime is how long a DMA engine takes for n bytes.
func (c Config) DMATime(n int) netsim.Time {
	return netsim.Time(float64(n)*1000/c.DMABandwidth + 0.5)
}

// Program is what one rank runs.
type Program func(r *Rank)

// Cluster is the machine: the engine (or the parts of a netsim.Parts), the fabric and a node
// per fabric endpoint.
type Cluster struct {
	cfg Config
	// ms are the engines' machines, one per part (one: a single engine): the ranks'
	// programs; a machine stops on its first failure.
	ms    []*netsim.Machine
	parts *netsim.Parts // nil: one engine, events in the order they were scheduled
	net   *fabric.Network
	nodes []*node
	// ids is the number the next message gets on one part (messages issued since the last
	// run that left nothing behind); on several parts each node numbers its own.
	ids uint64
	obs Observer   // Observe's, or nil
	ops OpObserver // obs, when it is one
	// own is what each part's events alone touch (one: a single engine): its packets,
	// sends and messages free for reuse and its count of packets read.
	own []partState
	// progress, when set, is told the simulated time every progressPackets data packets a
	// part's DMAs read (OnProgress).
	progress func(now netsim.Time)
}

// partState is a part's own: only the events of its nodes touch it, so parts running at
// once share no counter and no free list (a counter both updated on every packet, even an
// atomic one, would bounce its cache line between the cores).
type partState struct {
	// free are packets given back by this part's nodes (consumed at their destination),
	// ready to be sent again by any of its nodes: a run on parts allocates packets only
	// while the number in flight grows, and the collector has less to do
	// (docs/performance.md).
	free pool[fabric.Packet]
	// sends are pacedSends done with, and msgs PostSend messages landed here (recycleSend,
	// recycleMessage), for the part's nodes to use again.
	sends pool[pacedSend]
	msgs  pool[message]
	// read counts the data packets this part's DMAs have read (OnProgress).
	read uint64
	_    [64]byte // parts' fields on cache lines of their own
}

// pool is a part's spare values of one kind, at most max of them: packets and messages sent
// from one part and consumed on another pile up on the second when the traffic goes mostly
// one way, and past the bound they are left to the collector.
type pool[T any] struct {
	spare []*T
	max   int
}

// get is a spare value, or a new one.
func (p *pool[T]) get() *T {
	if k := len(p.spare); k > 0 {
		v := p.spare[k-1]
		p.spare = p.spare[:k-1]
		return v
	}
	return new(T)
}

// put keeps v for get, unless the pool holds max already.
func (p *pool[T]) put(v *T) {
	if len(p.spare) < p.max {
		p.spare = append(p.spare, v)
	}
}

// progressPackets is how often OnProgress's function is called: every 65,536 data packets
// (64 MiB at the default MTU), a few times a second of the simulator's time.
const progressPackets = 1 << 16

// OnProgress calls f with the simulated time every 65,536 data packets the NICs read, so
// that a run of a few huge messages (a GOAL send of a TiB: two operations, hours of wall
// time) can show how far it has gone. It adds no event and changes nothing else. On several
// parts each part counts its own NICs' packets and f is called from the thread of the part
// whose count reached a multiple of 65,536.
func (c *Cluster) OnProgress(f func(now netsim.Time)) { c.progress = f }

// New builds a cluster of one node per endpoint of net. On a network built on parts
// (fabric.NewParts, any number of them) every node's events are keyed (netsim.Engine.AtKey:
// the node and its own count), its rank and NIC run on its router's part, and a run gives
// the same results on any number of parts; on a network of one engine (fabric.New) they run
// in the order they were scheduled, as they always have.
func New(net *fabric.Network, cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fc := net.Config()
	if largest := fc.LargestPacket(); cfg.MTU > largest {
		return nil, fmt.Errorf("cluster: MTU %d bytes: the fabric takes packets of at most %d", cfg.MTU, largest)
	}
	c := &Cluster{cfg: cfg, net: net, parts: net.Parts()}
	var space uint64
	if c.parts == nil {
		c.ms = []*netsim.Machine{netsim.NewMachine(net.Engine())}
	} else {
		for i := range c.parts.Len() {
			c.ms = append(c.ms, netsim.NewMachine(c.parts.Engine(i)))
		}
		space = net.Engine().NewKeySpace()
		// The ranks are coroutines, which a failed run unwinds from the caller's goroutine.
		c.parts.SetLockThreads(false)
	}
	engs := c.engines()
	c.own = make([]partState, len(c.ms))
	for i := range net.Nodes() {
		eng := net.NodeEngine(i)
		part := slices.Index(engs, eng)
		m := c.ms[part]
		n := &node{c: c, id: i, m: m, eng: eng, own: &c.own[part]}
		if len(c.ms) > 1 {
			n.own.free.max += freePerNode // (packets are reused on parts only: freePerNode)
		}
		n.own.sends.max += freeSendsPerNode
		n.own.msgs.max += freeSendsPerNode
		n.rank = &Rank{n: n, p: m.NewProc(fmt.Sprintf("rank %d", i))}
		if c.parts != nil {
			n.keys = netsim.NewKeys(space, i, net.Nodes())
			n.rank.p.SetKeys(n.keys)
		}
		c.nodes = append(c.nodes, n)
		if err := net.Attach(i, n); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// packetsRead is the number of data packets the NICs' DMAs have read, on every part.
func (c *Cluster) packetsRead() uint64 {
	var n uint64
	for i := range c.own {
		n += c.own[i].read
	}
	return n
}

// engines are the parts' engines, part by part (one: the network's).
func (c *Cluster) engines() []*netsim.Engine {
	es := make([]*netsim.Engine, len(c.ms))
	for i, m := range c.ms {
		es[i] = m.Engine()
	}
	return es
}

// Now is the simulated time: the latest any part has run to (its last event's).
func (c *Cluster) Now() netsim.Time {
	var t netsim.Time
	for _, m := range c.ms {
		t = max(t, m.Now())
	}
	return t
}

// Fired is the number of events run so far, on every part.
func (c *Cluster) Fired() uint64 {
	var n uint64
	for _, m := range c.ms {
		n += m.Engine().Fired()
	}
	return n
}

// Parts is the parts the machine runs on (nil: one engine, events in scheduling order).
func (c *Cluster) Parts() *netsim.Parts { return c.parts }

// Config returns the machine's parameters.
func (c *Cluster) Config() Config { return c.cfg }

// Network returns the fabric.
func (c *Cluster) Network() *fabric.Network { return c.net }

// Size is the number of ranks (one per node).
func (c *Cluster) Size() int { return len(c.nodes) }

// Result is what a run measured.
type Result struct {
	// Finished is each rank's program's end, and End the last of them.
	Finished []netsim.Time
	End      netsim.Time
	Events   uint64 // engine events the run took
	Puts     int    // puts, gets and sends issued
}

// ErrHang is wrapped by the error of a run whose programs wait for what never comes.
var ErrHang = netsim.ErrHang

// Run starts prog(rank) on ranks [0, n) at the engine's current time (the other nodes stay
// idle), runs the engine until every program has returned, and reports when each did.
func (c *Cluster) Run(n int, prog Program) (Result, error) {
	if n < 1 || n > len(c.nodes) {
		return Result{}, fmt.Errorf("cluster: %d ranks on %d nodes", n, len(c.nodes))
	}
	start := c.Fired()
	for _, m := range c.ms {
		m.Abandon()
		m.ClearErr()
	}
	now := c.Now()
	for _, nd := range c.nodes[:n] {
		nd.rank.start(now, prog)
	}
	err := c.drain()
	res := Result{Finished: make([]netsim.Time, n), Events: c.Fired() - start}
	for _, nd := range c.nodes {
		res.Puts += int(nd.issued)
	}
	for i, nd := range c.nodes {
		if f, ok := nd.path.(interface{ Err() error }); ok && f.Err() != nil && c.Err() == nil {
			nd.m.Fail(fmt.Errorf("cluster: node %d: receive path: %w", i, f.Err()))
			err = c.Err()
		}
	}
	for i, nd := range c.nodes[:n] {
		if p := nd.rank.p; p.State() != netsim.Waiting {
			res.Finished[i] = p.End()
			res.End = max(res.End, p.End())
		}
	}
	for _, m := range c.ms {
		m.Abandon()
	}
	if err == nil && c.net.InFlight() == 0 {
		// Nothing refers to this run's messages any more: the next run numbers its own from 0.
		c.ids = 0
		for _, nd := range c.nodes {
			nd.issued = 0
		}
	}
	if err != nil && c.Err() == nil {
		return res, fmt.Errorf("cluster: %w", err)
	}
	return res, err
}

// drain runs every event (until none is left or a failure) and returns the failure, or the
// hang of the programs still waiting.
func (c *Cluster) drain() error {
	if c.parts == nil {
		return c.ms[0].Drain()
	}
	c.parts.Run(netsim.Never)
	if err := c.Err(); err != nil {
		return err
	}
	return netsim.Hang(c.ms...)
}

// SetNodeLatency changes the node latency for the runs that follow (a sweep reuses one
// machine).
func (c *Cluster) SetNodeLatency(t netsim.Time) error {
	if t < 0 {
		return fmt.Errorf("cluster: node latency %v: want >= 0", t)
	}
	c.cfg.NodeLatency = t
	return nil
}

// SetReceivePath makes rp take node's MPI eager messages (Send) instead of the DMA to host
// memory; puts and gets still go by DMA. A Recv at that node returns once rp has taken the
// message.
func (c *Cluster) SetReceivePath(node int, rp ReceivePath) error {
	if node < 0 || node >= len(c.nodes) {
		return fmt.Errorf("cluster: receive path for node %d of %d", node, len(c.nodes))
	}
	c.nodes[node].path = rp
	return nil
}

// Build makes a whole machine: a new engine, the fabric of topo and a cluster on it.
func Build(topo fabric.Topology, fc fabric.Config, cfg Config) (*Cluster, error) {
	net, err := fabric.New(&netsim.Engine{}, topo, fc)
	if err != nil {
		return nil, err
	}
	return New(net, cfg)
}

// BuildParts makes a whole machine on parts parts of a netsim.Parts (fabric.NewParts: 1 to
// fabric.MaxParts), its events keyed: the same results on any number of parts. The caller
// closes the parts (Parts().Close()) when done with it.
func BuildParts(topo fabric.Topology, fc fabric.Config, cfg Config, parts int) (*Cluster, error) {
	net, ps, err := fabric.NewParts(topo, fc, parts)
	if err != nil {
		return nil, err
	}
	c, err := New(net, cfg)
	if err != nil {
		ps.Close()
		return nil, err
	}
	return c, nil
}
