// Package alltoall is all-to-all personalized exchange on the simulated machine (Ohno et al.).
package alltoall

// alltoall is all-to-all personalized exchange on the simulated machine (package
// cluster) and the all-to-all paper's way of running its steps: a start-time synchronisation by hardware
// sync packets (section 3.1, dimension by dimension on a torus as section 4.1 says), then a
// locally computed wait per step (section 3.2), against a barrier between steps and against
// synchronising only at the start (Figure 3's three schemes of the all-to-all paper).
//
// The schedules (SuhShin, Direct) are lists of steps of puts. Each put carries combined
// blocks: the builder moves every block (source, destination) from node to node as the
// steps say, so the size of each put is known, and a test checks that every node ends with
// exactly its blocks. docs/alltoall.md says where each step of SuhShin comes from.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/fabric"
)

// Transfer is one put of a step: Src sends Dst the blocks the step's rule selects from what
// Src holds, combined in one message.
type Transfer struct {
	Src, Dst int
	Blocks   int   // blocks carried
	Weight   int64 // sum of the carried blocks' source weights (Schedule.Weights), for uneven sizes
}

// Step is a set of transfers that run at the same time.
type Step struct {
	Phase     string // "inter-group X", "intra-group Y", "direct"
	Transfers []Transfer
}

// Schedule is an all-to-all as steps.
type Schedule struct {
	Name  string
	Nodes int
	Steps []Step
	// Weights is each source node's block size in per mille of the size per pair when sizes
	// are uneven (Transfer.Weight sums them).
	Weights []int64
	// final is what each node holds at the end (blocks as src*Nodes+dst), kept for tests.
	final [][]int32
}

// maxTracked bounds the nodes of a schedule: the builder tracks all n^2 blocks.
const maxTracked = 8192

// Bytes is a transfer's size with bytesPerPair per block, or, uneven, each block of source
// s taking bytesPerPair*Weights[s]/1000 (at least 1 byte per transfer).
func (s *Schedule) Bytes(t Transfer, bytesPerPair int, uneven bool) int {
	if !uneven {
		return t.Blocks * bytesPerPair
	}
	return max(1, int(int64(bytesPerPair)*t.Weight/1000))
}

// Puts is the number of transfers in all steps.
func (s *Schedule) Puts() int {
	n := 0
	for _, st := range s.Steps {
		n += len(st.Transfers)
	}
	return n
}

// UnevenWeights gives node i a weight of 500 to 1500 per mille, from a fixed hash of (seed, i):
// the same seed, the same weights.
func UnevenWeights(n int, seed uint64) []int64 {
	w := make([]int64, n)
	for i := range w {
		x := seed*0x9E3779B97F4A7C15 + uint64(i+1)*0xBF58476D1CE4E5B9
		x ^= x >> 31
		x *= 0x94D049BB133111EB
		x ^= x >> 29
		w[i] = 500 + int64(x%1001)
	}
	return w
}

// HeavyWeights gives every eighth node (7, 15, 23, ...) a weight of 4000 per mille and the
// others 571, a mean of 1000: a few nodes with far more data than the rest, the kind of
// imbalance under which the all-to-all paper's §4.4 expects scheme 2 to degrade. The distribution is an
// input (the seed gives none).
func HeavyWeights(n int) []int64 {
	w := make([]int64, n)
	for i := range w {
		w[i] = 571
		if i%8 == 7 {
			w[i] = 4000
		}
	}
	return w
}

// builder moves blocks between nodes step by step.
type builder struct {
	n       int
	hold    [][]int32 // blocks each node holds, as src*n+dst
	weights []int64
	steps   []Step
}

func newBuilder(n int, weights []int64) (*builder, error) {
	if n < 2 {
		return nil, fmt.Errorf("alltoall: %d nodes: want at least 2", n)
	}
	if n > maxTracked {
		return nil, fmt.Errorf("alltoall: %d nodes: at most %d (the schedule tracks every one of the n^2 blocks)", n, maxTracked)
	}
	if weights == nil {
		weights = make([]int64, n)
		for i := range weights {
			weights[i] = 1000
		}
	}
	if len(weights) != n {
		return nil, fmt.Errorf("alltoall: %d weights for %d nodes", len(weights), n)
	}
	b := &builder{n: n, hold: make([][]int32, n), weights: weights}
	for i := range n {
		b.hold[i] = make([]int32, 0, n-1)
		for j := range n {
			if j != i {
				b.hold[i] = append(b.hold[i], int32(i*n+j))
			}
		}
	}
	return b, nil
}

// move is one transfer to make: from src to dst, the blocks keep selects.
type move struct {
	src, dst int
	keep     func(block int32) bool // true: the block goes
}

