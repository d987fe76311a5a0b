package fabric

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// The speed benchmark counts what it says on both routers: below saturation the measured
// cycles deliver the offered load, the delivered flits crossed the mean path's links each
// (its routers plus the injection link), the events are at least one per packet
// delivered, and the heap per node is positive. (The rates themselves are measured by lhsim
// bench-net, not checked here.)
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
			require.Positive(t, sp.HeapPerNode)
		}
	}
	_, err = MeasureSpeed(SpeedConfig{Topology: topo, Config: DefaultConfig(), Load: 0.2, PacketFlits: 1, MeasureCycles: 0})
	require.Error(t, err)
}
