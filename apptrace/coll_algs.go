package apptrace

// The algorithms of Open MPI 4.1's coll/base (ompi/mca/coll/base/coll_base_*.c at v4.1.4) as
// the messages each rank sends and receives, round by round, with segments of the whole
// message (tuned's fixed decision passes a segment size of 0). Where an algorithm is written as
// another here, docs/apps.md says so.

// tree is a rooted tree over virtual ranks (0: the root): its parent (-1 at the root) and
// children, for binomial (coll_base_topo.c's bmtree), k-ary (binary: k 2; the chain of
// pipeline: k 1) and k-nomial (radix 4, tuned's bcast_knomial_radix) trees.
func tree(kind string, v, n int) (parent int, children []int) {
	parent = -1
	switch kind {
	case "binomial":
		for mask := 1; mask < n; mask <<= 1 {
			if v&mask != 0 {
				parent = v &^ mask
				break
			}
			if v|mask < n {
				children = append(children, v|mask)
			}
		}
	case "binary", "pipeline":
		k := 2
		if kind == "pipeline" {
			k = 1
		}
		if v > 0 {
			parent = (v - 1) / k
		}
		for c := v*k + 1; c <= v*k+k && c < n; c++ {
			children = append(children, c)
		}
	case "knomial":
		const radix = 4
		for mask := 1; mask < n; mask *= radix {
			if v%(mask*radix) != 0 {
				parent = v - v%(mask*radix)
				break
			}
			for j := 1; j < radix && v+j*mask < n; j++ {
				children = append(children, v+j*mask)
			}
		}
	}
	return parent, children
}

func (x *collCtx) real(v, root int) int { return (v + root) % x.n }
func (x *collCtx) virt(root int) int    { return (x.me - root + x.n) % x.n }

// down sends size bytes from the root down a tree: receive from the parent, then send to
// every child.
func (x *collCtx) down(kind string, root int, size uint64) {
	p, ch := tree(kind, x.virt(root), x.n)
	if p >= 0 {
		x.recv(x.real(p, root), size)
		x.step()
	}
	for _, c := range ch {
		x.send(x.real(c, root), size)
	}
	x.step()
}

// up reduces size bytes up a tree: receive from every child, then send to the parent.
func (x *collCtx) up(kind string, root int, size uint64) {
	p, ch := tree(kind, x.virt(root), x.n)
	for _, c := range ch {
		x.recv(x.real(c, root), size)
	}
	x.step()
	if p >= 0 {
		x.send(x.real(p, root), size)
	}
	x.step()
}

func (x *collCtx) linearDown(root int, size uint64) {
	if x.me == root {
		for i := 0; i < x.n; i++ {
			x.send(i, size)
		}
	} else {
		x.recv(root, size)
	}
	x.step()
}

func (x *collCtx) linearUp(root int, size uint64) {
	if x.me == root {
		for i := 0; i < x.n; i++ {
			x.recv(i, size)
		}
	} else {
		x.send(root, size)
	}
	x.step()
}

func (x *collCtx) barrier(alg string) {
	switch alg {
	case "linear":
		x.linearUp(0, 0)
		x.linearDown(0, 0)
	case "double_ring":
		right, left := (x.me+1)%x.n, (x.me+x.n-1)%x.n
		for round := 0; round < 2; round++ {
			if x.me == 0 {
				x.send(right, 0)
				x.step()
				x.recv(left, 0)
			} else {
				x.recv(left, 0)
				x.step()
				x.send(right, 0)
			}
			x.step()
		}
	case "bruck":
		for d := 1; d < x.n; d <<= 1 {
			x.send((x.me+d)%x.n, 0)
			x.recv((x.me-d+x.n)%x.n, 0)
			x.step()
		}
	case "tree":
		x.up("binomial", 0, 0)
		x.down("binomial", 0, 0)
	default: // recursive_doubling, two_proc
		x.recDoubling(0)
	}
}

func (x *collCtx) bcast(alg string, root int, s uint64) {
	switch alg {
	case "basic_linear":
		x.linearDown(root, s)
	case "chain", "pipeline":
		x.down("pipeline", root, s)
	case "split_binary_tree", "binary_tree":
		x.down("binary", root, s)
	case "knomial":
		x.down("knomial", root, s)
	case "scatter_allgather", "scatter_allgather_ring":
		blk := (s + uint64(x.n) - 1) / uint64(x.n)
		x.scatterTree(root, uniform(x.n, blk))
		if alg == "scatter_allgather" {
			x.allgather(fallback(Allgather, "recursive_doubling", x.n, blk), uniform(x.n, blk))
		} else {
			x.allgather("ring", uniform(x.n, blk))
		}
	default: // binomial
		x.down("binomial", root, s)
	}
}

