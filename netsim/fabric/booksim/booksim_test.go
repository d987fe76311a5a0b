package booksim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// RoundRobinArbiter::Supersedes (roundrobin_arb.hpp): priority first, then the position
// reached first going round from the pointer.
func TestRRSupersedes(t *testing.T) {
	for _, c := range []struct {
		in1, pri1, in2, pri2, off, size int
		want                            bool
	}{
		{0, 0, 1, 0, 0, 4, true},  // pointer at 0: 0 before 1
		{1, 0, 0, 0, 1, 4, true},  // pointer at 1: 1 before 0 (0 is last)
		{3, 0, 0, 0, 2, 4, true},  // pointer at 2: order 2, 3, 0, 1
		{0, 0, 3, 0, 2, 4, false}, //
		{3, 1, 0, 0, 0, 4, true},  // higher priority wins wherever the pointer is
		{0, 0, 3, 1, 0, 4, false},
		{2, 0, 2, 0, 0, 4, false}, // not against itself
	} {
		require.Equal(t, c.want, rrSupersedes(c.in1, c.pri1, c.in2, c.pri2, c.off, c.size), "%+v", c)
	}
}

// The separable input-first allocator with one iteration, worked by hand from
// separable_input_first.cpp: every input arbiter picks first, then every output arbiter
// among the inputs that picked it; only granted arbiters move their pointers.
func TestSepInputFirstWorked(t *testing.T) {
	a := newSepInputFirst(2, 2)
	round := func() {
		a.clear()
		for in := range 2 {
			for out := range 2 {
				a.add(in, out, 10*in+out, 0, 0)
			}
		}
		a.allocate()
	}
	// Round 1: both input pointers at 0, so both inputs pick output 0; output 0's pointer
	// at 0 grants input 0. Input 1 goes without (one iteration does not retry it on
	// output 1): the separable allocator's known loss.
	round()
	require.Equal(t, []int32{0, -1}, a.inmatch)
	require.Equal(t, []int32{0, -1}, a.outmatch)
	require.Equal(t, []int32{1, 0}, a.inPtr, "only input 0's arbiter moved, to one past output 0")
	require.Equal(t, []int32{1, 0}, a.outPtr, "only output 0's arbiter moved, to one past input 0")
	require.Equal(t, 11, a.label(1, 1))
	// Round 2: input 0 now picks output 1, input 1 still output 0: both granted; the
	// pointers have desynchronised, as in iSLIP.
	round()
	require.Equal(t, []int32{1, 0}, a.inmatch)
	require.Equal(t, []int32{1, 0}, a.outmatch)
	require.Equal(t, []int32{0, 1}, a.inPtr)
	require.Equal(t, []int32{0, 1}, a.outPtr)

	// Priority beats the pointer at both arbiters; a repeated request for the same pair
	// replaces the first (SparseAllocator keeps one per pair).
	b := newSepInputFirst(3, 2)
	b.add(0, 0, 1, 0, 0)
	b.add(1, 0, 2, 0, 5)
	b.add(2, 1, 3, 0, 0)
	b.add(2, 0, 4, 7, 0)
	b.add(2, 0, 9, 7, 0)
	b.allocate()
	require.Equal(t, 9, b.label(2, 0))
	// Input 2 picks output 0 (input-side priority 7 over output 1's 0); output 0 then grants
	// input 1 (output-side priority 5 over 0), so input 2 and output 1 go without.
	require.Equal(t, []int32{-1, 0, -1}, b.inmatch)
	require.Equal(t, []int32{1, -1}, b.outmatch)
}

func TestDeadlockCheck(t *testing.T) {
	torus, _ := fabric.NewTorus(8, 8)
	ring, _ := fabric.NewTorus(2, 2)
	tree, _ := fabric.NewFatTree(4, 2)
	c := fabric.BookSimConfig(netsim.Nanosecond)
	c1 := c
	c1.VCs = 1
	nd := c
	nd.NoDateline = true
	require.NoError(t, DeadlockCheck(torus, c))
	require.ErrorContains(t, DeadlockCheck(torus, c1), "needs 2 VCs or more")
	require.ErrorContains(t, DeadlockCheck(torus, nd), "dateline")
	require.NoError(t, DeadlockCheck(ring, c1), "radix 2 closes no ring")
	require.NoError(t, DeadlockCheck(tree, c1), "up/down routing closes no cycle")
}

// With the check overridden, a ring with one VC under tornado traffic locks up, and the
// run says so instead of running forever.
func TestDeadlockReported(t *testing.T) {
	topo, _ := fabric.NewTorus(8)
	c := fabric.BookSimConfig(netsim.Nanosecond)
	c.VCs, c.BufferFlits = 1, 2
	n, err := New(topo, c, 1)
	require.NoError(t, err)
	pat, err := fabric.ParseBookSimPattern("tornado", topo)
	require.NoError(t, err)
	m := DefaultMeasure()
	m.LatencyThres = -1 // no giving up as unstable: let it lock
	r, err := Run(n, pat, 1, 16, m)
	require.NoError(t, err)
	require.True(t, r.Deadlock, "%+v", r)
	require.False(t, r.Stable)
	require.Contains(t, r.Why, "deadlock")
}

