package goal

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/fabric"
)

// Without --topology the machine is sized to the schedule: a crossbar up to 64 ranks, then
// the smallest near-cubic torus that holds them.
func TestGoalTopology(t *testing.T) {
	for n, want := range map[int]string{1: "crossbar:2", 16: "crossbar:16", 64: "crossbar:64", 65: "torus:5x4x4",
		512: "torus:8x8x8", 4096: "torus:16x16x16", 5000: "torus:18x17x17"} {
		require.Equal(t, want, Topology(n), "%d ranks", n)
	}
	for n := 65; n < 3000; n += 37 {
		tp, err := fabric.ParseTopology(Topology(n))
		require.NoError(t, err)
		require.GreaterOrEqual(t, tp.Nodes(), n)
		require.Less(t, tp.Nodes(), n+n/2, "%d ranks on %s", n, Topology(n))
	}
}
