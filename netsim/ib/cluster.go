package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// ReceiveMode is where a node's QPs take their receive buffers.
type ReceiveMode string

const (
	// SharedRQ is the PM/InfiniBand-FJ paper's ASQP/SRQP: one shared receive queue feeds every connection.
	SharedRQ ReceiveMode = "srq"
	// PerPeerRQ is plain RC: each QP has its own receive queue and buffers.
	PerPeerRQ ReceiveMode = "rc"
)

// Config is a machine: its nodes, their network and how each node lays out its queues.
type Config struct {
	Params Params
	// Nodes on a crossbar of one switch (the PM/InfiniBand-FJ paper's GC-LE cluster: one 8-port RedSwitch).
	Nodes int
	// Topology, when set, is the network instead (fattree:16x2 is 256 nodes on 32-port
	// switches, close to the PM/InfiniBand-FJ paper's 256-node machine). A checkpoint
	// carries it as its text (CheckpointMeta.Topology).
	Topology fabric.Topology `json:"-"`
	// Receive is the receive-buffer design.
	Receive ReceiveMode
	// RecvDepth is the receive WQEs (and MaxMessage buffers) posted per QP (PerPeerRQ) or in
	// the shared queue (SharedRQ). source: the PM/InfiniBand-FJ paper's §5.4 (at least 128 per RC QP) and §6
	// (an 8 MB receive buffer: 1,024 of 8 KB).
	RecvDepth int
	// SQDepth is each QP's send queue; CQDepth each completion queue.
	SQDepth, CQDepth int
	// OneCQ puts send and receive completions in one CQ (a host that waits for either).
	OneCQ bool
	// SendBuffers is the pool of MaxMessage send buffers (the PM/InfiniBand-FJ paper's §6: 4 MB, 512 of 8 KB).
	SendBuffers int
	// RDMABytes is a remotely writable region per node for RDMA writes.
	RDMABytes int
	// Seed drives the programs' random choices.
	Seed uint64
}

// DefaultConfig is two GC-LE nodes with the PM/InfiniBand-FJ paper's buffer sizes.
func DefaultConfig() Config {
	return Config{Params: GCLE(), Nodes: 2, Receive: SharedRQ, RecvDepth: 1024, SQDepth: 64, CQDepth: 1024,
		SendBuffers: 512, RDMABytes: 1 << 20, Seed: 1}
}

// Validate reports what cannot work.
func (c Config) Validate() error {
	if err := c.Params.Validate(); err != nil {
		return err
	}
	switch {
	case c.Topology == nil && (c.Nodes < 2 || c.Nodes > 4096):
		return fmt.Errorf("ib: %d nodes: want 2..4096", c.Nodes)
	case c.Receive != SharedRQ && c.Receive != PerPeerRQ:
		return fmt.Errorf("ib: receive mode %q: want srq or rc", c.Receive)
	case c.RecvDepth < 1 || c.RecvDepth > 1<<16:
		return fmt.Errorf("ib: receive depth %d: want 1..65536", c.RecvDepth)
	case c.SQDepth < 1 || c.SQDepth > 1<<16 || c.CQDepth < 1 || c.CQDepth > 1<<20:
		return fmt.Errorf("ib: SQ depth %d, CQ depth %d: want 1..65536 and 1..1048576", c.SQDepth, c.CQDepth)
	case c.SendBuffers < 1 || c.RDMABytes < 0:
		return fmt.Errorf("ib: %d send buffers, %d RDMA bytes", c.SendBuffers, c.RDMABytes)
	}
	return nil
}

// topology is the configuration's fabric topology.
func (c Config) topology() (fabric.Topology, error) {
	if c.Topology != nil {
		return c.Topology, nil
	}
	return fabric.NewCrossbar(c.Nodes)
}

// Cluster is the machine: one engine, the InfiniBand subnet (netsim/fabric) and a node per
// endpoint, each a host memory, an HCA and a host running a program.
type Cluster struct {
	cfg   Config
	p     Params
	m     *netsim.Machine // the engine and the hosts' programs; it stops on the first failure
	eng   *netsim.Engine
	net   *fabric.Network
	nodes []*Node

	pkts  []*packet // in flight, by fabric packet ID
	free  []uint64  // IDs to reuse
	fpkts []*fabric.Packet
	ckpt  *ckptState
	tr    Tracer
}

