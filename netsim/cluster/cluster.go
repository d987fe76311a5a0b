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

// Cluster is the machine: the engine, the fabric and a node per fabric endpoint.
type Cluster struct {
	cfg   Config
	m     *netsim.Machine // the engine and the ranks' programs; it stops on the first failure
	eng   *netsim.Engine
	net   *fabric.Network
	nodes []*node
	msgs  []*message // every put, get and send, by Packet.ID
	obs   Observer   // Observe's, or nil
	ops   OpObserver // obs, when it is one
	// read counts the data packets the DMAs have read; progress, when set, is told the
	// simulated time every progressPackets of them (OnProgress).
	read     uint64
	progress func(now netsim.Time)
}

// progressPackets is how often OnProgress's function is called: every 65,536 data packets
// (64 MiB at the default MTU), a few times a second of the simulator's time.
const progressPackets = 1 << 16

// OnProgress calls f with the simulated time every 65,536 data packets the NICs read, so
// that a run of a few huge messages (a GOAL send of a TiB: two operations, hours of wall
// time) can show how far it has gone. It adds no event and changes nothing else.
func (c *Cluster) OnProgress(f func(now netsim.Time)) { c.progress = f }

// New builds a cluster of one node per endpoint of net.
func New(net *fabric.Network, cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fc := net.Config()
	if largest := fc.LargestPacket(); cfg.MTU > largest {
		return nil, fmt.Errorf("cluster: MTU %d bytes: the fabric takes packets of at most %d", cfg.MTU, largest)
	}
	c := &Cluster{cfg: cfg, m: netsim.NewMachine(net.Engine()), eng: net.Engine(), net: net}
	for i := range net.Nodes() {
		n := &node{c: c, id: i}
		n.rank = &Rank{n: n, p: c.m.NewProc(fmt.Sprintf("rank %d", i))}
		c.nodes = append(c.nodes, n)
		if err := net.Attach(i, n); err != nil {
			return nil, err
		}
	}
	return c, nil
}

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
	start := c.eng.Fired()
	c.m.Abandon()
	c.m.ClearErr()
	for _, nd := range c.nodes[:n] {
		nd.rank.start(prog)
	}
	err := c.m.Drain()
	res := Result{Finished: make([]netsim.Time, n), Events: c.eng.Fired() - start, Puts: len(c.msgs)}
	for i, nd := range c.nodes {
		if f, ok := nd.path.(interface{ Err() error }); ok && f.Err() != nil && c.m.Err() == nil {
			c.m.Fail(fmt.Errorf("cluster: node %d: receive path: %w", i, f.Err()))
			err = c.m.Err()
		}
	}
	for i, nd := range c.nodes[:n] {
		if p := nd.rank.p; p.State() != netsim.Waiting {
			res.Finished[i] = p.End()
			res.End = max(res.End, p.End())
		}
	}
	c.m.Abandon()
	if err == nil && c.net.InFlight() == 0 {
		// Nothing refers to this run's messages any more: a sweep of runs on one machine
		// keeps only one run's worth.
		clear(c.msgs)
		c.msgs = c.msgs[:0]
	}
	if err != nil && c.m.Err() == nil {
		return res, fmt.Errorf("cluster: %w", err)
	}
	return res, err
}

// fail records the first failure and stops the engine.
func (c *Cluster) fail(err error) { c.m.Fail(err) }

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
