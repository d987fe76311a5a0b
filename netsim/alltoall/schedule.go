// Package alltoall is all-to-all personalized exchange on the simulated machine (package
// cluster) and the all-to-all paper's way of running its steps: a start-time synchronisation by hardware
// sync packets (section 3.1, dimension by dimension on a torus as section 4.1 says), then a
// locally computed wait per step (section 3.2), against a barrier between steps and against
// synchronising only at the start (Figure 3's three schemes of the all-to-all paper).
//
// The schedules (SuhShin, Direct) are lists of steps of puts. Each put carries combined
// blocks: the builder moves every block (source, destination) from node to node as the
// steps say, so the size of each put is known, and a test checks that every node ends with
// exactly its blocks. docs/alltoall.md says where each step of SuhShin comes from.
package alltoall

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
	// final is what each node holds at the end (blocks as src<<16 | dst), kept for tests.
	final [][]uint32
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

// builder moves blocks between nodes step by step. A block is src<<16 | dst (n is at most
// maxTracked, below 1<<16), so that its ends come out without a division.
type builder struct {
	n       int
	hold    [][]uint32 // blocks each node holds, outside a stage
	fresh   bool       // nothing has moved, and hold is not made yet: each node holds its own
	weights []int64
	steps   []Step
	// In a stage (stage, stepKeys), each node's blocks are grouped by a key that decides
	// every selection of the stage's steps, so a step moves whole groups instead of
	// looking at every block: group[node*nkeys+key], its blocks in chunks that are handed
	// on whole (never copied), how many, and the sum of their weights.
	nkeys int
	group [][]chunk
	size  []int
	wsum  []int64 // unless even: every weight the same, a group's is its size times it
	even  bool
}

func blockSrc(blk uint32) int { return int(blk >> 16) }
func blockDst(blk uint32) int { return int(blk & 0xffff) }

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
	b := &builder{n: n, weights: weights, even: true, fresh: true}
	for _, w := range weights {
		b.even = b.even && w == weights[0]
	}
	return b, nil
}

// lists gives every node its list of blocks (hold): the ones it starts with, if nothing has
// moved yet, or those of the stage's groups.
func (b *builder) lists() {
	if b.fresh {
		b.hold = make([][]uint32, b.n)
		for i := range b.n {
			b.hold[i] = make([]uint32, 0, b.n-1)
			for j := range b.n {
				if j != i {
					b.hold[i] = append(b.hold[i], uint32(i)<<16|uint32(j))
				}
			}
		}
		b.fresh = false
	}
	b.unstage()
}

// move is one transfer to make: from src to dst, the blocks keep selects.
type move struct {
	src, dst int
	keep     func(block uint32) bool // true: the block goes
}

// step takes every move's blocks from its source first, then hands them over (the
// transfers of a step are simultaneous). A move that would carry nothing is left out.
func (b *builder) step(phase string, moves []move) {
	b.lists()
	type taken struct {
		m      move
		blocks []uint32
	}
	var ts []taken
	for _, m := range moves {
		// The blocks that stay are packed in place, in order (the source's own array: no
		// allocation), the ones that go copied out.
		h := b.hold[m.src]
		var go_ []uint32
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
			w += b.weights[blockSrc(blk)]
		}
		b.hold[t.m.dst] = append(b.hold[t.m.dst], t.blocks...)
		st.Transfers = append(st.Transfers, Transfer{Src: t.m.src, Dst: t.m.dst, Blocks: len(t.blocks), Weight: w})
	}
	if len(st.Transfers) > 0 {
		b.steps = append(b.steps, st)
	}
}

// chunk is part of a group, handed on whole. With runs, its blocks are ordered by their key
// in the next stage, whose blocks of key j are blks[runs[j]:runs[j+1]].
type chunk struct {
	blks []uint32
	runs []int32
}

