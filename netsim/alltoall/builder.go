package alltoall

// The builder behind the schedules: it moves every block (source, destination) from node to
// node as the steps say, so that each put's size is known and a test can check that every
// node ends with exactly its blocks.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

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
	ways  int // threads a stage's grouping runs on (netsim.Split)
}

func blockSrc(blk uint32) int { return int(blk >> 16) }
func blockDst(blk uint32) int { return int(blk & 0xffff) }

func newBuilder(n int, weights []int64, ways int) (*builder, error) {
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
	b := &builder{n: n, weights: weights, even: true, fresh: true, ways: max(ways, 1)}
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
// with no stage after it, only copies runs). Each node's blocks are grouped apart from every
// other's, so the nodes are dealt out to as many goroutines as the Go scheduler has threads
// (netsim.Split: a 4,096-node schedule moves 16 M blocks a stage); the result is the same for
// any number.
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
	_ = netsim.Split(b.ways, b.n, func(lo, hi int) error {
		st := &stager{b: b, sk: sk, next: next, old: old, oldKeys: oldKeys, sub: sub,
			at: make([]int, nkeys*sub), count: make([]int, nkeys*sub)}
		for node := lo; node < hi; node++ {
			st.node(node)
		}
		return nil
	})
	b.hold, b.fresh = make([][]uint32, b.n), false
}

// stager groups nodes' blocks for a stage (builder.stage), with its own scratch space.
type stager struct {
	b            *builder
	sk, next     *stageKey
	old          [][]chunk
	oldKeys, sub int
	keys         []int32
	mine         []uint32
	chunks       []chunk
	at, count    []int
}

// node groups one node's blocks.
func (st *stager) node(node int) {
	b, sk, next, sub := st.b, st.sk, st.next, st.sub
	nkeys := sk.nkeys
	at, count := st.at, st.count
	size := b.size[node*nkeys : (node+1)*nkeys]
	ws := b.wsum[node*nkeys : (node+1)*nkeys]
	chunks := st.chunks[:0]
	defer func() { st.chunks = chunks }()
	if st.old == nil {
		// Nothing has moved: the node holds its own blocks, made here, not stored.
		mine := st.mine[:0]
		for j := range b.n {
			if j != node {
				mine = append(mine, uint32(node)<<16|uint32(j))
			}
		}
		st.mine = mine
		chunks = append(chunks, chunk{blks: mine})
	} else {
		for _, cs := range st.old[node*st.oldKeys : (node+1)*st.oldKeys] {
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
		return
	}
	// A counting sort into one array a node: the blocks' keys first, then their places.
	keys := st.keys[:0]
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
	st.keys = keys
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
