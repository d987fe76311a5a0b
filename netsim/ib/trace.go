package ib

import "github.com/lhsim/lhsim/netsim"

// Tracer sees what the hosts of a Cluster do, as a timeline does (docs/timeline.md; the
// packets are the fabric's, fabric.Tracer): the traffic workload's posts (a SEND or an RDMA
// WRITE handed to the HCA) and its consumption of each message received. A SEND message has
// a flow number, the same at its post and at its consumption, never 0.
type Tracer interface {
	HostOp(node int, name string, start, end netsim.Time, peer, bytes int, flow uint64)
}

// Trace makes the cluster's hosts tell t what they do from now on (nil: nothing).
func (c *Cluster) Trace(t Tracer) { c.tr = t }

// MessageFlow is the flow number of the k-th SEND message (from 0) from node src to node
// dst on a cluster of n nodes.
func MessageFlow(src, dst, n int, k uint32) uint64 {
	return uint64(src*n+dst)<<32 | uint64(k) + 1
}