// step takes every move's blocks from its source first, then hands them over (the
// transfers of a step are simultaneous). A move that would carry nothing is left out.
func (b *builder) step(phase string, moves []move) {
	type taken struct {
		m      move
		blocks []int32
	}
	var ts []taken
	for _, m := range moves {
		// The blocks that stay are packed in place, in order (the source's own array: no
		// allocation), the ones that go copied out.
		h := b.hold[m.src]
		var go_ []int32
		stay := h[:0]
		for _, blk := range h {
			if m.keep(blk) {
				go_ = append(go_, blk)
			} else {
				stay = append(stay, blk)
			}
		}
		if len(go_) == 0 {
			continue
		}
		b.hold[m.src] = stay
		ts = append(ts, taken{m, go_})
	}
	st := Step{Phase: phase}
	for _, t := range ts {
		var w int64
		for _, blk := range t.blocks {
			w += b.weights[int(blk)/b.n]
		}
		b.hold[t.m.dst] = append(b.hold[t.m.dst], t.blocks...)
		st.Transfers = append(st.Transfers, Transfer{Src: t.m.src, Dst: t.m.dst, Blocks: len(t.blocks), Weight: w})
	}
	if len(st.Transfers) > 0 {
		b.steps = append(b.steps, st)
	}
}

func (b *builder) done(name string) (*Schedule, error) {
	// Blocks are only moved, never copied or lost: n-1 blocks, each addressed to the node
	// that holds it, are the n-1 from the other nodes.
	for i, h := range b.hold {
		if len(h) != b.n-1 {
			return nil, fmt.Errorf("alltoall: %s: node %d ends with %d blocks, want %d", name, i, len(h), b.n-1)
		}
		for _, blk := range h {
			if int(blk)%b.n != i {
				return nil, fmt.Errorf("alltoall: %s: node %d ends with block %d->%d", name, i, int(blk)/b.n, int(blk)%b.n)
			}
		}
	}
	return &Schedule{Name: name, Nodes: b.n, Steps: b.steps, Weights: b.weights, final: b.hold}, nil
}

// Direct is the pairwise exchange: in step s (1..n-1) node i puts its block for node i+s
// (mod n) there. One start-up per block and no combining; its steps are not contention-free
// on a torus (it is the baseline, not a topology-aware algorithm).
func Direct(n int, weights []int64) (*Schedule, error) {
	b, err := newBuilder(n, weights)
	if err != nil {
		return nil, err
	}
	for s := 1; s < n; s++ {
		moves := make([]move, n)
		for i := range n {
			dst := (i + s) % n
			moves[i] = move{i, dst, func(blk int32) bool { return int(blk)%n == dst }}
		}
		b.step("direct", moves)
	}
	return b.done("direct")
}

var dimName = []string{"X", "Y", "Z", "W", "V", "U", "T", "S"}

