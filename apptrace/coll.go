package apptrace

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lhsim/lhsim/netsim/goal"
)

// collCtx writes one rank's part of one collective as steps: the operations of a step start
// together once every operation of the step before has completed (the first step: once seq
// has), as the algorithms of Open MPI's coll/base post a round and wait for it.
type collCtx struct {
	rc      *rankConv
	members []int32
	me, n   int
	space   uint32
	prev    []int32 // nil: seq
	cur     []int32
}

func (x *collCtx) op(kind goal.Kind, to int, size uint64) {
	if to == x.me || to < 0 || to >= x.n {
		return // a rank's own block is a copy
	}
	w := x.members[to]
	if kind == goal.Send {
		x.rc.c.incoming[w][srcSpace{uint32(x.rc.r), x.space}] = true
	}
	o := x.rc.add(gop{kind: kind, size: size, peer: uint32(w), space: x.space}, x.prev)
	x.cur = append(x.cur, o)
}

func (x *collCtx) send(to int, size uint64)   { x.op(goal.Send, to, size) }
func (x *collCtx) recv(from int, size uint64) { x.op(goal.Recv, from, size) }

// step ends a round: what follows waits for its operations.
func (x *collCtx) step() {
	if len(x.cur) > 0 {
		x.prev, x.cur = x.cur, nil
	}
}

func indexOf(m []int32, w int32) int {
	for i, v := range m {
		if v == w {
			return i
		}
	}
	return -1
}

func sum(c []uint64) uint64 {
	var s uint64
	for _, v := range c {
		s += v
	}
	return s
}

// fixedAlgs are the collectives Open MPI 4.1's tuned component has no decision for: its
// coll/basic runs them linearly.
var fixedAlgs = map[Coll]string{Gatherv: "basic_linear", Scatterv: "basic_linear", Scan: "linear", Exscan: "linear"}

// Algorithms are the algorithm names Convert knows for a collective.
func Algorithms(c Coll) []string {
	set := map[string]bool{}
	for _, r := range tunedRules[c] {
		set[r.alg] = true
	}
	if a, ok := fixedAlgs[c]; ok {
		set[a] = true
	}
	var s []string
	for a := range set {
		s = append(s, a)
	}
	sort.Strings(s)
	return s
}

func knownAlg(c Coll, a string) bool { return slices.Contains(Algorithms(c), a) }

// ParseColl is the collective a name ("allreduce") names.
func ParseColl(name string) (Coll, bool) {
	for i, n := range collNames {
		if n == name && i > 0 {
			return Coll(i), true
		}
	}
	return CollNone, false
}

// ParseCollectives reads an algorithm per collective, each item COLLECTIVE=ALGORITHM (as
// allreduce=ring); the algorithm is checked where the conversion uses it.
func ParseCollectives(items []string) (map[Coll]string, error) {
	algs := map[Coll]string{}
	for _, kv := range items {
		name, alg, ok := strings.Cut(kv, "=")
		c, known := ParseColl(name)
		if !ok || !known {
			return nil, fmt.Errorf("%q: want COLLECTIVE=ALGORITHM, as allreduce=ring", kv)
		}
		algs[c] = alg
	}
	return algs, nil
}

// tunedChoice is Open MPI 4.1's algorithm for a collective of comm ranks deciding on size bytes.
func tunedChoice(c Coll, comm int, size uint64) string {
	if a, ok := fixedAlgs[c]; ok {
		return a
	}
	for _, r := range tunedRules[c] {
		if comm < r.commFrom || r.commBelow > 0 && comm >= r.commBelow || r.sizeBelow > 0 && size >= r.sizeBelow {
			continue
		}
		return r.alg
	}
	return ""
}

func (c *conv) choose(coll Coll, comm int, size uint64) string {
	if a, ok := c.opt.Collectives[coll]; ok {
		return a
	}
	return tunedChoice(coll, comm, size)
}

// fallback is the algorithm coll/base runs when the one chosen does not apply: recursive
// doubling for an allreduce ring with fewer elements than ranks (the trace has bytes: an
// element is taken as 4 bytes, MPI_INT's and MPI_FLOAT's), Bruck for an allgather by recursive
// doubling on a size that is not a power of two, a ring for a neighbour exchange on an odd one.
// The statistics name what the schedule holds.
func fallback(c Coll, alg string, n int, size uint64) string {
	switch {
	case c == Allreduce && (alg == "ring" || alg == "segmented_ring") && size/4 < uint64(n):
		return "recursive_doubling"
	case (c == Allgather || c == Allgatherv) && alg == "recursive_doubling" && n&(n-1) != 0:
		return "bruck"
	case (c == Allgather || c == Allgatherv) && alg == "neighbor" && n%2 != 0:
		return "ring"
	case (c == Allgather || c == Allgatherv || c == Alltoall || c == Barrier) && alg == "two_proc" && n != 2:
		return map[Coll]string{Allgather: "ring", Allgatherv: "ring", Alltoall: "pairwise", Barrier: "recursive_doubling"}[c]
	}
	return alg
}

