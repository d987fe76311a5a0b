package incast

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
)

// same is an outcome without what measures the machine (wall time and the rates made of it)
// and without the receive paths' step events, whose number depends on the parts.
func same(o Outcome) Outcome {
	o.WallSeconds, o.EventsPerS, o.SimNsPerWallS, o.steps = 0, 0, 0, 0
	return o
}

// Random incasts (topology, receivers, golden model or TLM, the MPI host or the costs host,
// LH buffers that fill or not, messages, when the receives are posted, the sizes' seed) on 2,
// 3 and 4 parts give what one part gives: every receive's completion, the stalls, the
// copies, the queues, the events, the most packets in the network. SEED replays one seed
// (testseed).
func TestIncastPartsSameAsOne(t *testing.T) {
	topologies := []string{"torus:4x4x2", "torus:2x2x4", "fattree:4x2", "torus:4x4"}
	for _, seed := range testseed.List(t, 6) {
		rng := rand.New(rand.NewPCG(seed, 39))
		cfg := Default()
		cfg.Speed = false
		cfg.RTLNodes = []int{}
		cfg.Topology = experiment.MustTopology(topologies[rng.IntN(len(topologies))])
		cfg.Receivers = 1 + rng.IntN(4)
		cfg.Messages = 2 + rng.IntN(5)
		cfg.PostAt = netsim.Time(rng.IntN(30)) * netsim.Microsecond
		cfg.Seed = rng.Uint64()
		if rng.IntN(2) == 0 {
			cfg.Entries = 16 // fills: back-pressure into the network, copies to the host
		}
		if rng.IntN(2) == 0 {
			cfg.Host = HostCosts
			if rng.IntN(2) == 0 {
				cfg.Model = nicTLM
			}
		}
		what := fmt.Sprintf("%s: %s, %d receivers, %s on host %s, %d messages, posted at %v, %d entries",
			testseed.Replay(t, seed, "./experiment/incast"), cfg.Topology, cfg.Receivers, cfg.Model, cfg.Host, cfg.Messages, cfg.PostAt, cfg.Entries)
		cfg.Threads = 1
		one, err := Run(cfg)
		require.NoError(t, err, what)
		require.Equal(t, cfg.Receivers*(cfg.Topology.Fabric().Nodes()-cfg.Receivers)*cfg.Messages, one.On.Messages, what)
		for _, parts := range []int{2, 3, 4} {
			c := cfg
			c.Threads = parts
			var windows []netsim.WindowStats
			c.Windows = func(_ string, ws netsim.WindowStats) { windows = append(windows, ws) }
			got, err := Run(c)
			require.NoError(t, err, "%s on %d parts", what, parts)
			require.Len(t, windows, 2, "%s on %d parts: LHS on and off ran on parts", what, parts)
			fit, _ := Threads(c) // (torus:4x4x2 cuts across Z alone: 2 parts at most)
			require.Equal(t, fit, windows[0].Parts, what)
			require.Greater(t, fit, 1, what)
			require.Equal(t, same(one.On), same(got.On), "%s: LHS on, %d parts against 1", what, parts)
			require.Equal(t, same(one.Off), same(got.Off), "%s: LHS off, %d parts against 1", what, parts)
			require.True(t, slices.Equal(one.On.Done, got.On.Done), what)
		}
	}
}
