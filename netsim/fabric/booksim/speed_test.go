package booksim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// The speed benchmark on the booksim router counts what it says: below saturation the
// measured cycles deliver the offered load, each delivered flit crossed the mean path's
// channels (its routers and the injection channel: BookSim2's uniform includes the source
// itself, one router), and the channels delivered at least a flit and a credit per flit-hop.
func TestMeasureSpeed(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:4x4")
	require.NoError(t, err)
	n, err := New(topo, fabric.BookSimConfig(4*netsim.Nanosecond), 1)
	require.NoError(t, err)
	var routers float64
	for s := range topo.Nodes() {
		for d := range topo.Nodes() {
			z, err := n.ZeroLoad(s, d, 1)
			require.NoError(t, err)
			routers += float64(z-1) / 6 // 1 + 6H on the torus
		}
	}
	routers /= float64(topo.Nodes() * topo.Nodes())
	for _, flits := range []int{1, 4} {
		sp, err := MeasureSpeed(fabric.SpeedConfig{Topology: topo, Config: fabric.BookSimConfig(4 * netsim.Nanosecond), Load: 0.2, PacketFlits: flits, WarmupCycles: 2000, MeasureCycles: 20000, Seed: 3})
		require.NoError(t, err)
		require.InDelta(t, 0.2, sp.Accepted, 0.02, "%d flits: accepted", flits)
		delivered := sp.Accepted * float64(sp.Cycles) * float64(topo.Nodes())
		require.InEpsilon(t, routers+1, float64(sp.FlitHops)/delivered, 0.05, "%d flits: channels per flit", flits)
		require.GreaterOrEqual(t, float64(sp.Events), 2*float64(sp.FlitHops)*0.95, "%d flits: events", flits)
		require.Positive(t, sp.CPU)
	}
}
