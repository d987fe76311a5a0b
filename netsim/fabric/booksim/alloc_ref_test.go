package booksim

// sepInputFirst is the reference for rrAlloc: BookSim2's allocator as it is written, with
// priorities. The worked cases of booksim_test.go pin it; TestRRAllocMatchesSepInputFirst pins
// rrAlloc to it.

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// allocReq is one request of a separable allocator (SparseAllocator::sRequest).
type allocReq struct {
	out, label    int32
	inPri, outPri int32
	next          int32 // next request of the same input, -1 at the end
}

// sepInputFirst is SeparableInputFirstAllocator with round-robin arbiters: every input
// arbiter picks one of its requests (round-robin over outputs from its pointer); every output
// arbiter then picks one of the inputs that picked it (round-robin over inputs). Only the
// arbiters of a granted pair move their pointers, to one past the grant
// (RoundRobinArbiter::UpdateState), so a pointer moves only when its choice was accepted.
type sepInputFirst struct {
	inputs, outputs int
	inPtr, outPtr   []int32 // the arbiters' pointers (RoundRobinArbiter::_pointer)

	reqs    []allocReq // this round's requests
	inHead  []int32    // input -> its first request in reqs, -1 none
	inOcc   []int32    // inputs with requests, in the order they first asked
	outBest []int32    // output -> the input its arbiter leads with, -1 none
	outPri  []int32
	outOcc  []int32

	inmatch, outmatch []int32 // the grants: input -> output, output -> input, -1 none
}

func newSepInputFirst(inputs, outputs int) *sepInputFirst {
	a := &sepInputFirst{inputs: inputs, outputs: outputs,
		inPtr: make([]int32, inputs), outPtr: make([]int32, outputs),
		inHead: make([]int32, inputs), outBest: make([]int32, outputs), outPri: make([]int32, outputs),
		inmatch: make([]int32, inputs), outmatch: make([]int32, outputs)}
	for i := range a.inHead {
		a.inHead[i], a.inmatch[i] = -1, -1
	}
	for o := range a.outBest {
		a.outBest[o], a.outmatch[o] = -1, -1
	}
	return a
}

// clear forgets the last round's requests and grants (Allocator::Clear); the pointers stay.
func (a *sepInputFirst) clear() {
	for _, in := range a.inOcc {
		a.inHead[in], a.inmatch[in] = -1, -1
	}
	for _, o := range a.outOcc {
		a.outBest[o], a.outmatch[o] = -1, -1
	}
	a.reqs, a.inOcc, a.outOcc = a.reqs[:0], a.inOcc[:0], a.outOcc[:0]
}

// find is the request of in for out, or -1 (SparseAllocator::ReadRequest).
func (a *sepInputFirst) find(in, out int) int {
	for r := a.inHead[in]; r >= 0; r = a.reqs[r].next {
		if int(a.reqs[r].out) == out {
			return int(r)
		}
	}
	return -1
}

// add asks for out from in with a label and the priorities of the two arbiters
// (SparseAllocator::AddRequest: one request per pair; replace overwrites it).
func (a *sepInputFirst) add(in, out, label, inPri, outPri int) {
	if r := a.find(in, out); r >= 0 {
		q := &a.reqs[r]
		q.label, q.inPri, q.outPri = int32(label), int32(inPri), int32(outPri)
		return
	}
	a.addNew(in, out, label, inPri, outPri)
}

// addNew is add for a pair not yet requested this round (the VC allocator's requests are
// one per input VC and output VC by construction).
func (a *sepInputFirst) addNew(in, out, label, inPri, outPri int) {
	if a.inHead[in] < 0 {
		a.inOcc = append(a.inOcc, int32(in))
	}
	a.reqs = append(a.reqs, allocReq{out: int32(out), label: int32(label), inPri: int32(inPri), outPri: int32(outPri), next: a.inHead[in]})
	a.inHead[in] = int32(len(a.reqs) - 1)
}

// allocate runs the input arbiters, then the output arbiters (SeparableInputFirstAllocator::
// Allocate); the grants are in inmatch and outmatch.
func (a *sepInputFirst) allocate() {
	for _, in32 := range a.inOcc {
		in := int(in32)
		// The input arbiter: RoundRobinArbiter::AddRequest keeps the request that supersedes
		// the best so far; Arbitrate returns it.
		best := int32(-1)
		for r := a.inHead[in]; r >= 0; r = a.reqs[r].next {
			q := &a.reqs[r]
			if best < 0 || rrSupersedes(int(q.out), int(q.inPri), int(a.reqs[best].out), int(a.reqs[best].inPri), int(a.inPtr[in]), a.outputs) {
				best = r
			}
		}
		q := &a.reqs[best]
		o := int(q.out)
		// ... and its choice goes to that output's arbiter with the output-side priority.
		if a.outBest[o] < 0 {
			a.outOcc = append(a.outOcc, int32(o))
			a.outBest[o], a.outPri[o] = int32(in), q.outPri
		} else if rrSupersedes(in, int(q.outPri), int(a.outBest[o]), int(a.outPri[o]), int(a.outPtr[o]), a.inputs) {
			a.outBest[o], a.outPri[o] = int32(in), q.outPri
		}
	}
	for _, o32 := range a.outOcc {
		o := int(o32)
		in := int(a.outBest[o])
		a.inmatch[in], a.outmatch[o] = int32(o), int32(in)
		a.inPtr[in] = int32((o + 1) % a.outputs)
		a.outPtr[o] = int32((in + 1) % a.inputs)
	}
}

// outputAssigned is the output granted to in, or -1 (Allocator::OutputAssigned).
func (a *sepInputFirst) outputAssigned(in int) int { return int(a.inmatch[in]) }

// label is the label of in's request for out (the VC of a switch request).
func (a *sepInputFirst) label(in, out int) int {
	if r := a.find(in, out); r >= 0 {
		return int(a.reqs[r].label)
	}
	return -1
}

// rrAlloc grants what BookSim2's allocator grants when the priorities are equal, round
// after round (the pointers carry over), on random request sets, including sizes above 64
// (several words per bit set) and repeated requests for a pair (the last label stays).
func TestRRAllocMatchesSepInputFirst(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {7, 7}, {28, 28}, {64, 64}, {65, 3}, {3, 130}, {130, 130}} {
		ref, a := newSepInputFirst(sz[0], sz[1]), newRRAlloc(sz[0], sz[1], true)
		for round := range 200 {
			ref.clear()
			a.clear()
			density := rng.Float64()
			for range rng.IntN(4 * (sz[0] + sz[1])) {
				in, out, lab := rng.IntN(sz[0]), rng.IntN(sz[1]), rng.IntN(100)
				if rng.Float64() < density {
					ref.add(in, out, lab, 0, 0)
					a.add(in, out, lab)
				}
			}
			ref.allocate()
			a.allocate()
			require.Equal(t, ref.inmatch, a.inmatch, "seed %d size %v round %d", seed, sz, round)
			require.Equal(t, ref.outmatch, a.outmatch, "seed %d size %v round %d", seed, sz, round)
			require.Equal(t, ref.inPtr, a.inPtr, "seed %d size %v round %d", seed, sz, round)
			require.Equal(t, ref.outPtr, a.outPtr, "seed %d size %v round %d", seed, sz, round)
			for in := range sz[0] {
				for out := range sz[1] {
					want := ref.label(in, out)
					require.Equal(t, want >= 0, a.has(in, out), "seed %d", seed)
					if want >= 0 {
						require.Equal(t, int32(want), a.label[in*sz[1]+out], "seed %d", seed)
					}
				}
			}
		}
	}
}
