package mbcf

import "github.com/lhsim/lhsim/netsim"

// Tracer sees a System's run as a timeline does (docs/timeline.md): what each task called,
// what each node's kernel ran on its CPU, each frame each adapter put on the wire and each
// frame it took off, and the adapters' queues. A data packet (a task's, or a reply the
// kernel sends back) has a flow number, the same at both ends and never 0: the kernel job
// that posted it, its frames on the wire (every retransmission) and the frame the receiver
// accepted it from carry it.
type Tracer interface {
	// Call is task's call on node, from its start to its return: "send" (a send system
	// call: ops the packet's commands, e.g. "WRITE", to node peer, size its data bytes,
	// flow its packet's), "await" (a flag), "compute".
	Call(node, task int, name, ops string, start, end netsim.Time, peer, size int, flow uint64)
	// Kernel is a job of node's kernel on its CPU (what: "send system call", "receive
	// interrupt", ...), with the data packets it posted and the one it accepted (0: none).
	Kernel(node int, what string, start, end netsim.Time, posted []uint64, accepted uint64)
	// Wire is a frame from node's adapter, from when the adapter took it to its last bit
	// on the wire (or the hub giving it up); flow 0: an acknowledgement alone.
	Wire(node int, start, end netsim.Time, bytes int, flow uint64)
	// Arrived is a frame at node's adapter from its arrival to its receive interrupt
	// routine starting; flow: the packet the routine accepted from it (0: none: an
	// acknowledgement, a duplicate, a bad frame).
	Arrived(node int, start, end netsim.Time, bytes int, flow uint64)
	// Queues are node's adapter's transmit queue (frames handed over, not reclaimed) and
	// receive ring (frames not yet taken by the kernel), at a change.
	Queues(node int, at netsim.Time, tx, rx int)
}

// flowOf is the flow number of the k-th data packet (from 1) from node src to node dst of
// a System of n nodes.
func flowOf(src, dst uint32, n int, k uint64) uint64 {
	return (uint64(src)*uint64(n)+uint64(dst))<<32 | k
}

func (n *Node) queues(now netsim.Time) {
	if t := n.s.tr; t != nil {
		t.Queues(int(n.id), now, len(n.ad.txq), n.ad.rxWait)
	}
}