// A lone packet's latency in the booksim router is BookSim2's: 2 + 5H cycles on the fat
// tree (BookSim2 prints minimum 7 for the pairs under one switch), 1 + 6H on the torus
// (use_noc_latency: torus channels of latency 2), plus one cycle per flit behind the head.
func TestZeroLoad(t *testing.T) {
	for _, c := range []struct {
		topo         string
		src, dst, fl int
		routers      int
		want         int64
	}{
		{"fattree:4x3", 0, 1, 1, 1, 7},
		{"fattree:4x3", 0, 5, 1, 3, 17},
		{"fattree:4x3", 0, 63, 1, 5, 27},
		{"fattree:4x3", 0, 63, 16, 5, 42},
		{"torus:8x8x8", 0, 0, 1, 1, 7},
		{"torus:8x8x8", 0, 1, 1, 2, 13},
		{"torus:8x8x8", 0, 4 + 4*8 + 4*64, 1, 13, 79},
		{"torus:8x8x8", 0, 4 + 4*8 + 4*64, 16, 13, 94},
		{"crossbar:16", 2, 9, 4, 1, 10},
	} {
		t.Run(fmt.Sprintf("%s/%d-%d/%d", c.topo, c.src, c.dst, c.fl), func(t *testing.T) {
			topo, err := fabric.ParseTopology(c.topo)
			require.NoError(t, err)
			n, err := New(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 1)
			require.NoError(t, err)
			want, err := n.ZeroLoad(c.src, c.dst, c.fl)
			require.NoError(t, err)
			require.Equal(t, c.want, want, "closed form")
			for range 3 { // and again on the same network: it is left idle
				got, routers, err := n.Lone(c.src, c.dst, c.fl)
				require.NoError(t, err)
				require.Equal(t, c.want, got, "simulated")
				require.Equal(t, c.routers, routers)
			}
		})
	}
}

// A regression pin against BookSim2 (commit 28f43299, make booksim-compare, docs/network.md):
// on the 4-ary 3-tree with 1-flit packets BookSim2 saturates at 0.742 flits/cycle/node and
// averages 25.82 cycles at 0.297. The booksim router must stay stable 5 % below that
// saturation, unstable 5 % above it, and within 2 % of that latency.
func TestFatTreeAgainstBookSim2(t *testing.T) {
	topo, err := fabric.ParseTopology("fattree:4x3")
	require.NoError(t, err)
	pat, err := fabric.ParseBookSimPattern("uniform", topo)
	require.NoError(t, err)
	run := func(load float64, seed uint64) *Result {
		n, err := New(topo, fabric.BookSimConfig(4*netsim.Nanosecond), seed)
		require.NoError(t, err)
		r, err := Run(n, pat, load, 1, DefaultMeasure())
		require.NoError(t, err)
		return r
	}
	r := run(0.297, 1)
	require.True(t, r.Stable)
	require.InEpsilon(t, 25.82, r.PacketLatency, 0.02)
	require.InDelta(t, 0.297, r.Accepted, 0.01)
	require.Equal(t, 7.0, r.PacketLatencyMin, "the zero-load latency of a packet to its own switch")
	require.InDelta(t, 4.37, r.Hops, 0.05, "BookSim2: uniform including the source itself")
	require.Equal(t, *r, *run(0.297, 1), "same seed, same result")
	require.NotEqual(t, r.PacketLatency, run(0.297, 2).PacketLatency, "another seed, another run")
	require.True(t, run(0.742*0.95, 1).Stable)
	hi := run(0.742*1.05, 1)
	require.False(t, hi.Stable)
	require.Contains(t, hi.Why, "latency_thres")
	require.NotEmpty(t, hi.Busiest)
	require.Greater(t, hi.Busiest[0].Utilisation, 0.6, "the busiest channel is nearly full at saturation")
}

// A switch crossing of more than one cycle (st_final_delay, lhsim traffic --preset booksim
// --switch-latency 2c, a knob docs/network.md lists) pipelines the flits through the switch:
// a lone packet of any length takes one cycle more per router per extra cycle, and a loaded
// network never has two flits for one output in a cycle (it panicked: the flits granted
// behind one still crossing were never timed).
func TestSwitchLatencyCycles(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:4x4")
	require.NoError(t, err)
	base, err := New(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 1)
	require.NoError(t, err)
	for _, st := range []int64{2, 3, 5} {
		c := fabric.BookSimConfig(4 * netsim.Nanosecond)
		c.SwitchLatency = netsim.Time(st) * c.ClockPeriod
		for _, fl := range []int{1, 4, 16} {
			n, err := New(topo, c, 1)
			require.NoError(t, err)
			one, routers, err := base.Lone(0, 10, fl)
			require.NoError(t, err)
			got, _, err := n.Lone(0, 10, fl)
			require.NoError(t, err, "switch latency %d cycles, %d flits", st, fl)
			require.Equal(t, one+int64(routers)*(st-1), got, "switch latency %d cycles, %d flits", st, fl)
			closed, err := n.ZeroLoad(0, 10, fl)
			require.NoError(t, err)
			require.Equal(t, closed, got, "closed form")
		}
		n, err := New(topo, c, 1)
		require.NoError(t, err)
		pat, err := fabric.ParseBookSimPattern("uniform", topo)
		require.NoError(t, err)
		r, err := Run(n, pat, 0.3, 4, DefaultMeasure())
		require.NoError(t, err, "switch latency %d cycles", st)
		require.True(t, r.Stable, "switch latency %d cycles at 0.3: %+v", st, r)
	}
}
