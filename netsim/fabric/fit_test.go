package fabric

import (
	"errors"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// Footprint is the heap New really takes, within 25%, on every kind of topology and VC
// count: the estimate CheckFits refuses a run with is a measurement, not a guess.
func TestFootprint(t *testing.T) {
	for _, s := range []string{"crossbar:4096", "fattree:4x6", "fattree:16x3", "torus:16x16x16", "torus:4096", "torus:2x2x2x2x2x2x2x2", "torus:64x64"} {
		for _, vcs := range []int{2, 8} {
			topo, err := ParseTopology(s)
			require.NoError(t, err)
			cfg := DefaultConfig()
			cfg.VCs = vcs
			before := liveHeap()
			n, err := New(&netsim.Engine{}, topo, cfg)
			require.NoError(t, err)
			took := liveHeap() - before
			runtime.KeepAlive(n)
			est := Footprint(topo, cfg)
			require.InDelta(t, 1, float64(est)/float64(took), 0.25, "%s, %d VCs: estimate %d bytes, New took %d", s, vcs, est, took)
		}
	}
}

// A network past the memory limit is refused before New allocates, with the estimate and
// the limit; one under it is built.
func TestCheckFitsRefusesBeforeAllocating(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(old)
	for _, s := range []string{"torus:128x128x128", "torus:64x64x64", "fattree:2x21", "fattree:4x10", "torus:2048x2048"} {
		topo, err := ParseTopology(s)
		require.NoError(t, err)
		before := liveHeap()
		_, err = New(&netsim.Engine{}, topo, DefaultConfig())
		require.ErrorIs(t, err, ErrTooBig, s)
		require.Contains(t, err.Error(), "1.0 GiB", s)
		require.Less(t, liveHeap()-before, int64(1<<20), "%s: refused after allocating", s)
	}
	topo, err := ParseTopology("torus:16x16x16")
	require.NoError(t, err)
	_, err = New(&netsim.Engine{}, topo, DefaultConfig())
	require.NoError(t, err)
	require.False(t, errors.Is(CheckFits(topo, DefaultConfig()), ErrTooBig))
}

// A network that fits on one thread but not on sixteen is refused on sixteen, before it is
// built, with a line that names the parts' share: each part's event calendar counts.
func TestCheckFitsCountsParts(t *testing.T) {
	topo, err := ParseTopology("torus:16x16x16")
	require.NoError(t, err)
	cfg := DefaultConfig()
	one, many := EstimateParts(topo, cfg, 1).Need(), EstimateParts(topo, cfg, 16).Need()
	require.Equal(t, Estimate(topo, cfg).Need(), one)
	require.Equal(t, one+2*15*netsim.PartMemory(), many)
	old := debug.SetMemoryLimit((one + many) / 2)
	defer debug.SetMemoryLimit(old)
	n, ps, err := NewParts(topo, cfg, 1)
	require.NoError(t, err)
	ps.Close()
	runtime.KeepAlive(n)
	_, _, err = NewParts(topo, cfg, 16)
	require.ErrorIs(t, err, ErrTooBig)
	require.Contains(t, err.Error(), "torus:16x16x16 on 16 threads does not fit in memory")
	require.Contains(t, err.Error(), "the event calendars of 15 more parts (threads), 2.7 MB each")
	require.Contains(t, err.Error(), "(GOMEMLIMIT)")
}

// A network on 4 parts, mid-run with traffic flowing, keeps no more than 3 parts' worth of
// netsim.PartMemory beyond what it keeps on one: what EstimateParts counts is a bound.
func TestPartMemoryBound(t *testing.T) {
	topo, err := ParseTopology("torus:16x16x16")
	require.NoError(t, err)
	cfg := DefaultConfig()
	pat, err := ParsePattern("uniform", topo)
	require.NoError(t, err)
	heapOn := func(parts int) int64 {
		before := liveHeap()
		n, ps, err := NewParts(topo, cfg, parts)
		require.NoError(t, err)
		defer ps.Close()
		syn, err := NewSynthetic(n, SyntheticConfig{Pattern: pat, Load: 0.05, PacketFlits: 1, Seed: 1})
		require.NoError(t, err)
		for i := range n.Nodes() {
			require.NoError(t, n.Attach(i, syn))
		}
		syn.Start(0)
		ps.Run(2 * netsim.Microsecond) // traffic still flowing: every part's calendar in use
		took := liveHeap() - before
		runtime.KeepAlive(syn)
		return took
	}
	one, four := heapOn(1), heapOn(4)
	t.Logf("live heap: %d bytes on 1 part, %d on 4 (%d a part beyond the first; PartMemory %d)", one, four, (four-one)/3, netsim.PartMemory())
	require.LessOrEqual(t, four-one, 3*netsim.PartMemory())
}
