package timeline

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Track numbers of a fabric's packets inside a node's process.
const (
	TidTx = 300 // the NIC's injection: each packet from queued to its head on the link
)

// Packets records a fabric's packets (it is a fabric.Tracer; docs/timeline.md): on the
// source node's process a slice per packet on its "NIC tx" track, from when it reached the
// head of the NIC's injection queue (its injection, or the packet before it leaving) to its
// head leaving on the node's link, where its flow starts (the argument queued_ns is its whole
// wait since its injection); on the
// destination's a slice on a "NIC rx K" track from its tail's arrival in the ejection buffer
// to the node giving the buffer back, where its flow ends; and a counter of each node's
// injection queue at each change. A packet's flow id is its injection number in the machine
// (fabric.Packet.Seq), made unique among the machines of a file.
type Packets struct {
	Net *Net
	// Name names a packet's slices (default "packet"); Args adds arguments to both.
	Name func(p *fabric.Packet) string
	Args func(p *fabric.Packet) []Arg
	fab  *fabric.Network
	head []netsim.Time // per node: when the last packet left
	q    []int         // per node: the injection queue's length last written
	rx   []Lanes
}

// TracePackets records fab's packets on net's machine (and its links, SampleLinks).
func TracePackets(net *Net, fab *fabric.Network) *Packets {
	n := fab.Nodes()
	t := &Packets{Net: net, fab: fab, head: make([]netsim.Time, n), q: make([]int, n), rx: make([]Lanes, n)}
	net.SampleLinks(fab)
	fab.Trace(t)
	return t
}

func (t *Packets) flow(p *fabric.Packet) uint64 { return uint64(t.Net.PidBase)<<20 + p.Seq() }

func (t *Packets) queue(now netsim.Time, node int) {
	pid := t.Net.PidBase + node
	q := t.fab.Queued(node)
	if q == t.q[node] || !t.Net.W.Keep(pid) {
		return
	}
	t.q[node] = q
	t.Net.Node(node)
	t.Net.W.Counter(pid, "injection queue", now, I("packets", int64(q)))
}

// Injected implements fabric.Tracer.
func (t *Packets) Injected(now netsim.Time, p *fabric.Packet) {
	if t.Net.links != nil {
		t.Net.links.start(now)
	}
	t.queue(now, p.Src)
}

func (t *Packets) args(p *fabric.Packet, peer int) []Arg {
	a := []Arg{I("peer", int64(peer)), I("bytes", int64(p.Bytes)), I("flits", int64(p.Flits)), I("msg", int64(t.flow(p)))}
	if t.Args != nil {
		a = append(a, t.Args(p)...)
	}
	return a
}

func (t *Packets) name(p *fabric.Packet) string {
	if t.Name != nil {
		return t.Name(p)
	}
	return "packet"
}

// Left implements fabric.Tracer: the packet's slice at its source, and its flow's start.
func (t *Packets) Left(now netsim.Time, p *fabric.Packet) {
	start := max(p.InjectedAt, t.head[p.Src])
	t.head[p.Src] = now
	t.queue(now, p.Src)
	pid := t.Net.PidBase + p.Src
	if !t.Net.W.Keep(pid) {
		return
	}
	t.Net.Node(p.Src)
	t.Net.W.Thread(pid, TidTx, "NIC tx")
	t.Net.W.Slice(pid, TidTx, t.name(p), start, now, append(t.args(p, p.Dst), I("queued_ns", int64((now-p.InjectedAt)/netsim.Nanosecond)))...)
	t.Net.W.Flow(FlowStart, pid, TidTx, t.flow(p), now) // where it leaves, not where it waited
}

// Delivered implements fabric.Tracer (the slice is written when the buffer is given back).
func (t *Packets) Delivered(now netsim.Time, p *fabric.Packet) {}

// Consumed implements fabric.Tracer: the packet's slice at its destination, where its
// flow ends.
func (t *Packets) Consumed(now netsim.Time, p *fabric.Packet) {
	lane := t.rx[p.Dst].Take(p.ArrivedAt)
	t.rx[p.Dst].Free(lane, now)
	pid := t.Net.PidBase + p.Dst
	if !t.Net.W.Keep(pid) {
		return
	}
	t.Net.Node(p.Dst)
	tid := TidRx + lane
	t.Net.W.ThreadN(pid, tid, "NIC rx", lane)
	t.Net.W.Slice(pid, tid, t.name(p)+" in", p.ArrivedAt, now, t.args(p, p.Src)...)
	t.Net.W.Flow(FlowFinish, pid, tid, t.flow(p), p.ArrivedAt)
}
