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
	// final is what each node holds at the end (blocks as src<<16 | dst, in chunks), kept
	// for tests.
	final [][][]uint32
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

// Direct is the pairwise exchange: in step s (1..n-1) node i puts its block for node i+s
// (mod n) there. One start-up per block and no combining; its steps are not contention-free
// on a torus (it is the baseline, not a topology-aware algorithm). It is built on up to ways
// threads (the run's), the same schedule for any.
func Direct(n int, weights []int64, ways int) (*Schedule, error) {
	b, err := newBuilder(n, weights, ways)
	if err != nil {
		return nil, err
	}
	for s := 1; s < n; s++ {
		moves := make([]move, n)
		for i := range n {
			dst := (i + s) % n
			moves[i] = move{i, dst, func(blk uint32) bool { return blockDst(blk) == dst }}
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
// steps where no link (and no sender or receiver) is used twice. It is built on up to ways
// threads (the run's), the same schedule for any.
func SuhShin(t *fabric.Torus, weights []int64, ways int) (*Schedule, error) {
	g, err := newSuhShinGrid(t)
	if err != nil {
		return nil, err
	}
	k, n, coords, coord, at := g.k, t.Nodes(), g.coords, g.coord, g.at
	b, err := newBuilder(n, weights, ways)
	if err != nil {
		return nil, err
	}

	// The stages' keys, worked out first so that each stage can order its groups by the
	// next stage's keys (builder.stage).
	//
	// Phase 1, dimension d: every selection of its steps asks only for a block's destination
	// group and direction: the blocks are grouped by them (key 3*group + direction + 1), a
	// table by the source's and the destination's coordinates along d. dir is +1, -1 or 0
	// (already in its destination group along d) for a block, by its source's group and
	// position along d (a block keeps its position in phase 1, and other dimensions' phase 1
	// does not change its coordinate along d).
	var keys []*stageKey
	inter := make([]*stageKey, len(k))
	for d := range k {
		m := k[d] / 4
		if m == 1 {
			continue
		}
		cd := coords[d]
		dir := func(src, dst int) int {
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
		sk := &stageKey{nkeys: 3 * m, srcPart: make([]int32, n), dstPart: make([]int32, n), tab: make([]int32, k[d]*k[d])}
		for node := range n {
			sk.srcPart[node], sk.dstPart[node] = int32(cd[node])*int32(k[d]), int32(cd[node])
		}
		for cs := range k[d] {
			for ct := range k[d] {
				// Any nodes with these coordinates along d: dir looks at nothing else.
				sk.tab[cs*k[d]+ct] = int32(3*(ct/4) + dir(at(0, d, cs), at(0, d, ct)) + 1)
			}
		}
		inter[d] = sk
		keys = append(keys, sk)
	}
	// Phase 2: the blocks grouped by their destination's positions in its group, all
	// dimensions at once (key: position along d in bits 2d and 2d+1) when that makes few
	// groups, else one dimension at a time.
	dims := len(k)
	if len(k) > 3 {
		dims = 1
	}
	intra := make([]*stageKey, len(k))
	for d0 := 0; d0 < len(k); d0 += dims {
		sk := &stageKey{nkeys: 1 << (2 * dims), srcPart: make([]int32, n), dstPart: make([]int32, n), tab: make([]int32, 1<<(2*dims))}
		for node := range n {
			for d := d0; d < d0+dims; d++ {
				sk.dstPart[node] |= int32(coords[d][node]%4) << (2 * (d - d0))
			}
		}
		for c := range sk.tab {
			sk.tab[c] = int32(c)
		}
		intra[d0] = sk
		keys = append(keys, sk)
	}
	stages := 0
	stage := func(sk *stageKey) {
		var next *stageKey
		if stages+1 < len(keys) {
			next = keys[stages+1]
		}
		b.stage(sk, next)
		stages++
	}

	// Phase 1: between groups.
	for d := range k {
		m := k[d] / 4
		if m == 1 {
			continue
		}
		stage(inter[d])
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
			// The keys a sender in group g takes: blocks bound elsewhere going + (or -).
			take := [2][]([]int){make([][]int, m), make([][]int, m)}
			for g := range m {
				take[0][g] = selectKeys(3*m, func(key int) bool { return key/3 != g && key%3 == 2 })
				take[1][g] = selectKeys(3*m, func(key int) bool { return key/3 != g && key%3 == 0 })
			}
			var moves []keyMove
			for node := range n {
				c := coord(node, d)
				g := c / 4
				switch c % 4 {
				case plus:
					moves = append(moves, keyMove{node, at(node, d, c+4), take[0][g]})
				case minus:
					moves = append(moves, keyMove{node, at(node, d, c-4), take[1][g]})
				}
			}
			if plus >= 0 {
				left[0][plus]--
			}
			if minus >= 0 {
				left[1][minus]--
			}
			b.stepKeys("inter-group "+dimName[d], moves)
		}
	}

	// Phase 2: within groups.
	for d0 := 0; d0 < len(k); d0 += dims {
		stage(intra[d0])
		for d := d0; d < d0+dims; d++ {
			shift := 2 * (d - d0)
			// The keys bound for position want along d.
			var take [4][]int
			for want := range 4 {
				take[want] = selectKeys(intra[d0].nkeys, func(key int) bool { return key>>shift&3 == want })
			}
			for _, pairs := range lineSteps(k[d]) {
				var moves []keyMove
				for node := range n {
					c := coord(node, d)
					for _, pr := range pairs {
						if c%4 != pr[0] {
							continue
						}
						moves = append(moves, keyMove{node, at(node, d, c-pr[0]+pr[1]), take[pr[1]]})
					}
				}
				b.stepKeys("intra-group "+dimName[d], moves)
			}
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

// suhShinGrid is the torus as Suh-Shin's moves look at it: its radices, and each node's
// coordinate along each dimension, looked up (the moves' selections ask for it for every
// block they scan).
type suhShinGrid struct {
	k, stride []int
	coords    [][]int16 // coords[d][node]
}

// newSuhShinGrid refuses a torus whose dimensions do not split into groups of 4.
func newSuhShinGrid(t *fabric.Torus) (*suhShinGrid, error) {
	k := t.Radix()
	for d, r := range k {
		if r < 4 || r%4 != 0 {
			return nil, fmt.Errorf("alltoall: Suh-Shin on %v: dimension %s has %d nodes; want a multiple of 4 (groups of 4 per dimension)", t, dimName[d], r)
		}
	}
	g := &suhShinGrid{k: k, stride: make([]int, len(k)), coords: make([][]int16, len(k))}
	s := 1
	for d := range k {
		g.stride[d] = s
		s *= k[d]
	}
	for d := range k {
		g.coords[d] = make([]int16, t.Nodes())
		for node := range t.Nodes() {
			g.coords[d][node] = int16((node / g.stride[d]) % k[d])
		}
	}
	return g, nil
}

// coord is node's coordinate along d.
func (g *suhShinGrid) coord(node, d int) int { return int(g.coords[d][node]) }

// at is node with its coordinate along d replaced by c (mod k[d]).
func (g *suhShinGrid) at(node, d, c int) int {
	k := g.k[d]
	c = ((c % k) + k) % k
	return node + (c-g.coord(node, d))*g.stride[d]
}
