package booksim

// The allocators of the booksim router : BookSim2's round-robin
// arbiter (src/arbiters/roundrobin_arb.cpp) and its separable input-first allocator
// (src/allocators/separable_input_first.cpp on separable.cpp), one iteration, as
// iq_router.cpp uses them for VC and switch allocation. sepInputFirst (alloc_ref_test.go) is
// BookSim2's on its sparse request lists (allocator.cpp), priorities and all; rrAlloc is the
// same with the priorities all equal, as the router uses it, on bit sets.

import "math/bits"

// rrSupersedes is RoundRobinArbiter::Supersedes (roundrobin_arb.hpp): in a round-robin
// scheme of size positions whose pointer is at offset, does a request at input1 with
// priority pri1 win over one at input2 with pri2? The higher priority wins; at equal
// priority, the input reached first going round from the pointer.
func rrSupersedes(input1, pri1, input2, pri2, offset, size int) bool {
	return pri1 > pri2 || pri1 == pri2 && (input1-offset+size)%size < (input2-offset+size)%size
}

// rrAlloc is sepInputFirst with every priority equal, as the booksim router uses it
// (iq_router.cpp passes the flit's priority, 0 under the default priority "none"): each
// input's requests are a bit set over the outputs, and a round-robin arbiter's pick is the
// first bit at or after its pointer, going round. With equal priorities
// RoundRobinArbiter::Supersedes orders requests by that position alone, so this grants
// what sepInputFirst grants (TestRRAllocMatchesSepInputFirst), without a request list.
type rrAlloc struct {
	inputs, outputs int
	inW, outW       int     // 64-bit words per input's row, per output's column
	inPtr, outPtr   []int32 // the arbiters' pointers (RoundRobinArbiter::_pointer)

	req   []uint64 // input*inW+w: the outputs it asks for
	label []int32  // input*outputs+output: the label of that request (nil: no labels)
	pick  []uint64 // output*outW+w: the inputs whose arbiter picked it
	inOcc []int32  // inputs with requests
	outOc []int32  // outputs picked

	inmatch, outmatch []int32 // the grants: input -> output, output -> input, -1 none
}

// newRRAlloc is an allocator of inputs to outputs; with labels, each request carries one
// (add), without, none (ask).
func newRRAlloc(inputs, outputs int, labels bool) *rrAlloc {
	n32, n64 := rrAllocSize(inputs, outputs, labels)
	i32, u64 := make([]int32, n32), make([]uint64, n64)
	a := &rrAlloc{}
	a.init(inputs, outputs, labels, &i32, &u64)
	return a
}

// rrAllocSize is how many int32 and uint64 an allocator of inputs to outputs takes from
// the arenas init carves it from.
func rrAllocSize(inputs, outputs int, labels bool) (n32, n64 int) {
	n32 = 3*inputs + 3*outputs
	if labels {
		n32 += inputs * outputs
	}
	return n32, inputs*((outputs+63)/64) + outputs*((inputs+63)/64)
}

// init makes a an allocator of inputs to outputs, its arrays carved from the fronts of i32
// and u64 (zeroed, at least rrAllocSize long), so that a router's allocators and small
// arrays share a few cache lines instead of a dozen objects each.
func (a *rrAlloc) init(inputs, outputs int, labels bool, i32 *[]int32, u64 *[]uint64) {
	*a = rrAlloc{inputs: inputs, outputs: outputs, inW: (outputs + 63) / 64, outW: (inputs + 63) / 64}
	// The arrays a round touches, in the order it touches them.
	a.inOcc = carve32(i32, inputs)[:0]
	a.req = carve64(u64, inputs*a.inW)
	a.inPtr = carve32(i32, inputs)
	a.pick = carve64(u64, outputs*a.outW)
	a.outOc = carve32(i32, outputs)[:0]
	a.outPtr = carve32(i32, outputs)
	a.inmatch = carve32(i32, inputs)
	a.outmatch = carve32(i32, outputs)
	if labels {
		a.label = carve32(i32, inputs*outputs)
	}
	for i := range a.inmatch {
		a.inmatch[i] = -1
	}
	for o := range a.outmatch {
		a.outmatch[o] = -1
	}
}

// carve32 takes the first k of *arena, capacity k (an append past it moves out).
func carve32(arena *[]int32, k int) []int32 {
	s := (*arena)[:k:k]
	*arena = (*arena)[k:]
	return s
}

// carve64 is carve32 for uint64.
func carve64(arena *[]uint64, k int) []uint64 {
	s := (*arena)[:k:k]
	*arena = (*arena)[k:]
	return s
}