// decisionSize is the size tuned decides on (tuned_rules.go).
func decisionSize(cl *Call, n int) uint64 {
	switch cl.Coll {
	case ReduceScatter:
		return sum(cl.Counts)
	case Allgatherv:
		return sum(cl.Counts) / uint64(n)
	}
	return cl.Size
}

func (rc *rankConv) collective(cl *Call) error {
	members, ok := rc.c.members[cl.Comm]
	if !ok {
		return fmt.Errorf("communicator %#x: the trace never made it", cl.Comm)
	}
	me := indexOf(members, int32(rc.r))
	if me < 0 {
		return fmt.Errorf("rank %d is not a member of communicator %#x", rc.r, cl.Comm)
	}
	n := len(members)
	sp, err := rc.space(cl.Comm, true)
	if err != nil {
		return err
	}
	root := 0
	switch cl.Coll {
	case Bcast, Reduce, Gather, Gatherv, Scatter, Scatterv:
		if root = indexOf(members, cl.Root); root < 0 {
			return fmt.Errorf("root %d is not a member of communicator %#x", cl.Root, cl.Comm)
		}
	}
	switch cl.Coll {
	case Allgatherv, ReduceScatter:
		if len(cl.Counts) != n {
			return fmt.Errorf("%d counts for a communicator of %d", len(cl.Counts), n)
		}
	case Alltoallv:
		if len(cl.Counts) != 2*n {
			return fmt.Errorf("%d counts for a communicator of %d (want send and receive counts)", len(cl.Counts), n)
		}
	case Gatherv, Scatterv:
		if me == root && len(cl.Counts) != n {
			return fmt.Errorf("%d counts at the root for a communicator of %d", len(cl.Counts), n)
		}
	}
	alg := fallback(cl.Coll, rc.c.choose(cl.Coll, n, decisionSize(cl, n)), n, cl.Size)
	if me == 0 {
		rc.c.st.Collectives[cl.Coll.String()+"/"+alg]++
	}
	x := &collCtx{rc: rc, members: members, me: me, n: n, space: sp}
	x.run(cl, alg, root)
	x.step()
	if x.prev != nil {
		rc.join(x.prev)
	}
	return nil
}

// run writes collective cl by algorithm alg.
func (x *collCtx) run(cl *Call, alg string, root int) {
	n, s := x.n, cl.Size
	switch cl.Coll {
	case Barrier:
		x.barrier(alg)
	case Bcast:
		x.bcast(alg, root, s)
	case Reduce:
		x.reduce(alg, root, s)
	case Allreduce:
		x.allreduce(alg, s)
	case Gather, Gatherv:
		blocks := x.blocks(cl, root)
		if alg == "binomial" {
			x.gatherTree(root, blocks)
		} else {
			x.gatherLinear(root, blocks)
		}
	case Scatter, Scatterv:
		blocks := x.blocks(cl, root)
		if alg == "binomial" {
			x.scatterTree(root, blocks)
		} else {
			x.scatterLinear(root, blocks)
		}
	case Allgather:
		x.allgather(alg, uniform(n, s))
	case Allgatherv:
		x.allgather(alg, cl.Counts)
	case Alltoall:
		x.alltoall(alg, uniform(n, s), uniform(n, s))
	case Alltoallv:
		x.alltoall(alg, cl.Counts[:n], cl.Counts[n:])
	case ReduceScatter:
		x.reduceScatter(alg, cl.Counts)
	case ReduceScatterB:
		x.reduceScatter(alg, uniform(n, s))
	case Scan, Exscan:
		// coll/basic's linear scan: each rank takes its left neighbour's prefix and passes
		// its own on.
		x.recv(x.me-1, s)
		x.step()
		x.send(x.me+1, s)
	}
}

func uniform(n int, s uint64) []uint64 {
	b := make([]uint64, n)
	for i := range b {
		b[i] = s
	}
	return b
}

// blocks are the members' blocks of a gather or scatter: at the root its counts (v) or Size
// each; elsewhere only the rank's own block matters.
func (x *collCtx) blocks(cl *Call, root int) []uint64 {
	if x.me == root && cl.Counts != nil {
		return cl.Counts
	}
	b := uniform(x.n, cl.Size)
	return b
}
