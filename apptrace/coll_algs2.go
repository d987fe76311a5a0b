package apptrace

// subtree is the number of virtual ranks in v's subtree.
func subtree(kind string, v, n int) []int {
	_, ch := tree(kind, v, n)
	s := []int{v}
	for _, c := range ch {
		s = append(s, subtree(kind, c, n)...)
	}
	return s
}

func (x *collCtx) blockSum(b []uint64, vs []int, root int) uint64 {
	var s uint64
	for _, v := range vs {
		s += b[x.real(v, root)]
	}
	return s
}

func (x *collCtx) gatherTree(root int, b []uint64) {
	v := x.virt(root)
	p, ch := tree("binomial", v, x.n)
	for _, c := range ch {
		x.recv(x.real(c, root), x.blockSum(b, subtree("binomial", c, x.n), root))
	}
	x.step()
	if p >= 0 {
		x.send(x.real(p, root), x.blockSum(b, subtree("binomial", v, x.n), root))
	}
	x.step()
}

func (x *collCtx) scatterTree(root int, b []uint64) {
	v := x.virt(root)
	p, ch := tree("binomial", v, x.n)
	if p >= 0 {
		x.recv(x.real(p, root), x.blockSum(b, subtree("binomial", v, x.n), root))
		x.step()
	}
	for _, c := range ch {
		x.send(x.real(c, root), x.blockSum(b, subtree("binomial", c, x.n), root))
	}
	x.step()
}

func (x *collCtx) gatherLinear(root int, b []uint64) {
	if x.me == root {
		for i := 0; i < x.n; i++ {
			x.recv(i, b[i])
		}
	} else {
		x.send(root, b[x.me])
	}
	x.step()
}

func (x *collCtx) scatterLinear(root int, b []uint64) {
	if x.me == root {
		for i := 0; i < x.n; i++ {
			x.send(i, b[i])
		}
	} else {
		x.recv(root, b[x.me])
	}
	x.step()
}

func (x *collCtx) allgather(alg string, b []uint64) {
	n := x.n
	switch {
	case alg == "linear" || alg == "default":
		x.gatherLinear(0, b)
		x.linearDown(0, sum(b))
	case alg == "two_proc":
		x.send(1-x.me, b[x.me])
		x.recv(1-x.me, b[1-x.me])
		x.step()
	case alg == "recursive_doubling": // on a power of two (fallback)
		for mask := 1; mask < n; mask <<= 1 {
			r := x.me ^ mask
			// Each holds the blocks of its aligned group of mask ranks.
			x.send(r, x.groupSum(b, x.me&^(mask-1), mask))
			x.recv(r, x.groupSum(b, r&^(mask-1), mask))
			x.step()
		}
	case alg == "neighbor": // on an even size (fallback)
		// coll_base_allgather_intra_neighborexchange: one block with one neighbour, then two
		// blocks at a time alternating sides.
		var nb [2]int
		if x.me%2 == 0 {
			nb = [2]int{(x.me + 1) % n, (x.me - 1 + n) % n}
		} else {
			nb = [2]int{(x.me - 1 + n) % n, (x.me + 1) % n}
		}
		x.send(nb[0], b[x.me])
		x.recv(nb[0], b[nb[0]])
		x.step()
		mean := sum(b) / uint64(n)
		for i := 1; i < n/2; i++ {
			x.send(nb[i%2], 2*mean)
			x.recv(nb[i%2], 2*mean)
			x.step()
		}
	case alg == "ring":
		x.ring(b, false, true)
	default: // bruck, and recursive doubling on a size that is not a power of two
		for d := 1; d < n; d <<= 1 {
			cnt := min(d, n-d)
			x.send((x.me-d+n)%n, x.groupSum(b, x.me, cnt))
			x.recv((x.me+d)%n, x.groupSum(b, (x.me+d)%n, cnt))
			x.step()
		}
	}
}

// groupSum is the bytes of blocks first, first+1, ... (cnt of them, around the ring).
func (x *collCtx) groupSum(b []uint64, first, cnt int) uint64 {
	var s uint64
	for j := 0; j < cnt; j++ {
		s += b[(first+j)%x.n]
	}
	return s
}

// alltoall: to[i] bytes go to member i, from[i] come from it.
func (x *collCtx) alltoall(alg string, to, from []uint64) {
	n := x.n
	switch {
	case alg == "pairwise" || alg == "two_proc":
		for k := 1; k < n; k++ {
			t, f := (x.me+k)%n, (x.me-k+n)%n
			x.send(t, to[t])
			x.recv(f, from[f])
			x.step()
		}
	case alg == "modified_bruck":
		for d := 1; d < n; d <<= 1 {
			var s uint64
			for j := 0; j < n; j++ {
				if j&d != 0 {
					s += to[(x.me+j)%n]
				}
			}
			x.send((x.me+d)%n, s)
			x.recv((x.me-d+n)%n, s)
			x.step()
		}
	default: // basic_linear, linear, linear_sync
		for k := 1; k < n; k++ {
			f := (x.me - k + n) % n
			x.recv(f, from[f])
		}
		for k := 1; k < n; k++ {
			t := (x.me + k) % n
			x.send(t, to[t])
		}
		x.step()
	}
}

func (x *collCtx) reduceScatter(alg string, b []uint64) {
	total := sum(b)
	switch alg {
	case "ring":
		x.ring(b, true, false)
	case "non_overlapping", "basic_linear":
		x.reduce(tunedChoice(Reduce, x.n, total), 0, total)
		x.scatterLinear(0, b)
	default: // recursive_halving, butterfly, recursive_doubling
		x.halvingDoubling(total, false)
		if x.n&(x.n-1) != 0 {
			// The ranks folded in first get their block from their partner.
			pof2 := 1
			for pof2*2 <= x.n {
				pof2 *= 2
			}
			if rem := x.n - pof2; x.me < 2*rem {
				if x.me%2 == 1 {
					x.send(x.me-1, b[x.me-1])
				} else {
					x.recv(x.me+1, b[x.me])
				}
				x.step()
			}
		}
	}
}