// Node is one machine of the cluster.
type Node struct {
	ID     int
	Mem    *Memory
	HCA    *HCA
	Host   *Host
	Layout Layout
}

// Build makes the machine of cfg: every node's memory laid out, its QPs connected to every
// other node's, its receive queues and CQs made, its buffers registered; no program yet.
func Build(cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	topo, err := cfg.topology()
	if err != nil {
		return nil, fmt.Errorf("ib: %w", err)
	}
	n := topo.Nodes()
	if n < 2 || n > 4096 {
		return nil, fmt.Errorf("ib: %s has %d nodes: want 2..4096", topo, n)
	}
	cfg.Nodes = n
	m := netsim.NewMachine(nil)
	c := &Cluster{cfg: cfg, p: cfg.Params, m: m, eng: m.Engine()}
	c.net, err = fabric.New(c.eng, topo, c.p.FabricConfig())
	if err != nil {
		return nil, fmt.Errorf("ib: %w", err)
	}
	// The HCAs' events are ordered as scheduled, and a checkpoint's restart, which builds
	// the network afresh, goes on bit for bit only with the fabric's taking turns among them.
	c.net.OrderByScheduling()
	for i := range n {
		nd := &Node{ID: i, Mem: newMemory()}
		nd.HCA = newHCA(c, i, nd.Mem)
		nd.Layout = layoutNode(cfg, i, nd.Mem, nd.HCA)
		nd.Host = newHost(c, nd)
		c.nodes = append(c.nodes, nd)
		if err := c.net.Attach(i, &nd.HCA.rq); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Config is the machine's configuration (its Nodes set from the topology).
func (c *Cluster) Config() Config { return c.cfg }

// Params are the HCA and bus parameters.
func (c *Cluster) Params() Params { return c.p }

// Engine is the event engine.
func (c *Cluster) Engine() *netsim.Engine { return c.eng }

// Network is the InfiniBand subnet.
func (c *Cluster) Network() *fabric.Network { return c.net }

// Nodes are the machine's nodes.
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Node is node i.
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// fail records the first failure and stops the engine.
func (c *Cluster) fail(err error) { c.m.Fail(err) }

// Err is the failure that stopped the run, if any.
func (c *Cluster) Err() error { return c.m.Err() }

// send puts pk on the wire at now.
func (c *Cluster) send(now netsim.Time, pk *packet) {
	var id uint64
	if k := len(c.free); k > 0 {
		id, c.free = c.free[k-1], c.free[:k-1]
		c.pkts[id] = pk
	} else {
		id = uint64(len(c.pkts))
		c.pkts = append(c.pkts, pk)
	}
	var fp *fabric.Packet
	if k := len(c.fpkts); k > 0 {
		fp, c.fpkts = c.fpkts[k-1], c.fpkts[:k-1]
	} else {
		fp = &fabric.Packet{}
	}
	*fp = fabric.Packet{Src: pk.src, Dst: pk.dst, Bytes: pk.wireBytes(), ID: id, Kind: uint8(pk.op)}
	if err := c.net.Inject(now, fp); err != nil {
		c.fail(fmt.Errorf("ib: node %d: %w", pk.src, err))
	}
}

func (c *Cluster) packet(fp *fabric.Packet) *packet { return c.pkts[fp.ID] }

// consume gives the packet's buffer back to the fabric and its slot to the table.
func (c *Cluster) consume(now netsim.Time, fp *fabric.Packet) {
	id := fp.ID
	c.pkts[id] = nil
	c.free = append(c.free, id)
	if err := c.net.Consumed(now, fp.Dst, fp); err != nil {
		c.fail(fmt.Errorf("ib: node %d: %w", fp.Dst, err))
		return
	}
	c.fpkts = append(c.fpkts, fp)
}

// ErrHang is wrapped by the error of a run whose hosts wait for what never comes.
var ErrHang = netsim.ErrHang

// Layout is where a node keeps its queues and buffers, and the keys of its regions.
type Layout struct {
	QPs       []uint32 // QP number to each node (0 for itself)
	SendCQ    uint32
	RecvCQ    uint32
	SRQ       int32 // -1 with per-peer receive queues
	SendBuf   uint64
	SendMR    MR
	RecvBuf   uint64 // receive buffers, MaxMessage each: RecvDepth (shared) or RecvDepth per QP
	RecvMR    MR
	RDMA      uint64
	RDMAMR    MR
	SaveArea  uint64
	SaveBytes int
	// RecvBytes and RecvRingBytes are the receive buffers and receive WQ rings, in bytes.
	RecvBytes, RecvRingBytes uint64
}

// ReceiveBytes is what the receive design needs per node on n nodes: MaxMessage buffers and
// 64-byte WQEs, RecvDepth per peer (PerPeerRQ) or RecvDepth in one shared queue.
func ReceiveBytes(cfg Config, n int) (buffers, rings uint64) {
	queues := uint64(1)
	if cfg.Receive == PerPeerRQ {
		queues = uint64(n - 1)
	}
	d := uint64(cfg.RecvDepth)
	return queues * d * uint64(cfg.Params.MaxMessage), queues * d * uint64(cfg.Params.WQEBytes)
}

// layoutNode allocates node id's queues and buffers in mem, makes its CQs, receive queues
// and QPs on h, and registers its buffers. QP numbers are the same on every node: QP to peer
// j is number j+1 on node id (j != id), so node j's QP to id is id+1.
func layoutNode(cfg Config, id int, mem *Memory, h *HCA) Layout {
	p := &cfg.Params
	n := cfg.Nodes
	l := Layout{SRQ: -1, QPs: make([]uint32, n)}
	l.SendCQ = h.createCQ(mem.alloc(uint64(cfg.CQDepth*p.CQEBytes)), uint32(cfg.CQDepth))
	l.RecvCQ = l.SendCQ
	if !cfg.OneCQ {
		l.RecvCQ = h.createCQ(mem.alloc(uint64(cfg.CQDepth*p.CQEBytes)), uint32(cfg.CQDepth))
	}
	l.RecvBytes, l.RecvRingBytes = ReceiveBytes(cfg, n)
	if cfg.Receive == SharedRQ {
		l.SRQ = h.createSRQ(mem.alloc(uint64(cfg.RecvDepth*p.WQEBytes)), uint32(cfg.RecvDepth), l.RecvCQ)
	}
	// Every node makes n QP numbers (one per node, its own unused) so that numbers match.
	for j := range n {
		qc := qpConfig{Peer: j, PeerQP: uint32(id + 1), SQAddr: mem.alloc(uint64(cfg.SQDepth * p.WQEBytes)), SQDepth: uint32(cfg.SQDepth),
			SRQ: l.SRQ, SendCQ: l.SendCQ, RecvCQ: l.RecvCQ}
		if cfg.Receive == PerPeerRQ {
			qc.RQAddr, qc.RQDepth = mem.alloc(uint64(cfg.RecvDepth*p.WQEBytes)), uint32(cfg.RecvDepth)
		}
		num := h.createQP(qc)
		if j == id {
			h.qp(num).State = QPError // a node does not talk to itself over the network
			continue
		}
		l.QPs[j] = num
	}
	l.SendBuf = mem.alloc(uint64(cfg.SendBuffers * p.MaxMessage))
	l.SendMR = h.RegisterMR(l.SendBuf, uint64(cfg.SendBuffers*p.MaxMessage), false)
	l.RecvBuf = mem.alloc(l.RecvBytes)
	l.RecvMR = h.RegisterMR(l.RecvBuf, l.RecvBytes, false)
	l.RDMA = mem.alloc(uint64(cfg.RDMABytes))
	l.RDMAMR = h.RegisterMR(l.RDMA, uint64(cfg.RDMABytes), true)
	l.SaveBytes = contextBound(n, cfg)
	l.SaveArea = mem.alloc(uint64(l.SaveBytes))
	return l
}
