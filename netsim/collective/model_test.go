package collective

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
)

// The model with latencies remembered across calls (as the barrier sweep runs it: every
// algorithm, process count and node latency on one network) gives what it gives fresh,
// and refuses latencies of another network.
func TestModelWithRememberedLatencies(t *testing.T) {
	c := newCluster(t, "torus:4x4x4", netsim.Microsecond)
	lats := NewLatencies(c.Network())
	for _, nl := range []netsim.Time{netsim.Microsecond, 0} {
		require.NoError(t, c.SetNodeLatency(nl))
		for _, alg := range Algorithms {
			for _, p := range []int{2, 3, 8, 17, 64} {
				fresh, err := Model(c, alg, p)
				require.NoError(t, err)
				kept, err := ModelWith(c, lats, alg, p)
				require.NoError(t, err)
				require.Equal(t, fresh, kept, "%s of %d, node latency %v", alg, p, nl)
			}
		}
	}
	require.NotEmpty(t, lats.m, "the latencies are remembered")
	other := newCluster(t, "torus:4x4x4", netsim.Microsecond)
	_, err := ModelWith(other, lats, Dissemination, 8)
	require.ErrorContains(t, err, "another network")
}
