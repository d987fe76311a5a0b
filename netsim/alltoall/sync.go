package alltoall

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// SyncPlan is what every node knows before the all-to-all paper's start-time synchronisation (section
// 3.1): the latency of each sync packet to each node, from the fabric's own closed form. On a
// torus it runs dimension by dimension (section 4.1): in dimension d a node sends a sync
// packet to every other node of its ring and counts the ring's k-1 packets; each packet sets
// the timer to at least the time until the same sender's packet reaches the node farthest
// from it; the node leaves the dimension when its counter is k-1 and its timer is 0. Everyone
// in the ring leaves at the same clock edge; the next dimension starts there, so after the
// last dimension the whole machine has one start time.
//
// The timer counts clock cycles of the fabric's ClockPeriod, as the NIC's would. A node
// sends its k-1 packets at a clock edge, one after another on its injection link, to offsets
// 1, 2, ..., k-1 round the ring; the j-th (from 0) leaves j packet times after the first, so
// its known latency is the closed form plus j packet times, rounded up to whole cycles.
type SyncPlan struct {
	// Stamped takes each sender's start from the departure cycle its NIC stamps in the sync
	// packet instead of from the arrival less the known latency (the paper's rule). The two
	// agree when no sync packet waits for another on a link; when one does (packets of
	// different senders meet), the paper's rule takes the delay for a later start and that
	// node leaves a cycle or so after the others. NewSyncPlan sets it.
	Stamped bool
	clock   netsim.Time
	k       []int
	stride  []int
	// lat[d][node*(k-1)+r-1] is the known latency, in cycles, of node's sync packet to the
	// node r ahead of it in dimension d; far[d][node] is the largest of them.
	lat [][]int64
	far [][]int64
	// margin[d] is added, stamped, to the time until the farthest node has a sender's packet:
	// one burst of k-1 sync packets on a link, in cycles. A sync packet can meet other
	// senders' packets on the way and wait; without the margin a receiver that is some
	// sender's farthest node can get that packet after the deadline and leave a cycle late
	// (measured on 16x16x16 with nodes entering up to 3 µs apart: 16 of 4,096 nodes, 4 ns).
	// assumption: no sync packet waits longer than one burst.
	margin []int64
}

// NewSyncPlan computes the latency tables of c's torus.
func NewSyncPlan(c *cluster.Cluster) (*SyncPlan, error) {
	net := c.Network()
	topo, ok := net.Topology().(*fabric.Torus)
	if !ok {
		return nil, fmt.Errorf("alltoall: the start-time synchronisation runs on a torus, not %v", net.Topology())
	}
	fc := net.Config()
	hdr := c.Config().HeaderBytes
	p := &SyncPlan{Stamped: true, clock: fc.ClockPeriod, k: topo.Radix()}
	n := topo.Nodes()
	s := 1
	for _, k := range p.k {
		p.stride = append(p.stride, s)
		s *= k
	}
	for d, k := range p.k {
		lat := make([]int64, n*max(k-1, 0))
		far := make([]int64, n)
		err := netsim.Split(c.Parts().Ways(), n, func(lo, hi int) error {
			for node := lo; node < hi; node++ {
				for r := 1; r < k; r++ {
					dst := p.member(node, d, r)
					path, err := net.Path(node, dst)
					if err != nil {
						return err
					}
					l, err := net.ZeroLoadLatency(node, dst, hdr)
					if err != nil {
						return err
					}
					l += netsim.Time(r-1) * netsim.Time(fc.Flits(hdr)) * path[0].FlitTime
					cy := int64((l + p.clock - 1) / p.clock)
					lat[node*(k-1)+r-1] = cy
					far[node] = max(far[node], cy)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		burst := netsim.Time(max(k-1, 0)) * netsim.Time(fc.Flits(hdr)) * fc.FlitTime(net.Config().TorusLinkBandwidth)
		if fc.TorusLinkBandwidth == 0 {
			burst = netsim.Time(max(k-1, 0)) * netsim.Time(fc.Flits(hdr)) * fc.FlitTime(fc.LinkBandwidth)
		}
		p.lat = append(p.lat, lat)
		p.far = append(p.far, far)
		p.margin = append(p.margin, int64((burst+p.clock-1)/p.clock))
	}
	return p, nil
}

func (p *SyncPlan) coord(node, d int) int { return (node / p.stride[d]) % p.k[d] }

// member is the node r ahead of node in dimension d.
func (p *SyncPlan) member(node, d, r int) int {
	c := p.coord(node, d)
	return node + ((c+r)%p.k[d]-c)*p.stride[d]
}

// Run is the synchronisation as rank r's program runs it; it returns when r leaves it.
func (p *SyncPlan) Run(r *cluster.Rank) netsim.Time { return p.RunRound(r, 0) }

// RunRound is the round-th synchronisation of a program that synchronises more than once
// (scheme 1 after every step): its sync packets carry tags of their own, so that no packet
// of one round is counted in another.
func (p *SyncPlan) RunRound(r *cluster.Rank, round int) netsim.Time {
	id := r.ID()
	for d, k := range p.k {
		if k == 1 {
			continue
		}
		tag := round*len(p.k) + d
		edge := (int64(r.Now()) + int64(p.clock) - 1) / int64(p.clock)
		p.waitUntil(r, edge)
		for off := 1; off < k; off++ {
			r.Signal(p.member(id, d, off), tag)
		}
		// The timer runs out at deadline (in cycles). Its own packets count too: the node
		// knows when they reach the node farthest from it.
		deadline := edge + p.far[d][id]
		if p.Stamped {
			deadline += p.margin[d]
		}
		for range k - 1 {
			s := r.WaitSignal(tag)
			at := (int64(s.At) + int64(p.clock) - 1) / int64(p.clock) // the edge that sees it
			off := (p.coord(id, d) - p.coord(s.Src, d) + k) % k
			if p.Stamped {
				sent := int64(s.SentAt) / int64(p.clock) // sent on an edge
				deadline = max(deadline, sent+p.far[d][s.Src]+p.margin[d], at)
				continue
			}
			timer := p.far[d][s.Src] - p.lat[d][s.Src*(k-1)+off-1]
			deadline = max(deadline, at+timer, at)
		}
		p.waitUntil(r, deadline)
	}
	return r.Now()
}

func (p *SyncPlan) waitUntil(r *cluster.Rank, edge int64) {
	if t := netsim.Time(edge) * p.clock; t > r.Now() {
		r.Comp(t - r.Now())
	}
}
