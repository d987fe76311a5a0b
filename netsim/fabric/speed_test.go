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
	links := hops.Mean + 1                          // a flit's links: its routers and the injection link
	for _, cfg := range []Config{DefaultConfig()} { // (the booksim router: booksim.TestMeasureSpeed)
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
	_, err = MeasureSpeed(SpeedConfig{Topology: topo, Config: BookSimConfig(4 * netsim.Nanosecond), Load: 0.2, PacketFlits: 1, MeasureCycles: 10})
	require.ErrorIs(t, err, ErrBadConfig, "the booksim router measures itself")
}

// Points measured at once (Shared) count each its own thread's CPU: never more than the wall
// time it took (the process's CPU, with two points busy on two cores, may be), and no heap;
// alone, the thread's CPU is part of the process's. The counts are the same either way.
func TestMeasureSpeedShared(t *testing.T) {
	topo, err := ParseTopology("torus:8x8")
	require.NoError(t, err)
	c := SpeedConfig{Topology: topo, Config: DefaultConfig(), Load: 0.3, PacketFlits: 4, WarmupCycles: 500, MeasureCycles: 20000, Seed: 2}
	alone, err := MeasureSpeed(c)
	require.NoError(t, err)
	require.Positive(t, alone.ThreadCPU)
	require.LessOrEqual(t, alone.ThreadCPU, alone.CPU+0.002, "a thread's CPU is part of the process's")
	require.LessOrEqual(t, alone.ThreadCPU, alone.Wall+0.002)
	require.Positive(t, alone.HeapPerNode)
	c.Shared = true
	var got [2]Speed
	var errs [2]error
	done := make(chan int)
	for i := range got {
		go func() { got[i], errs[i] = MeasureSpeed(c); done <- i }()
	}
	<-done
	<-done
	for i, sp := range got {
		require.NoError(t, errs[i])
		require.Positive(t, sp.ThreadCPU)
		require.LessOrEqual(t, sp.ThreadCPU, sp.Wall+0.002, "point %d: its own thread's CPU, not the process's", i)
		require.Zero(t, sp.HeapPerNode, "the heap is the process's: not measured")
		require.Equal(t, alone.Events, sp.Events)
		require.Equal(t, alone.FlitHops, sp.FlitHops)
		require.Equal(t, alone.Accepted, sp.Accepted)
	}
}
