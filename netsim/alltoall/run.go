package alltoall

import (
	"fmt"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/collective"
)

// Scheme is how the steps of a schedule are kept apart (Figure 3 of Ohno et al.'s paper, seed
// 002).
type Scheme string

// The schemes.
const (
	// SyncPerStep: the paper's synchronisation (sync packets, dimension by dimension,
	// sections 3.1 and 4.1) at the start and again after every step, once every node has its
	// step's data (conventional scheme 1, "synchronise at every step"). The paper describes
	// one synchronisation mechanism; scheme 1 is it, run 1 + steps times.
	SyncPerStep Scheme = "sync_per_step"
	// BarrierPerStep: scheme 1 with a software barrier instead: a barrier at the start and
	// after every step, the recursive-doubling barrier of 8-byte puts of netsim/collective,
	// the fastest on the 4,096-node torus (docs/network.md). Not in the paper; kept to show
	// what a barrier built from puts costs.
	BarrierPerStep Scheme = "barrier_per_step"
	// SyncAtStart: the start-time synchronisation, then every node runs its steps as fast
	// as its own data allows (conventional scheme 2): steps of different nodes overlap.
	SyncAtStart Scheme = "sync_at_start"
	// Proposed: the start-time synchronisation, then every node starts step s+1 when the
	// slowest transfer of step s is predicted to have landed (the all-to-all paper's section 3.2).
	Proposed Scheme = "proposed"
)

// Schemes in the order reports list them: the paper's three, then the software barrier.
var Schemes = []Scheme{SyncPerStep, SyncAtStart, Proposed, BarrierPerStep}

// ParseScheme checks a scheme's name.
func ParseScheme(s string) (Scheme, error) {
	for _, x := range Schemes {
		if string(x) == s {
			return x, nil
		}
	}
	names := make([]string, len(Schemes))
	for i, x := range Schemes {
		names[i] = string(x)
	}
	return "", fmt.Errorf("unknown scheme %q (want %s)", s, strings.Join(names, ", "))
}

// Landing is when a put of bytes from src to dst issued at time 0 lands at dst with nothing
// else on the way: the cluster's put (node latency, then a DMA read per packet of at most
// an MTU, each packet injected as its read ends, the fabric's zero-load latency, a DMA write
// per packet in arrival order) in closed form. It is what a node computes for section 3.2.
func Landing(c *cluster.Cluster, src, dst, bytes int) (netsim.Time, error) {
	if bytes < 1 {
		return 0, fmt.Errorf("alltoall: a put of %d bytes", bytes)
	}
	cfg, net := c.Config(), c.Network()
	payload := cfg.MTU - cfg.HeaderBytes
	full, err := net.ZeroLoadLatency(src, dst, cfg.HeaderBytes+min(payload, bytes))
	if err != nil {
		return 0, err
	}
	t, write := cfg.NodeLatency, netsim.Time(0)
	for left := bytes; left > 0; {
		chunk := min(left, payload)
		left -= chunk
		l := full
		if chunk != payload && chunk != bytes {
			if l, err = net.ZeroLoadLatency(src, dst, cfg.HeaderBytes+chunk); err != nil {
				return 0, err
			}
		}
		t += cfg.DMATime(chunk)
		write = max(t+l, write) + cfg.DMATime(chunk)
	}
	return write, nil
}

// Sizes is the data: bytes per (source, destination) pair, the same from every node or, Uneven,
// scaled by the schedule's per-node weights.
type Sizes struct {
	BytesPerPair int
	Uneven       bool
}

// Result is one all-to-all.
type Result struct {
	Scheme Scheme
	// Total is from the start of every rank's program to the last rank's end (every put
	// complete), the start synchronisation or barrier included.
	Total netsim.Time
	// SyncExit is when each rank left the start-time synchronisation (schemes 2 and 3).
	SyncExit []netsim.Time
	// SyncSpread is the last exit less the first (0: every node left at one edge).
	SyncSpread netsim.Time
	// Late counts (rank, step) pairs where the proposed scheme's rank began a step after
	// its planned time because its data had not landed yet (0 when the prediction holds).
	Late int
	// Waits are the proposed scheme's step lengths (section 3.2), one per step.
	Waits  []netsim.Time
	Events uint64
	Puts   int
}

// Options are the choices of a run beyond the scheme and the sizes.
type Options struct {
	// PaperRule runs every synchronisation with the paper's rule as written (a sender's start
	// taken from the arrival less the known latency, no margin) instead of the stamped
	// departure cycle and its margin (SyncPlan.Stamped): nodes may leave a cycle or two apart.
	PaperRule bool
}

// Run runs sched under scheme on c, all ranks starting now.
func Run(c *cluster.Cluster, sched *Schedule, scheme Scheme, sz Sizes) (Result, error) {
	return RunWith(c, sched, scheme, sz, Options{})
}

