package fabric

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// The speed benchmark counts what it says on both routers: below saturation the measured
// cycles deliver the offered load, the delivered flits crossed the mean path's links each
// (its routers plus the injection link), the events are at least one per packet
// delivered, and the heap per node is the network's and a little more. (The rates
// themselves are measured by lhsim bench-net, not checked here.)
func TestMeasureSpeed(t *testing.T) {
	topo, err := ParseTopology("torus:4x4")
	require.NoError(t, err)
	_, probe := build(t, "torus:4x4", DefaultConfig())
	hops, err := probe.Hops()
	require.NoError(t, err)
	links := hops.Mean + 1 // a flit's links: its routers and the injection link
	for _, cfg := range []Config{DefaultConfig(), BookSimConfig(4 * netsim.Nanosecond)} {
		for _, flits := range []int{1, 4} {
			sp, err := MeasureSpeed(SpeedConfig{Topology: topo, Config: cfg, Load: 0.2, PacketFlits: flits, WarmupCycles: 2000, MeasureCycles: 20000, Seed: 3})
			require.NoError(t, err)
			what := cfg.Router.String()
			require.InDelta(t, 0.2, sp.Accepted, 0.02, "%s, %d flits: accepted", what, flits)
			delivered := sp.Accepted * float64(sp.Cycles) * float64(topo.Nodes())
			require.InEpsilon(t, links, float64(sp.FlitHops)/delivered, 0.05, "%s, %d flits: links per flit", what, flits)
			require.GreaterOrEqual(t, float64(sp.Events), delivered/float64(flits), "%s: events", what)
			require.Positive(t, sp.CPU)
		}
	}
	// The heap per node is the network's (Footprint, which TestFootprint holds to what New
	// takes) and the little in flight at a light load: on 512 nodes, where a few KB of the
	// runtime's own coming and going are lost in the sum.
	big, err := ParseTopology("torus:8x8x8")
	require.NoError(t, err)
	sp, err := MeasureSpeed(SpeedConfig{Topology: big, Config: DefaultConfig(), Load: 0.05, PacketFlits: 4, WarmupCycles: 500, MeasureCycles: 100, Seed: 1})
	require.NoError(t, err)
	perNode := float64(Footprint(big, DefaultConfig())) / float64(big.Nodes())
	t.Logf("heap %.0f bytes a node, footprint %.0f", sp.HeapPerNode, perNode)
	require.Greater(t, sp.HeapPerNode, 0.8*perNode)
	require.Less(t, sp.HeapPerNode, 3*perNode)
	_, err = MeasureSpeed(SpeedConfig{Topology: topo, Config: DefaultConfig(), Load: 0.2, PacketFlits: 1, MeasureCycles: 0})
	require.Error(t, err)
}