// stage groups every node's blocks by key, in 0..nkeys-1, for the steps that follow
// (stepKeys), whose moves select by key alone. A block's key is tab[srcPart[src] +
// dstPart[dst]]: a table lookup, since every block is keyed again at every stage. With
// nextKey (0..nextKeys-1 by destination), each group's blocks are also ordered by their key
// in the next stage, which then only copies runs of blocks (its keys must be nextKey).
func (b *builder) stage(nkeys int, srcPart, dstPart []int32, tab []int32, nextKeys int, nextKey []int32) {
	old, oldKeys := b.group, b.nkeys
	if old == nil && !b.fresh {
		old, oldKeys = make([][]chunk, b.n), 1
		for node, h := range b.hold {
			old[node] = []chunk{{blks: h}}
		}
	}
	b.nkeys = nkeys
	b.group = make([][]chunk, b.n*nkeys)
	b.size = make([]int, b.n*nkeys)
	b.wsum = make([]int64, b.n*nkeys)
	sub := max(1, nextKeys) // sort key: key*sub + next key
	var keys []int32
	var mine []uint32
	var chunks []chunk
	next := make([]int, nkeys*sub)
	count := make([]int, nkeys*sub)
	for node := range b.n {
		size := b.size[node*nkeys : (node+1)*nkeys]
		chunks = chunks[:0]
		if old == nil {
			// Nothing has moved: the node holds its own blocks, made here, not stored.
			mine = mine[:0]
			for j := range b.n {
				if j != node {
					mine = append(mine, uint32(node)<<16|uint32(j))
				}
			}
			chunks = append(chunks, chunk{blks: mine})
		} else {
			for _, cs := range old[node*oldKeys : (node+1)*oldKeys] {
				chunks = append(chunks, cs...)
			}
		}
		total := 0
		for _, c := range chunks {
			total += len(c.blks)
		}
		arr := make([]uint32, total)
		ws := b.wsum[node*nkeys : (node+1)*nkeys]
		if nextKeys == 0 && len(chunks) > 0 && chunks[0].runs != nil {
			// The last stage ordered every chunk by this stage's keys: copy runs.
			for _, c := range chunks {
				for k := range nkeys {
					size[k] += int(c.runs[k+1] - c.runs[k])
				}
			}
			at := 0
			for k, c := range size {
				next[k] = at
				at += c
			}
			for _, c := range chunks {
				for k := range nkeys {
					run := c.blks[c.runs[k]:c.runs[k+1]]
					copy(arr[next[k]:], run)
					next[k] += len(run)
					if !b.even {
						for _, blk := range run {
							ws[k] += b.weights[blockSrc(blk)]
						}
					}
				}
			}
			from := 0
			for k, to := range next[:nkeys] {
				if to > from {
					b.group[node*nkeys+k] = []chunk{{blks: arr[from:to]}}
				}
				from = to
			}
			continue
		}
		// A counting sort into one array a node: the blocks' keys first, then their places.
		keys = keys[:0]
		clear(count)
		for _, c := range chunks {
			for _, blk := range c.blks {
				k := tab[srcPart[blockSrc(blk)]+dstPart[blockDst(blk)]]
				if sub > 1 {
					k = k*int32(sub) + nextKey[blockDst(blk)]
				}
				keys = append(keys, k)
				count[k]++
			}
		}
		at := 0
		for k, c := range count {
			next[k] = at
			at += c
		}
		i := 0
		for _, c := range chunks {
			for _, blk := range c.blks {
				k := keys[i]
				i++
				arr[next[k]] = blk
				next[k]++
				if !b.even {
					ws[int(k)/sub] += b.weights[blockSrc(blk)]
				}
			}
		}
		from := 0
		for k := range nkeys {
			to := next[(k+1)*sub-1]
			if to == from {
				continue
			}
			size[k] = to - from
			c := chunk{blks: arr[from:to]}
			if sub > 1 {
				c.runs = make([]int32, sub+1)
				for j := range sub {
					c.runs[j+1] = int32(next[k*sub+j] - from)
				}
			}
			b.group[node*nkeys+k] = []chunk{c}
			from = to
		}
	}
	b.hold, b.fresh = make([][]uint32, b.n), false
}

// unstage puts every node's blocks back in one list.
func (b *builder) unstage() {
	if b.group == nil {
		return
	}
	for node := range b.n {
		var h []uint32
		for _, chunks := range b.group[node*b.nkeys : (node+1)*b.nkeys] {
			for _, c := range chunks {
				h = append(h, c.blks...)
			}
		}
		b.hold[node] = h
	}
	b.group, b.size, b.wsum, b.nkeys = nil, nil, nil, 0
}

// keyMove is a move of a stage: from src to dst, the blocks of the keys sel selects.
type keyMove struct {
	src, dst int
	sel      func(key int) bool
}

