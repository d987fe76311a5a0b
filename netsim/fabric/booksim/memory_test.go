package booksim

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Footprint is the heap a network takes, built and loaded to saturation (the wheel and the
// packet slabs at their fullest), within 15 % either way on an 8x8x8 torus and a 4-ary 4-tree
// of 4 and 16 VCs: the estimate lhsim traffic --preset booksim checks against the memory
// limit sizes this router, not the event model's.
func TestFootprint(t *testing.T) {
	for _, c := range []struct {
		topo string
		vcs  int
	}{{"torus:8x8x8", 4}, {"fattree:4x4", 4}, {"torus:8x8x8", 16}} {
		topo, err := fabric.ParseTopology(c.topo)
		require.NoError(t, err)
		cfg := fabric.BookSimConfig(4 * netsim.Nanosecond)
		cfg.VCs = c.vcs
		pat, err := fabric.ParseBookSimPattern("uniform", topo)
		require.NoError(t, err)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		n, err := New(topo, cfg, 1)
		require.NoError(t, err)
		s, err := newSim(n, pat, 1, 4, DefaultMeasure())
		require.NoError(t, err)
		s.advance(1500)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap := float64(ms.HeapAlloc - before)
		est := float64(Footprint(topo, cfg))
		event := float64(fabric.Footprint(topo, cfg))
		t.Logf("%s, %d VCs: heap %.0f bytes, estimate %.0f (%.2f); the event model's %.0f", c.topo, c.vcs, heap, est, heap/est, event)
		require.InEpsilon(t, est, heap, 0.15, "%s, %d VCs", c.topo, c.vcs)
		require.Less(t, event, heap/2, "the event model's estimate (what was checked before) is not this router's")
		runtime.KeepAlive(s)
	}
}

// A network whose estimate passes the memory limit is refused before anything is built,
// with fabric.ErrTooBig and the estimate in the message.
func TestCheckFitsRefuses(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:128x128x128")
	require.NoError(t, err)
	cfg := fabric.BookSimConfig(4 * netsim.Nanosecond)
	cfg.VCs, cfg.BufferFlits = 64, 1<<16
	_, err = New(topo, cfg, 1)
	require.ErrorIs(t, err, fabric.ErrTooBig)
	require.ErrorContains(t, err, "booksim router")
	require.ErrorIs(t, Check(topo, cfg), fabric.ErrTooBig)
}
