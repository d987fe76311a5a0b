package experiment_test

import (
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/goal"
	"github.com/lhsim/lhsim/experiment/ib"
	"github.com/lhsim/lhsim/experiment/incast"
	"github.com/lhsim/lhsim/experiment/mbcf"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim"
)

// TestEveryPlotReadable: every command's --plot goes through plot.go (one panel with its
// legend right of the data, or panels side by side, each with its legend outside its data)
// and passes CheckPlot: barrier (log-log), traffic and mbcf (two panels; mbcf's simulated
// lines beside the paper's points), incast (many points), ib bandwidth and buffers, search
// and the matchers' Pareto figure. The runs are small; the matchers' result is made up here
// (its run needs the Yosys reports; the figure's layout is what is checked).
func TestEveryPlotReadable(t *testing.T) {
	bc := net.DefaultBarrier()
	bc.Topologies, bc.Processes, bc.NodeLatency = experiment.MustTopologies("crossbar:16"), []int{2, 4, 8, 16}, bc.NodeLatency[2:3]
	br, err := net.RunBarrier(bc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "barrier", br.WritePlot)

	tc := net.DefaultTraffic()
	tc.Topology, tc.Loads, tc.AllLoads = experiment.MustTopology("torus:4x4"), []float64{0.1, 0.3, 0.5}, true
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
	ic.Topology, ic.Messages, ic.PostAt, ic.Speed, ic.RTLNodes = experiment.MustTopology("crossbar:4"), 30, 20*netsim.Microsecond, false, []int{}
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

	bw := ib.DefaultBandwidth()
	bw.Sizes, bw.RDMAMax = []int{64, 1024, 8192}, 65536 // both chipsets, the default
	bwr, err := ib.RunBandwidth(bw)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "ib-bandwidth", bwr.WritePlot)

	uc := ib.DefaultBuffers()
	uc.Nodes, uc.Messages, uc.Depths, uc.RatesKps = []int{2, 64, 4096}, 20, []int{32}, []float64{60}
	ur, err := ib.RunBuffers(uc)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "ib-buffers", ur.WritePlot)

	m := &goal.MatchersResult{Ranks: 64}
	for _, w := range []string{"allreduce.goal", "alltoall.goal"} {
		for i, name := range []string{"list", "bins:16", "alpu:64"} {
			c := goal.MatchersCell{Workload: w, Matcher: name, EndUs: float64(100 - 10*i), Software: i < 2}
			if !c.Software {
				c.Area = &goal.MatcherArea{XC2VPSlices: 900}
			}
			m.Cells = append(m.Cells, c)
		}
	}
	experiment.CheckPlot(t, "matchers", m.WriteParetoPlot)
}
