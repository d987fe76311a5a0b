package alltoall

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Every scheme gives the same result (total, each node's exit from the synchronisation, the
// late steps, the events) on 1, 2 and 4 threads, with even and uneven sizes and the paper's
// synchronisation rule, whose late nodes (a cycle or two) depend on how sync packets meet.
func TestSchemesSameOnParts(t *testing.T) {
	topo, err := fabric.NewTorus(8, 4, 4)
	require.NoError(t, err)
	s, err := SuhShin(topo, UnevenWeights(topo.Nodes(), 1), 2)
	require.NoError(t, err)
	run := func(parts int, sc Scheme, sz Sizes, opt Options) Result {
		c, err := cluster.BuildParts(topo, fabric.Seed002Torus(), cluster.DefaultConfig(), parts)
		require.NoError(t, err)
		defer c.Parts().Close()
		r, err := RunWith(c, s, sc, sz, opt)
		require.NoError(t, err)
		return r
	}
	late := 0
	for _, c := range []struct {
		sc  Scheme
		sz  Sizes
		opt Options
	}{
		{SyncPerStep, Sizes{BytesPerPair: 64}, Options{PaperRule: true}},
		{SyncAtStart, Sizes{BytesPerPair: 200, Uneven: true}, Options{}},
		{Proposed, Sizes{BytesPerPair: 1000, Uneven: true}, Options{}}, // 2 late steps
		{Proposed, Sizes{BytesPerPair: 64}, Options{PaperRule: true}},
		{BarrierPerStep, Sizes{BytesPerPair: 64}, Options{}},
	} {
		what := fmt.Sprintf("%s %+v %+v", c.sc, c.sz, c.opt)
		one := run(1, c.sc, c.sz, c.opt)
		require.Positive(t, one.Total, what)
		late += one.Late
		for _, parts := range []int{2, 4} {
			require.Equal(t, one, run(parts, c.sc, c.sz, c.opt), "%s on %d parts", what, parts)
		}
	}
	require.Positive(t, late, "some rank began a step late (counted on every part)")
}
