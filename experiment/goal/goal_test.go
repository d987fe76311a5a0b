package goal

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Without --topology the machine is sized to the schedule: a crossbar up to 64 ranks, then
// the smallest near-cubic torus that holds them.
func TestGoalTopology(t *testing.T) {
	for n, want := range map[int]string{1: "crossbar:2", 16: "crossbar:16", 64: "crossbar:64", 65: "torus:5x4x4",
		512: "torus:8x8x8", 4096: "torus:16x16x16", 5000: "torus:18x17x17"} {
		tp, err := Topology(n)
		require.NoError(t, err)
		require.Equal(t, want, tp.String(), "%d ranks", n)
		require.Equal(t, want, tp.Fabric().String(), "%d ranks: the text names the network built", n)
	}
	for n := 65; n < 3000; n += 37 {
		tp, err := Topology(n)
		require.NoError(t, err)
		require.GreaterOrEqual(t, tp.Nodes(), n)
		require.Less(t, tp.Nodes(), n+n/2, "%d ranks on %s", n, tp)
	}
	_, err := Topology(1 << 30)
	require.ErrorContains(t, err, "torus", "a schedule too large for any network")
}
