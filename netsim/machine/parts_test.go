package machine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Spec.Parts builds the machine on parts (each node's rank on its router's part) and says
// what its windows were; RTL (a receive path, here the golden model's, which would be RTL
// elsewhere) on more than one part is refused before anything opens.
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

	bad := spec(t, false)
	bad.Topology, bad.Parts = tp, 2
	_, err = Build(bad)
	require.ErrorContains(t, err, "machine: RTL (receive paths, a waveform, RTL matchers) on a machine of 2 parts: it runs on one thread")

	one, err := Build(Spec{Topology: tp, Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()})
	require.NoError(t, err)
	defer one.Close()
	require.Nil(t, one.Cluster().Parts(), "Parts 0: one engine, events in the order scheduled")
	require.Zero(t, one.Windows().Windows)
}