func (x *collCtx) reduce(alg string, root int, s uint64) {
	switch alg {
	case "linear":
		x.linearUp(root, s)
	case "chain", "pipeline":
		x.up("pipeline", root, s)
	case "binary":
		x.up("binary", root, s)
	case "in_order_binary":
		// The tree is rooted at the last rank, which passes the result to the root.
		last := x.n - 1
		x.up("binary", last, s)
		if last != root {
			if x.me == last {
				x.send(root, s)
			} else if x.me == root {
				x.recv(last, s)
			}
			x.step()
		}
	default: // binomial, rabenseifner
		x.up("binomial", root, s)
	}
}

// recDoubling is coll_base_allreduce_intra_recursivedoubling's exchange (and the barrier's):
// with n not a power of two, the first 2 x rem ranks pair up first and last.
func (x *collCtx) recDoubling(s uint64) {
	pof2 := 1
	for pof2*2 <= x.n {
		pof2 *= 2
	}
	rem := x.n - pof2
	newrank := x.me - rem
	if x.me < 2*rem {
		if x.me%2 == 0 {
			x.send(x.me+1, s)
			newrank = -1
		} else {
			x.recv(x.me-1, s)
			newrank = x.me / 2
		}
		x.step()
	}
	if newrank >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			nr := newrank ^ mask
			remote := nr + rem
			if nr < rem {
				remote = nr*2 + 1
			}
			x.send(remote, s)
			x.recv(remote, s)
			x.step()
		}
	}
	if x.me < 2*rem {
		if x.me%2 == 1 {
			x.send(x.me-1, s)
		} else {
			x.recv(x.me+1, s)
		}
		x.step()
	}
}

// halvingDoubling is Rabenseifner's allreduce (coll_base_allreduce_intra_redscat_allgather):
// a reduce-scatter by recursive halving and an allgather by recursive doubling among a power
// of two ranks, the others folded in first and served last.
func (x *collCtx) halvingDoubling(s uint64, allgather bool) {
	pof2 := 1
	for pof2*2 <= x.n {
		pof2 *= 2
	}
	rem := x.n - pof2
	newrank := x.me - rem
	if x.me < 2*rem {
		if x.me%2 == 0 {
			x.send(x.me+1, s)
			newrank = -1
		} else {
			x.recv(x.me-1, s)
			newrank = x.me / 2
		}
		x.step()
	}
	remote := func(nr int) int {
		if nr < rem {
			return nr*2 + 1
		}
		return nr + rem
	}
	if newrank >= 0 {
		part := s
		var sizes []uint64
		for mask := pof2 / 2; mask >= 1; mask /= 2 {
			part = (part + 1) / 2
			sizes = append(sizes, part)
			r := remote(newrank ^ mask)
			x.send(r, part)
			x.recv(r, part)
			x.step()
		}
		if allgather {
			i := len(sizes) - 1
			for mask := 1; mask < pof2; mask <<= 1 {
				r := remote(newrank ^ mask)
				x.send(r, sizes[i])
				x.recv(r, sizes[i])
				x.step()
				i--
			}
		}
	}
	if x.me < 2*rem && allgather {
		if x.me%2 == 1 {
			x.send(x.me-1, s)
		} else {
			x.recv(x.me+1, s)
		}
		x.step()
	}
}

func (x *collCtx) allreduce(alg string, s uint64) {
	switch alg {
	case "basic_linear":
		x.linearUp(0, s)
		x.linearDown(0, s)
	case "nonoverlapping":
		x.reduce(tunedChoice(Reduce, x.n, s), 0, s)
		x.bcast(tunedChoice(Bcast, x.n, s), 0, s)
	case "ring", "segmented_ring": // with as many elements as ranks at least (fallback)
		b := split(s, x.n)
		x.ring(b, true, true)
	case "rabenseifner":
		x.halvingDoubling(s, true)
	default: // recursive_doubling
		x.recDoubling(s)
	}
}

// split is s bytes in n blocks, the first ones a byte larger where it does not divide.
func split(s uint64, n int) []uint64 {
	b := make([]uint64, n)
	for i := range b {
		b[i] = s / uint64(n)
		if uint64(i) < s%uint64(n) {
			b[i]++
		}
	}
	return b
}

// ring passes blocks around the ring: n-1 rounds of a reduce-scatter (reduce) and n-1 of an
// allgather (gather).
func (x *collCtx) ring(b []uint64, reduce, gather bool) {
	n, right, left := x.n, (x.me+1)%x.n, (x.me+x.n-1)%x.n
	if reduce {
		for k := 0; k < n-1; k++ {
			x.send(right, b[(x.me-k+2*n)%n])
			x.recv(left, b[(x.me-k-1+2*n)%n])
			x.step()
		}
	}
	if !gather {
		return
	}
	off := 0
	if reduce {
		off = 1 // after the reduce-scatter a rank holds block me+1
	}
	for k := 0; k < n-1; k++ {
		x.send(right, b[(x.me+off-k+2*n)%n])
		x.recv(left, b[(x.me+off-k-1+2*n)%n])
		x.step()
	}
}
