package experiment_test

import (
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/net"
)

// TestSweepPlotReadable: a sweep's own figure (the barrier's, on a log-log grid) is drawn
// within its picture, as TestPlotsReadable asks of any.
func TestSweepPlotReadable(t *testing.T) {
	cfg := net.DefaultBarrier()
	cfg.Topologies, cfg.Processes, cfg.NodeLatency = []string{"crossbar:16"}, []int{2, 4, 8, 16}, cfg.NodeLatency[2:3]
	br, err := net.RunBarrier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	experiment.CheckPlot(t, "barrier", br.WritePlot)
}