// stepKeys is step in a stage: every move takes its groups whole, then hands them over.
func (b *builder) stepKeys(phase string, moves []keyMove) {
	type taken struct {
		dst, key, size int
		chunks         []chunk
		w              int64
	}
	var ts []taken
	st := Step{Phase: phase}
	nk := b.nkeys
	for _, m := range moves {
		t := Transfer{Src: m.src, Dst: m.dst}
		for k := range nk {
			idx := m.src*nk + k
			if b.size[idx] == 0 || !m.sel(k) {
				continue
			}
			w := b.wsum[idx]
			if b.even {
				w = int64(b.size[idx]) * b.weights[0]
			}
			ts = append(ts, taken{m.dst, k, b.size[idx], b.group[idx], w})
			t.Blocks += b.size[idx]
			t.Weight += w
			b.group[idx], b.size[idx], b.wsum[idx] = nil, 0, 0
		}
		if t.Blocks > 0 {
			st.Transfers = append(st.Transfers, t)
		}
	}
	for _, t := range ts {
		idx := t.dst*nk + t.key
		if b.size[idx] == 0 {
			b.group[idx] = t.chunks
		} else {
			b.group[idx] = append(b.group[idx], t.chunks...)
		}
		b.size[idx] += t.size
		b.wsum[idx] += t.w
	}
	if len(st.Transfers) > 0 {
		b.steps = append(b.steps, st)
	}
}

func (b *builder) done(name string) (*Schedule, error) {
	b.lists()
	// Blocks are only moved, never copied or lost: n-1 blocks, each addressed to the node
	// that holds it, are the n-1 from the other nodes.
	for i, h := range b.hold {
		if len(h) != b.n-1 {
			return nil, fmt.Errorf("alltoall: %s: node %d ends with %d blocks, want %d", name, i, len(h), b.n-1)
		}
		for _, blk := range h {
			if blockDst(blk) != i {
				return nil, fmt.Errorf("alltoall: %s: node %d ends with block %d->%d", name, i, blockSrc(blk), blockDst(blk))
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

	// Phase 2's groups: by the destination's positions in its group, all dimensions at once
	// (key: position along d in bits 2d and 2d+1) when that makes few groups, else one
	// dimension at a time. intraKey gives each destination its key for dimensions d0..d0+dims-1.
	dims := len(k)
	if len(k) > 3 {
		dims = 1
	}
	intraKey := func(d0 int) []int32 {
		key := make([]int32, n)
		for node := range n {
			for d := d0; d < d0+dims; d++ {
				key[node] |= int32(coords[d][node]%4) << (2 * (d - d0))
			}
		}
		return key
	}
	lastInter := -1 // the last dimension with steps between groups
	for d := range k {
		if k[d] > 4 {
			lastInter = d
		}
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
		// Every selection of this dimension's steps asks only for a block's destination
		// group and direction: group the blocks by them (key 3*group + direction + 1), a
		// table by the source's and the destination's coordinates along d.
		srcPart, dstPart := make([]int32, n), make([]int32, n)
		for node := range n {
			srcPart[node], dstPart[node] = int32(cd[node])*int32(k[d]), int32(cd[node])
		}
		tab := make([]int32, k[d]*k[d])
		for cs := range k[d] {
			for ct := range k[d] {
				// Any nodes with these coordinates along d: dir looks at nothing else.
				tab[cs*k[d]+ct] = int32(3*(ct/4) + dir(at(0, d, cs), at(0, d, ct)) + 1)
			}
		}
		if d == lastInter {
			// Its groups ordered by their phase 2 keys, which then only copies runs.
			b.stage(3*m, srcPart, dstPart, tab, 1<<(2*dims), intraKey(0))
		} else {
			b.stage(3*m, srcPart, dstPart, tab, 0, nil)
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
			var moves []keyMove
			for node := range n {
				c := coord(node, d)
				g := c / 4
				switch c % 4 {
				case plus:
					moves = append(moves, keyMove{node, at(node, d, c+4), func(key int) bool {
						return key/3 != g && key%3 == 2
					}})
				case minus:
					moves = append(moves, keyMove{node, at(node, d, c-4), func(key int) bool {
						return key/3 != g && key%3 == 0
					}})
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
		dstPart := intraKey(d0)
		tab := make([]int32, 1<<(2*dims))
		for c := range tab {
			tab[c] = int32(c)
		}
		b.stage(len(tab), make([]int32, n), dstPart, tab, 0, nil)
		for d := d0; d < d0+dims; d++ {
			shift := 2 * (d - d0)
			for _, pairs := range lineSteps(k[d]) {
				var moves []keyMove
				for node := range n {
					c := coord(node, d)
					for _, pr := range pairs {
						if c%4 != pr[0] {
							continue
						}
						want := pr[1]
						moves = append(moves, keyMove{node, at(node, d, c-pr[0]+pr[1]), func(key int) bool { return key>>shift&3 == want }})
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
