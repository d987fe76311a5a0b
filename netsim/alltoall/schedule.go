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

// stageKey is how a stage keys a block: tab[srcPart[src] + dstPart[dst]], in 0..nkeys-1 (a
// table lookup, since every block is keyed again at every stage).
type stageKey struct {
	nkeys            int
	srcPart, dstPart []int32
	tab              []int32
}

func (s *stageKey) of(blk uint32) int32 {
	return s.tab[s.srcPart[blockSrc(blk)]+s.dstPart[blockDst(blk)]]
}

// stage groups every node's blocks by key (sk) for the steps that follow (stepKeys), whose
// moves select by key alone. With next, each group's blocks are also ordered by their key in
// the next stage, which then takes every block's key from its run instead of its table (and,
// with no stage after it, only copies runs).
func (b *builder) stage(sk, next *stageKey) {
	nkeys := sk.nkeys
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
	sub := 1 // sort key: key*sub + next key
	if next != nil {
		sub = next.nkeys
	}
	var keys []int32
	var mine []uint32
	var chunks []chunk
	at := make([]int, nkeys*sub)
	count := make([]int, nkeys*sub)
	for node := range b.n {
		size := b.size[node*nkeys : (node+1)*nkeys]
		ws := b.wsum[node*nkeys : (node+1)*nkeys]
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
		total, ordered := 0, true
		for _, c := range chunks {
			total += len(c.blks)
			ordered = ordered && c.runs != nil
		}
		arr := make([]uint32, total)
		if ordered && next == nil {
			// The last stage ordered every chunk by this stage's keys: copy runs.
			for _, c := range chunks {
				for k := range nkeys {
					size[k] += int(c.runs[k+1] - c.runs[k])
				}
			}
			pos := 0
			for k, c := range size {
				at[k] = pos
				pos += c
			}
			for _, c := range chunks {
				for k := range nkeys {
					run := c.blks[c.runs[k]:c.runs[k+1]]
					copy(arr[at[k]:], run)
					at[k] += len(run)
					if !b.even {
						for _, blk := range run {
							ws[k] += b.weights[blockSrc(blk)]
						}
					}
				}
			}
			from := 0
			for k, to := range at[:nkeys] {
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
			if c.runs != nil {
				for k := range nkeys {
					for _, blk := range c.blks[c.runs[k]:c.runs[k+1]] {
						key := int32(k * sub)
						if next != nil {
							key += next.of(blk)
						}
						keys = append(keys, key)
						count[key]++
					}
				}
				continue
			}
			for _, blk := range c.blks {
				key := sk.of(blk) * int32(sub)
				if next != nil {
					key += next.of(blk)
				}
				keys = append(keys, key)
				count[key]++
			}
		}
		pos := 0
		for k, c := range count {
			at[k] = pos
			pos += c
		}
		i := 0
		for _, c := range chunks {
			if c.runs != nil {
				for k := range nkeys {
					for _, blk := range c.blks[c.runs[k]:c.runs[k+1]] {
						arr[at[keys[i]]] = blk
						at[keys[i]]++
						i++
					}
				}
				continue
			}
			for _, blk := range c.blks {
				arr[at[keys[i]]] = blk
				at[keys[i]]++
				i++
			}
		}
		from := 0
		for k := range nkeys {
			to := at[(k+1)*sub-1]
			if to == from {
				continue
			}
			size[k] = to - from
			if !b.even {
				for _, blk := range arr[from:to] {
					ws[k] += b.weights[blockSrc(blk)]
				}
			}
			c := chunk{blks: arr[from:to]}
			if next != nil {
				c.runs = make([]int32, sub+1)
				for j := range sub {
					c.runs[j+1] = int32(at[k*sub+j] - from)
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

// keyMove is a move of a stage: from src to dst, the blocks of keys (selectKeys).
type keyMove struct {
	src, dst int
	keys     []int
}

// selectKeys is the keys below n that sel selects.
func selectKeys(n int, sel func(key int) bool) []int {
	var out []int
	for k := range n {
		if sel(k) {
			out = append(out, k)
		}
	}
	return out
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
		for _, k := range m.keys {
			idx := m.src*nk + k
			if b.size[idx] == 0 {
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
	if b.fresh {
		b.lists()
	}
	// Blocks are only moved, never copied or lost: n-1 blocks, each addressed to the node
	// that holds it, are the n-1 from the other nodes.
	final := make([][][]uint32, b.n)
	for i := range b.n {
		if b.group == nil {
			final[i] = [][]uint32{b.hold[i]}
		} else {
			for _, chunks := range b.group[i*b.nkeys : (i+1)*b.nkeys] {
				for _, c := range chunks {
					final[i] = append(final[i], c.blks)
				}
			}
		}
		held := 0
		for _, blks := range final[i] {
			held += len(blks)
			for _, blk := range blks {
				if blockDst(blk) != i {
					return nil, fmt.Errorf("alltoall: %s: node %d ends with block %d->%d", name, i, blockSrc(blk), blockDst(blk))
				}
			}
		}
		if held != b.n-1 {
			return nil, fmt.Errorf("alltoall: %s: node %d ends with %d blocks, want %d", name, i, held, b.n-1)
		}
	}
	return &Schedule{Name: name, Nodes: b.n, Steps: b.steps, Weights: b.weights, final: final}, nil
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