// RunWith is Run with options.
func RunWith(c *cluster.Cluster, sched *Schedule, scheme Scheme, sz Sizes, opt Options) (Result, error) {
	if _, err := ParseScheme(string(scheme)); err != nil {
		return Result{}, err
	}
	if sz.BytesPerPair < 1 {
		return Result{}, fmt.Errorf("alltoall: %d bytes per pair: want at least 1", sz.BytesPerPair)
	}
	n := sched.Nodes
	if n != c.Size() {
		return Result{}, fmt.Errorf("alltoall: a schedule of %d nodes on a machine of %d", n, c.Size())
	}
	steps := len(sched.Steps)
	sendOf := make([][]int32, steps)
	recvN := make([][]uint8, steps)
	bytes := make([][]int, steps)
	waits := make([]netsim.Time, steps)
	clock := c.Network().Config().ClockPeriod
	for s, st := range sched.Steps {
		sendOf[s] = make([]int32, n)
		for i := range sendOf[s] {
			sendOf[s][i] = -1
		}
		recvN[s] = make([]uint8, n)
		bytes[s] = make([]int, len(st.Transfers))
		for j, t := range st.Transfers {
			if sendOf[s][t.Src] >= 0 {
				return Result{}, fmt.Errorf("alltoall: %s step %d: node %d sends twice", sched.Name, s, t.Src)
			}
			sendOf[s][t.Src] = int32(j)
			recvN[s][t.Dst]++
			bytes[s][j] = sched.Bytes(t, sz.BytesPerPair, sz.Uneven)
		}
		var longest netsim.Time
		if scheme == Proposed {
			// Each transfer's landing is a path walk: on the run's threads.
			land := make([]netsim.Time, len(st.Transfers))
			err := netsim.Split(c.Parts().Ways(), len(land), func(lo, hi int) error {
				for j := lo; j < hi; j++ {
					t := st.Transfers[j]
					l, err := Landing(c, t.Src, t.Dst, bytes[s][j])
					if err != nil {
						return err
					}
					land[j] = l
				}
				return nil
			})
			if err != nil {
				return Result{}, err
			}
			for _, l := range land {
				longest = max(longest, l)
			}
		}
		waits[s] = (longest + clock - 1) / clock * clock
	}
	var plan *SyncPlan
	if scheme != BarrierPerStep {
		var err error
		if plan, err = NewSyncPlan(c); err != nil {
			return Result{}, err
		}
		plan.Stamped = !opt.PaperRule
	}
	res := Result{Scheme: scheme, SyncExit: make([]netsim.Time, n)}
	if scheme == Proposed {
		res.Waits = waits
	}
	start := c.Now()
	late := make([]int, n) // per rank: ranks of different parts run at once
	prog := func(r *cluster.Rank) {
		id := r.ID()
		var hs []*cluster.Handle
		var barOps []collective.Op
		barrier := func(b int) {
			if barOps == nil {
				barOps, _ = collective.Steps(collective.RecursiveDoubling, n, id)
			}
			base := steps + b*n // tags apart from the data's (0..steps-1) and from other barriers'
			var bh []*cluster.Handle
			for _, op := range barOps {
				switch op.Kind {
				case collective.Put:
					bh = append(bh, r.Put(op.Peer, collective.PutBytes, base+op.Tag))
				case collective.Poll:
					r.Poll(base + op.Tag)
				case collective.CompleteAll, collective.CompleteLast:
					for _, h := range bh {
						r.Complete(h)
					}
				}
			}
		}
		var t0 netsim.Time
		if scheme == BarrierPerStep {
			barrier(0)
		} else {
			t0 = plan.Run(r)
			res.SyncExit[id] = t0
		}
		at := t0
		for s := range steps {
			if scheme == Proposed {
				if now := r.Now(); now < at {
					r.Comp(at - now)
				} else if now > at {
					late[id]++
				}
				at += waits[s]
			}
			if j := sendOf[s][id]; j >= 0 {
				hs = append(hs, r.Put(sched.Steps[s].Transfers[j].Dst, bytes[s][j], s))
			}
			for range recvN[s][id] {
				r.Poll(s)
			}
			switch scheme {
			case BarrierPerStep:
				barrier(s + 1)
			case SyncPerStep:
				plan.RunRound(r, s+1)
			}
		}
		for _, h := range hs {
			r.Complete(h)
		}
	}
	cr, err := c.Run(n, prog)
	if err != nil {
		return res, fmt.Errorf("alltoall: %s, %s: %w", sched.Name, scheme, err)
	}
	res.Total, res.Events, res.Puts = cr.End-start, cr.Events, cr.Puts
	for _, l := range late {
		res.Late += l
	}
	if scheme != BarrierPerStep {
		lo, hi := res.SyncExit[0], res.SyncExit[0]
		for _, e := range res.SyncExit {
			lo, hi = min(lo, e), max(hi, e)
		}
		res.SyncSpread = hi - lo
	}
	return res, nil
}
