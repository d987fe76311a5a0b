package goal

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/stretchr/testify/require"
)

// A schedule on a machine of 2 to 4 parts (its events keyed, each rank's on its node's part)
// gives the result it gives on one engine whose events run in the order they were scheduled:
// every rank's end, the statistics and searches of its queues, what was left unmatched and
// the events run. Random Schedgen patterns (their pairings and sizes seeded, every send
// eager), random ranks, sizes and node latencies, on torus slabs and fat-tree subtrees.
// SEED replays a seed (testseed).
func TestPacketPartsSameAsOneEngine(t *testing.T) {
	seed := testseed.One(t, 39)
	testseed.ReplayOnFailure(t, seed, "./netsim/goal")
	rng := rand.New(rand.NewPCG(seed, 3))
	patterns := []string{"random_bisect", "linear_alltoallv", "alltoall_late", "allreduce_recdoub", "incast", "dissemination", "binomialtreebcast", "allreduce_ring"}
	for round := range 12 {
		topo := []string{"torus:4x4x4", "fattree:4x3"}[round%2]
		tp, err := fabric.ParseTopology(topo)
		require.NoError(t, err)
		gc := GenConfig{Pattern: patterns[rng.IntN(len(patterns))], Ranks: 2 + rng.IntN(tp.Nodes()-1), Size: 1 + rng.IntN(8000), Segment: 1024, Seed: rng.Uint64(), LateNs: 1 + rng.Int64N(3000)}
		if gc.Pattern == "allreduce_recdoub" {
			gc.Ranks = 1 << (bits.Len(uint(gc.Ranks)) - 1) // a power of two, as Schedgen's
			gc.Ranks = max(gc.Ranks, 2)
		}
		var b strings.Builder
		require.NoError(t, Generate(&b, gc))
		cc := cluster.DefaultConfig()
		cc.NodeLatency = netsim.Time(rng.IntN(3)) * 500 * netsim.Nanosecond
		var want *Result
		for _, parts := range []int{0, 2, 3, 4} {
			var c *cluster.Cluster
			if parts == 0 {
				c, err = cluster.Build(tp, fabric.DefaultConfig(), cc)
			} else {
				c, err = cluster.BuildParts(tp, fabric.DefaultConfig(), cc, parts)
			}
			require.NoError(t, err)
			s, err := Parse(strings.NewReader(b.String()))
			require.NoError(t, err)
			r, err := RunPacket(s, c, 1<<20, Options{Stats: true, Searches: true})
			if ps := c.Parts(); ps != nil {
				ps.Close()
			}
			require.NoError(t, err, "%+v on %s, %d parts", gc, topo, parts)
			if parts == 0 {
				want = r
				require.NotZero(t, r.End)
				continue
			}
			require.Equal(t, want, r, "%+v on %s, node latency %v: %d parts against one engine", gc, topo, cc.NodeLatency, parts)
		}
	}
}

// A machine of several parts refuses what it cannot carry between its windows: a rendezvous
// send to another rank (it completes at its receiver's match), and a tracer that sees the run
// from one thread; a PartsTracer it takes.
func TestPacketPartsRefuse(t *testing.T) {
	tp, err := fabric.ParseTopology("torus:4x4")
	require.NoError(t, err)
	s := parse(t, "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n")
	run := func(S uint64, tr Tracer) error {
		c, err := cluster.BuildParts(tp, fabric.DefaultConfig(), cluster.DefaultConfig(), 2)
		require.NoError(t, err)
		defer c.Parts().Close()
		_, err = RunPacket(s, c, S, Options{Tracer: tr})
		return err
	}
	require.ErrorContains(t, run(99, nil), "goal: a machine of 2 parts: rank 0 line 3 sends 100 bytes to rank 1 by rendezvous (over S=99)")
	require.ErrorContains(t, run(100, oneThread{}), "goal: a tracer on a machine of 2 parts")
	n := &countParts{}
	require.NoError(t, run(100, n))
	require.Equal(t, 1, n.posted, "the PartsTracer saw the recv posted")
}

type oneThread struct{}

func (oneThread) Busy(int, uint32, netsim.Time, netsim.Time)       {}
func (oneThread) Sending(int, uint32, netsim.Time)                 {}
func (oneThread) Posted(int, uint32, netsim.Time)                  {}
func (oneThread) Arrived(int, uint32, uint32, netsim.Time, bool)   {}
func (oneThread) Matched(int, uint32, uint32, uint32, netsim.Time) {}
func (oneThread) Queues(int, netsim.Time, int, int)                {}

// countParts counts posts (one rank posts: no two parts write it at once).
type countParts struct {
	oneThread
	posted int
}

func (c *countParts) Posted(int, uint32, netsim.Time) { c.posted++ }
func (*countParts) FromParts()                        {}