// rrPick is the first set bit of set at or after ptr, going round; set is not empty.
func rrPick(set []uint64, ptr int) int {
	w, b := ptr>>6, uint(ptr&63)
	if h := set[w] >> b << b; h != 0 {
		return w<<6 + bits.TrailingZeros64(h)
	}
	for i := w + 1; i < len(set); i++ {
		if set[i] != 0 {
			return i<<6 + bits.TrailingZeros64(set[i])
		}
	}
	for i := 0; ; i++ {
		if set[i] != 0 {
			return i<<6 + bits.TrailingZeros64(set[i])
		}
	}
}

// rrNext is (i + 1) mod size for i in [0, size), without a division.
func rrNext(i int32, size int) int32 {
	if i++; int(i) == size {
		return 0
	}
	return i
}

// rrPick1 is rrPick on one word.
func rrPick1(set uint64, ptr int) int {
	if h := set >> uint(ptr) << uint(ptr); h != 0 {
		return bits.TrailingZeros64(h)
	}
	return bits.TrailingZeros64(set)
}

// clear forgets the last round's requests and grants (Allocator::Clear); the pointers stay.
func (a *rrAlloc) clear() {
	if a.inW == 1 && a.outW == 1 {
		for _, in := range a.inOcc {
			a.req[in], a.inmatch[in] = 0, -1
		}
		for _, o := range a.outOc {
			a.pick[o], a.outmatch[o] = 0, -1
		}
		a.inOcc, a.outOc = a.inOcc[:0], a.outOc[:0]
		return
	}
	for _, in := range a.inOcc {
		clear(a.req[int(in)*a.inW : int(in)*a.inW+a.inW])
		a.inmatch[in] = -1
	}
	for _, o := range a.outOc {
		clear(a.pick[int(o)*a.outW : int(o)*a.outW+a.outW])
		a.outmatch[o] = -1
	}
	a.inOcc, a.outOc = a.inOcc[:0], a.outOc[:0]
}

// has says whether in asks for out this round.
func (a *rrAlloc) has(in, out int) bool {
	return a.req[in*a.inW+out>>6]&(1<<uint(out&63)) != 0
}

// add asks for out from in with a label; asking again for the same pair replaces the label
// (SparseAllocator::AddRequest).
func (a *rrAlloc) add(in, out, label int) {
	a.ask(in, out)
	a.label[in*a.outputs+out] = int32(label)
}

// ask asks for out from in, without a label.
func (a *rrAlloc) ask(in, out int) {
	if a.inW == 1 {
		if a.req[in] == 0 {
			a.inOcc = append(a.inOcc, int32(in))
		}
		a.req[in] |= 1 << uint(out)
		return
	}
	row := a.req[in*a.inW : in*a.inW+a.inW]
	if a.empty(row) {
		a.inOcc = append(a.inOcc, int32(in))
	}
	row[out>>6] |= 1 << uint(out&63)
}

func (a *rrAlloc) empty(row []uint64) bool {
	for _, w := range row {
		if w != 0 {
			return false
		}
	}
	return true
}

// allocate runs the input arbiters, then the output arbiters (SeparableInputFirstAllocator::
// Allocate); the grants are in inmatch and outmatch.
func (a *rrAlloc) allocate() {
	if a.inW == 1 && a.outW == 1 {
		for _, in32 := range a.inOcc {
			o := rrPick1(a.req[in32], int(a.inPtr[in32]))
			if a.pick[o] == 0 {
				a.outOc = append(a.outOc, int32(o))
			}
			a.pick[o] |= 1 << uint(in32)
		}
		for _, o32 := range a.outOc {
			in := rrPick1(a.pick[o32], int(a.outPtr[o32]))
			a.inmatch[in], a.outmatch[o32] = o32, int32(in)
			a.inPtr[in] = rrNext(o32, a.outputs)
			a.outPtr[o32] = rrNext(int32(in), a.inputs)
		}
		return
	}
	for _, in32 := range a.inOcc {
		in := int(in32)
		o := rrPick(a.req[in*a.inW:in*a.inW+a.inW], int(a.inPtr[in]))
		col := a.pick[o*a.outW : o*a.outW+a.outW]
		if a.outW == 1 && col[0] == 0 || a.outW > 1 && a.empty(col) {
			a.outOc = append(a.outOc, int32(o))
		}
		col[in>>6] |= 1 << uint(in&63)
	}
	for _, o32 := range a.outOc {
		o := int(o32)
		in := rrPick(a.pick[o*a.outW:o*a.outW+a.outW], int(a.outPtr[o]))
		a.inmatch[in], a.outmatch[o] = int32(o), int32(in)
		a.inPtr[in] = rrNext(int32(o), a.outputs)
		a.outPtr[o] = rrNext(int32(in), a.inputs)
	}
}
