package net

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/stretchr/testify/require"
)

// The lone packets of the zero-load table are dealt out to the run's threads in ranges, each
// on a network of its own: the table is the same for any number of them, on both routers,
// for node 0 to every node and for a permutation. 1,024 nodes make 4 ranges on 4 threads
// (netsim.Split: at least 256 pairs a range), where the machine has the cores for them.
func TestZeroLoadSameOnAnyThreads(t *testing.T) {
	for _, c := range []struct {
		topo, pattern string
		booksim       bool
	}{
		{"torus:8x8x16", "uniform", false},
		{"fattree:4x5", "transpose", false},
		{"torus:8x8x16", "uniform", true},
		{"fattree:4x5", "uniform", true},
	} {
		topo, err := fabric.ParseTopology(c.topo)
		require.NoError(t, err)
		fc, zero := fabric.DefaultConfig(), zeroLoad
		if c.booksim {
			fc, zero = fabric.BookSimConfig(4*netsim.Nanosecond), zeroLoadIQ
		}
		pat, err := fabric.ParsePatternFor(fc.Router, c.pattern, topo)
		require.NoError(t, err)
		var one *TrafficResult
		for _, threads := range []int{1, 2, 4} {
			res := &TrafficResult{Seed: 7}
			require.NoError(t, zero(topo, fc, pat, 2, threads, res), "%s %s", c.topo, c.pattern)
			require.True(t, res.ZeroLoadExact, "%s %s: every lone packet took the closed form", c.topo, c.pattern)
			if one == nil {
				one = res
				continue
			}
			require.Equal(t, one, res, "%s %s, booksim %v: %d threads against 1", c.topo, c.pattern, c.booksim, threads)
		}
	}
}
