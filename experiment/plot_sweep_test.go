package experiment_test

import (
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/incast"
	"github.com/lhsim/lhsim/experiment/mbcf"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim"
)

// TestSweepPlotsReadable: the commands' own figures, all drawn through plot.go (one panel
// with its legend right of the data, or panels side by side), are drawn within their
// pictures, as TestPlotsReadable asks of any: barrier (log-log), traffic and mbcf (two
// panels), incast (many points), search.
func TestSweepPlotsReadable(t *testing.T) {
	bc := net.DefaultBarrier()
	bc.Topologies, bc.Processes, bc.NodeLatency = []string{"crossbar:16"}, []int{2, 4, 8, 16}, bc.NodeLatency[2:3]
	br, err := net.RunBarrier(bc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "barrier", br.WritePlot)

	tc := net.DefaultTraffic()
	tc.Topology, tc.Loads, tc.AllLoads = "torus:4x4", []float64{0.1, 0.3, 0.5}, true
	tc.WarmupCycles, tc.MeasureCycles, tc.DrainCycles = 1000, 4000, 6000
	tr, err := net.RunTraffic(tc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "traffic", tr.WritePlot)

	mc := mbcf.Default()
	mc.Iterations, mc.Writes = 2, 64
	mr, err := mbcf.Run(mc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "mbcf", mr.WritePlot)

	ic := incast.Default()
	ic.Topology, ic.Messages, ic.PostAt, ic.Speed, ic.RTLNodes = "crossbar:4", 30, 20*netsim.Microsecond, false, []int{}
	ir, err := incast.Run(ic)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "incast", ir.WritePlot)

	sc := rx.DefaultSearch()
	sc.Model, sc.Depths = "go", []int{0, 1, 3, 8, 32}
	sr, err := rx.RunSearch(sc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "search", sr.WritePlot)
}
