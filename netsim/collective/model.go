package collective

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Latencies are a network's zero-load latencies (fabric.Network.ZeroLoadLatency, which walks
// the packet's path each time it is asked), remembered as the model asks for them: a sweep
// asks for the same pairs at every process count, algorithm and node latency. About 40
// bytes a pair and size asked; a ring of 512 asks 2 x 512 x 511.
type Latencies struct {
	net *fabric.Network
	m   map[latencyKey]netsim.Time
}

type latencyKey struct{ src, dst, bytes int32 }

// NewLatencies remembers net's zero-load latencies.
func NewLatencies(net *fabric.Network) *Latencies {
	return &Latencies{net: net, m: map[latencyKey]netsim.Time{}}
}

// Of is net.ZeroLoadLatency(src, dst, bytes), walked once.
func (l *Latencies) Of(src, dst, bytes int) (netsim.Time, error) {
	k := latencyKey{int32(src), int32(dst), int32(bytes)}
	if t, ok := l.m[k]; ok {
		return t, nil
	}
	t, err := l.net.ZeroLoadLatency(src, dst, bytes)
	if err == nil {
		l.m[k] = t
	}
	return t, err
}

// fill walks the paths of the keys not asked before, on ways threads (a 4,096-rank barrier's
// model asks for some 98,000), and remembers them.
func (l *Latencies) fill(keys []latencyKey, ways int) error {
	var todo []latencyKey
	for _, k := range keys {
		if _, ok := l.m[k]; !ok {
			todo = append(todo, k)
		}
	}
	got := make([]netsim.Time, len(todo))
	err := netsim.Split(ways, len(todo), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			t, err := l.net.ZeroLoadLatency(int(todo[i].src), int(todo[i].dst), int(todo[i].bytes))
			if err != nil {
				return err
			}
			got[i] = t
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, k := range todo {
		l.m[k] = got[i]
	}
	return nil
}

// Model is the barrier's time from the same parameters as the simulation, without
// contention: a LogP-style schedule of the ranks' steps where a put issued at t costs the
// issuing rank the node latency o, lands at
//
//	t + o + d + L(src, dst, header+8) + d
//
// (d the DMA time of 8 bytes, L the fabric's zero-load latency, fabric.ZeroLoadLatency) and
// completes when its control packet is back, L(dst, src, header) later; a poll returns at the
// later of the rank's clock and its put's landing. The simulation adds only what the model
// leaves out: queueing at the DMA engines, the NIC ports and the fabric. Each (receiver,
// tag) of these barriers has one sender, so the k-th poll on a tag takes that sender's k-th put.
func Model(c *cluster.Cluster, alg Algorithm, p int) (netsim.Time, error) {
	return ModelWith(c, NewLatencies(c.Network()), alg, p)
}

// ModelWith is Model taking the zero-load latencies from lats, which remembers them for the
// next call; lats must be of c's network.
func ModelWith(c *cluster.Cluster, lats *Latencies, alg Algorithm, p int) (netsim.Time, error) {
	if p > c.Size() {
		return 0, fmt.Errorf("barrier of %d on %d nodes", p, c.Size())
	}
	if lats.net != c.Network() {
		return 0, fmt.Errorf("barrier model: latencies of another network than the cluster's")
	}
	cfg := c.Config()
	d := cfg.DMATime(PutBytes)
	lat := lats.Of

	type key struct{ rank, tag int }
	type rankState struct {
		ops  []Op
		pc   int
		t    netsim.Time
		done []netsim.Time // completion of each put issued, in order
	}
	ranks := make([]rankState, p)
	for i := range ranks {
		ops, err := Steps(alg, p, i)
		if err != nil {
			return 0, err
		}
		ranks[i].ops = ops
	}
	// Every put's two latencies, walked at once before the schedule asks for them in turn.
	var keys []latencyKey
	for i := range ranks {
		for _, op := range ranks[i].ops {
			if op.Kind == Put {
				keys = append(keys, latencyKey{int32(i), int32(op.Peer), int32(cfg.HeaderBytes + PutBytes)},
					latencyKey{int32(op.Peer), int32(i), int32(cfg.HeaderBytes)})
			}
		}
	}
	if err := lats.fill(keys, c.Parts().Ways()); err != nil {
		return 0, err
	}
	landed := map[key][]netsim.Time{}
	taken := map[key]int{}
	for finished := 0; finished < p; {
		progress := false
		for i := range ranks {
			rs := &ranks[i]
			for rs.pc < len(rs.ops) {
				op := rs.ops[rs.pc]
				switch op.Kind {
				case Put:
					there, err := lat(i, op.Peer, cfg.HeaderBytes+PutBytes)
					if err != nil {
						return 0, err
					}
					back, err := lat(op.Peer, i, cfg.HeaderBytes)
					if err != nil {
						return 0, err
					}
					at := rs.t + cfg.NodeLatency + d + there + d
					k := key{op.Peer, op.Tag}
					landed[k] = append(landed[k], at)
					rs.done = append(rs.done, at+back)
					rs.t += cfg.NodeLatency
				case Poll:
					k := key{i, op.Tag}
					if taken[k] >= len(landed[k]) {
						goto blocked // its put is not issued yet
					}
					rs.t = max(rs.t, landed[k][taken[k]])
					taken[k]++
				case CompleteLast:
					rs.t = max(rs.t, rs.done[len(rs.done)-1])
				case CompleteAll:
					for _, t := range rs.done {
						rs.t = max(rs.t, t)
					}
				}
				rs.pc++
				progress = true
				if rs.pc == len(rs.ops) {
					finished++
				}
			}
		blocked:
		}
		if !progress {
			return 0, fmt.Errorf("%s barrier of %d: the model's schedule waits for a put never issued", alg, p)
		}
	}
	var end netsim.Time
	for _, rs := range ranks {
		end = max(end, rs.t)
	}
	return end, nil
}
