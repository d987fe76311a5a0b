package machine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Spec.Parts builds the machine on parts (each node's rank on its router's part) and says
// what its windows were; receive paths of the golden model run on their nodes' parts, and
// the receives are the same on one part and on two; RTL in this process (a receive path's
// Verilated model) on more than one part is refused before anything opens.
func TestBuildOnParts(t *testing.T) {
	tp, err := fabric.ParseTopology("torus:4x4")
	require.NoError(t, err)
	s := Spec{Topology: tp, Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Parts: 2}
	m, err := Build(s)
	require.NoError(t, err)
	require.Equal(t, 2, m.Cluster().Parts().Len())
	res, err := m.Cluster().Run(16, func(r *cluster.Rank) { r.Send((r.ID()+5)%16, 0, 64); r.Recv(cluster.AnySource, 0) })
	require.NoError(t, err)
	require.NotZero(t, res.End)
	require.NoError(t, m.Finish(nil))
	ws := m.Windows()
	require.Equal(t, 2, ws.Parts)
	require.NotZero(t, ws.Windows)

	var ends [][]int64
	small, err := fabric.ParseTopology("torus:2x2") // cut across Y: nodes 0 and 2 apart
	require.NoError(t, err)
	for _, parts := range []int{1, 2} {
		gm := spec(t, false)
		gm.Topology, gm.Parts, gm.Stepping = small, parts, Grouped
		m, err := Build(gm)
		require.NoError(t, err)
		n, _ := m.Receiver(1)
		net := m.Cluster().Network()
		require.Same(t, net.NodeEngine(2), n.Engine(), "node 2's receive path on its part's engine")
		if parts == 2 {
			require.NotSame(t, net.NodeEngine(0), net.NodeEngine(2), "the two receivers on two parts")
		}
		res := run(t, m, 5)
		var end []int64
		for _, f := range res.Finished {
			end = append(end, int64(f))
		}
		ends = append(ends, end)
	}
	require.Equal(t, ends[0], ends[1], "every rank's end, receivers included, on 2 parts against 1")

	one, err := Build(Spec{Topology: tp, Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()})
	require.NoError(t, err)
	defer one.Close()
	require.Nil(t, one.Cluster().Parts(), "Parts 0: one engine, events in the order scheduled")
	require.Zero(t, one.Windows().Windows)
}
