package goal

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
)

// LHS receive paths (Verilated RTL) on the nodes' parts give the same results on any split:
// random Schedgen patterns, ranks, sizes and node latencies, with random nodes' receive
// paths RTL, on 2, 3 and 4 threads against 1: every rank's end and matching statistics, the
// event count (the receive paths' own steps left out). A receive path runs ahead of its
// part's next event and of the window's end by how much the split allows; its ranks learn
// of a message at the time it was taken all the same (lhsnic.Config.TakenAtTime). Seeded:
// SEED replays one (testseed).
func TestRTLNodesOnPartsSameAsOne(t *testing.T) {
	seed := testseed.One(t, 39)
	testseed.ReplayOnFailure(t, seed, "./experiment/goal")
	rng := rand.New(rand.NewPCG(seed, 39))
	patterns := []string{"random_bisect", "linear_alltoallv", "alltoall_late", "allreduce_recdoub", "incast", "dissemination", "binomialtreebcast", "allreduce_ring"}
	rounds := 12
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		topo := []string{"torus:4x4x4", "fattree:4x3"}[round%2]
		tp := experiment.MustTopology(topo)
		gc := goal.GenConfig{Pattern: patterns[rng.IntN(len(patterns))], Ranks: 2 + rng.IntN(tp.Fabric().Nodes()-1), Size: 1 + rng.IntN(8000), Segment: 1024, Seed: rng.Uint64(), LateNs: 1 + rng.Int64N(3000)}
		if gc.Pattern == "allreduce_recdoub" {
			gc.Ranks = max(1<<(bits.Len(uint(gc.Ranks))-1), 2) // a power of two, as Schedgen's
		}
		var b strings.Builder
		require.NoError(t, goal.Generate(&b, gc))
		var rtl []int
		for _, n := range rng.Perm(gc.Ranks)[:1+rng.IntN(min(gc.Ranks, 6))] {
			rtl = append(rtl, n)
		}
		cc := cluster.DefaultConfig()
		cc.NodeLatency = netsim.Time(rng.IntN(3)) * 500 * netsim.Nanosecond
		var want *Result
		for _, threads := range []int{1, 2, 3, 4} {
			s, err := goal.Parse(strings.NewReader(b.String()))
			require.NoError(t, err)
			cfg := Config{Network: "packet", Topology: tp, LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cc, RTLNodes: rtl, Threads: threads}
			cfg.LogGP.S = 1 << 20 // every send eager: on parts
			got, why := Threads(cfg, s)
			require.Equal(t, threads, got, "%+v on %s: %s", gc, topo, why)
			r, err := RunSchedule(cfg, s)
			require.NoError(t, err, "%+v on %s, RTL nodes %v, %d threads", gc, topo, rtl, threads)
			if threads == 1 {
				want = r
				require.NotZero(t, r.EndNs)
				continue
			}
			require.Equal(t, want, r, "%+v on %s, RTL nodes %v, node latency %v: %d threads against 1", gc, topo, rtl, cc.NodeLatency, threads)
		}
	}
}