// SuhShin is the all-to-all of Suh and Shin (IEEE TPDS 12(1), 2001) as the all-to-all paper's section 4.2
// describes it, on a torus whose every dimension is a multiple of 4: the nodes fall into
// groups of 4^N (4 consecutive coordinates in each dimension); phase 1 exchanges blocks
// between groups, phase 2 within groups; every step is contention-free (no link carries two
// transfers of a step, injection and ejection links included) and blocks bound for the same
// place travel combined. The step structure is this package's reconstruction (the seed only
// sketches it): docs/alltoall.md.
//
// Phase 1, dimension by dimension: in the ring of dimension d, a node at group g and
// position p (coordinate 4g+p) forwards blocks to the node of the same position in group
// g+1 (4 hops +) or g-1 (4 hops -), store and forward: a block travels in the direction of
// its destination group's shorter way round (half way round: + from an even position, - from
// an odd one, the fabric's own tie rule), one group per hop, keeping its position. In one
// step one position per group sends + and another -, so each link of the ring carries one
// transfer each way. After phase 1 a block is in its destination's group at its source's
// position.
//
// Phase 2, dimension by dimension: in each group's line of 4 along d, position a puts to
// position b the blocks whose destination has position b along d: 12 transfers per line, in
// steps where no link (and no sender or receiver) is used twice.
func SuhShin(t *fabric.Torus, weights []int64) (*Schedule, error) {
	k := t.Radix()
	for d, r := range k {
		if r < 4 || r%4 != 0 {
			return nil, fmt.Errorf("alltoall: Suh-Shin on %v: dimension %s has %d nodes; want a multiple of 4 (groups of 4 per dimension)", t, dimName[d], r)
		}
	}
	n := t.Nodes()
	b, err := newBuilder(n, weights)
	if err != nil {
		return nil, err
	}
	stride := make([]int, len(k))
	s := 1
	for d := range k {
		stride[d] = s
		s *= k[d]
	}
	// coords[d][node] is node's coordinate along d, looked up: the moves' selections ask
	// for it for every block they scan.
	coords := make([][]int16, len(k))
	for d := range k {
		coords[d] = make([]int16, n)
		for node := range n {
			coords[d][node] = int16((node / stride[d]) % k[d])
		}
	}
	coord := func(node, d int) int { return int(coords[d][node]) }
	// at is node with coordinate d replaced by c (mod k[d]).
	at := func(node, d, c int) int {
		c = ((c % k[d]) + k[d]) % k[d]
		return node + (c-coord(node, d))*stride[d]
	}

	// Phase 1: between groups.
	for d := range k {
		m := k[d] / 4
		if m == 1 {
			continue
		}
		// dir is +1, -1 or 0 (already in its destination group along d) for a block, by its
		// source's group and position along d (a block keeps its position in phase 1, and
		// other dimensions' phase 1 does not change its coordinate along d).
		cd := coords[d]
		dir := func(blk int32) int {
			src, dst := int(blk)/n, int(blk)%n
			gs, gd, p := int(cd[src])/4, int(cd[dst])/4, int(cd[src])%4
			off := (gd - gs + m) % m
			switch {
			case off == 0:
				return 0
			case 2*off < m:
				return 1
			case 2*off > m:
				return -1
			case p%2 == 0:
				return 1
			}
			return -1
		}
		hops := func(p, sign int) int { // hops the + or - pipeline of position p needs
			if m%2 == 1 {
				return (m - 1) / 2
			}
			if (sign > 0) == (p%2 == 0) {
				return m / 2
			}
			return m/2 - 1
		}
		left := [2][4]int{}
		for p := range 4 {
			left[0][p], left[1][p] = hops(p, 1), hops(p, -1)
		}
		for {
			plus, minus := -1, -1
			for _, p := range []int{0, 1, 2, 3} {
				if left[0][p] > 0 {
					plus = p
					break
				}
			}
			for _, p := range []int{1, 2, 3, 0} {
				if left[1][p] > 0 && p != plus {
					minus = p
					break
				}
			}
			if plus < 0 && minus < 0 {
				break
			}
			var moves []move
			for node := range n {
				c := coord(node, d)
				g := c / 4
				switch c % 4 {
				case plus:
					moves = append(moves, move{node, at(node, d, c+4), func(blk int32) bool {
						return int(cd[int(blk)%n])/4 != g && dir(blk) == 1
					}})
				case minus:
					moves = append(moves, move{node, at(node, d, c-4), func(blk int32) bool {
						return int(cd[int(blk)%n])/4 != g && dir(blk) == -1
					}})
				}
			}
			if plus >= 0 {
				left[0][plus]--
			}
			if minus >= 0 {
				left[1][minus]--
			}
			b.step("inter-group "+dimName[d], moves)
		}
	}

	// Phase 2: within groups.
	for d := range k {
		cd := coords[d]
		for _, pairs := range lineSteps(k[d]) {
			var moves []move
			for node := range n {
				c := coord(node, d)
				for _, pr := range pairs {
					if c%4 != pr[0] {
						continue
					}
					want := pr[1]
					moves = append(moves, move{node, at(node, d, c-pr[0]+pr[1]), func(blk int32) bool {
						return int(cd[int(blk)%n])%4 == want
					}})
				}
			}
			b.step("intra-group "+dimName[d], moves)
		}
	}
	return b.done("suh-shin")
}

// lineSteps are the steps of the 12 transfers among the 4 positions of a group along a
// ring of k nodes: in each, no directed link carries two transfers and each position sends
// once and receives once (one port). Routes are the fabric's: minimal, half way round + from
// an even coordinate. On a line of 4 (k >= 8) the link from position 1 to 2 carries 4 of the
// transfers, so 4 steps is the least; on a ring of 4 one port gives 3 sends per node, 3 steps.
func lineSteps(k int) [][][2]int {
	if k == 4 {
		return [][][2]int{
			{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, // +1 round the ring
			{{1, 0}, {2, 1}, {3, 2}, {0, 3}}, // -1
			{{0, 2}, {2, 0}, {1, 3}, {3, 1}}, // half way: + from 0 and 2, - from 1 and 3
		}
	}
	return [][][2]int{
		{{0, 3}, {3, 0}},
		{{0, 2}, {2, 3}, {3, 1}, {1, 0}},
		{{0, 1}, {1, 3}, {3, 2}, {2, 0}},
		{{1, 2}, {2, 1}},
	}
}

// ContentionFree reports the first step in which two transfers share a link of net (the
// injection and ejection links count: a node sends and receives at most one transfer a step).
func (s *Schedule) ContentionFree(net *fabric.Network) error {
	for i, st := range s.Steps {
		used := map[int]int{}
		for j, t := range st.Transfers {
			ids, err := net.LinkIDs(t.Src, t.Dst)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if k, ok := used[id]; ok {
					o := st.Transfers[k]
					return fmt.Errorf("alltoall: %s step %d (%s): %d->%d and %d->%d share a link", s.Name, i, st.Phase, o.Src, o.Dst, t.Src, t.Dst)
				}
				used[id] = j
			}
		}
	}
	return nil
}
