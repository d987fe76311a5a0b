package booksim

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// A run on 2, 3 or more parts, each on its own thread, gives the result one part gives, to
// the last bit: the parts exchange what crosses the cut between windows, every router reads
// its inputs in port order and every router and node draws from its own stream. Torus slabs
// and fat-tree subtrees, both packet sizes, below and past saturation.
func TestPartsSameResult(t *testing.T) {
	for _, c := range []struct {
		topo  string
		flits int
		load  float64
		parts []int
	}{
		{"torus:4x4x6", 4, 0.3, []int{2, 3, 6}},
		{"torus:4x4x6", 1, 0.9, []int{2, 3}},
		{"fattree:4x3", 16, 0.5, []int{2, 3, 16}},
		{"fattree:4x3", 1, 0.9, []int{2, 4}},
	} {
		t.Run(fmt.Sprintf("%s/%d/%g", c.topo, c.flits, c.load), func(t *testing.T) {
			topo, err := fabric.ParseTopology(c.topo)
			require.NoError(t, err)
			pat, err := fabric.ParseBookSimPattern("uniform", topo)
			require.NoError(t, err)
			run := func(parts int) *Result {
				n, err := NewParts(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 7, parts)
				require.NoError(t, err)
				require.Equal(t, parts, n.Parts())
				r, err := Run(n, pat, c.load, c.flits, DefaultMeasure())
				require.NoError(t, err)
				return r
			}
			one := run(1)
			require.Nil(t, one.Windows, "one part: no windows to report")
			require.Positive(t, one.Packets)
			for _, k := range c.parts {
				got := run(k)
				require.NotNil(t, got.Windows, "%d parts", k)
				require.Equal(t, k, got.Windows.Parts)
				require.Positive(t, got.Windows.Windows)
				// The windows are the least channel latency between routers plus its read:
				// 3 cycles on the torus (latency 2), 2 on the fat tree.
				want := int64(2)
				if c.topo[0] == 't' {
					want = 3
				}
				require.Equal(t, netsim.Time(want)*4*netsim.Nanosecond, got.Windows.Lookahead)
				require.GreaterOrEqual(t, got.Windows.Windows, uint64(one.Cycles/want))
				got.Windows = nil
				require.Equal(t, *one, *got, "%d parts against 1", k)
			}
		})
	}
	require.Less(t, runtime.NumGoroutine(), 50, "the parts' threads end with their run")
}

// Each router and each node has its own stream, seeded from the run's seed and its number:
// two components' first draws differ, the same component's are the same in two networks
// of one seed, and another seed changes them.
func TestStreams(t *testing.T) {
	a, b := stream(1, streamRouter, 0), stream(1, streamRouter, 1)
	require.NotEqual(t, a.Uint64(), b.Uint64())
	require.NotEqual(t, stream(1, streamRouter, 5).Uint64(), stream(1, streamNode, 5).Uint64(), "a router and a node of one number")
	require.Equal(t, stream(1, streamNode, 5).Uint64(), stream(1, streamNode, 5).Uint64())
	require.NotEqual(t, stream(1, streamNode, 5).Uint64(), stream(2, streamNode, 5).Uint64())
}

// More parts than the topology cuts into, or than a byte numbers: refused, naming the bound.
func TestPartsBadInput(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:4x4")
	require.NoError(t, err)
	_, err = NewParts(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 1, 5)
	require.ErrorIs(t, err, fabric.ErrBadConfig)
	require.ErrorContains(t, err, "want 1 to 4")
	_, err = NewParts(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 1, 0)
	require.Error(t, err)
	big, err := fabric.ParseTopology("fattree:2x10")
	require.NoError(t, err)
	_, err = NewParts(big, fabric.BookSimConfig(4*netsim.Nanosecond), 1, 300)
	require.ErrorContains(t, err, "at most 255")
}
