package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/goal"
	"github.com/lhsim/lhsim/experiment/ib"
	"github.com/lhsim/lhsim/experiment/incast"
	"github.com/lhsim/lhsim/experiment/mbcf"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/experiment/rx"
)

// viaJSON is what --slurm does with a sweep: each part's result written as JSON by its array
// task, read back, and merged. It must give what the whole run gives here, table and JSON,
// but for what measures the machine; so every sweep can run on Slurm.
func viaJSON[C experiment.Sweep[C, R], R any](t *testing.T, name string, cfg C, run func(C) (*R, error)) {
	t.Run(name, func(t *testing.T) {
		whole, err := run(cfg)
		require.NoError(t, err)
		var read []*R
		for _, p := range cfg.Parts() {
			res, err := run(p.Config)
			require.NoError(t, err, p.Label)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			back := new(R)
			require.NoError(t, json.Unmarshal(b, back), p.Label)
			read = append(read, back)
		}
		merged, err := cfg.Merge(read)
		require.NoError(t, err)
		show := func(r *R) (string, any) {
			var table bytes.Buffer
			require.NoError(t, any(r).(experiment.Table).WriteTable(&table))
			js, err := json.Marshal(r)
			require.NoError(t, err)
			return withoutMachineLines(table.String()), withoutMachineFields(t, string(js))
		}
		wantTable, wantJSON := show(whole)
		gotTable, gotJSON := show(merged)
		require.Equal(t, wantJSON, gotJSON)
		if name != "incast" { // its speed rows are measurements of this machine
			require.Equal(t, wantTable, gotTable)
		}
	})
}

func TestSweepsMergeFromJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	b := net.DefaultBarrier()
	b.Topologies, b.Processes, b.NodeLatency = experiment.MustTopologies("crossbar:4,crossbar:8"), []int{2, 4}, b.NodeLatency[:2]
	viaJSON(t, "barrier", b, net.RunBarrier)
	a := net.DefaultAlltoall()
	a.Torus, a.Sizes, a.Schemes = experiment.MustTopology("torus:4x4x4"), []int{8}, a.Schemes[:2]
	viaJSON(t, "alltoall", a, net.RunAlltoall)
	tr := net.DefaultTraffic()
	tr.Topology, tr.Loads, tr.WarmupCycles, tr.MeasureCycles = experiment.MustTopology("torus:4x4"), []float64{0.1, 0.3}, 200, 500
	viaJSON(t, "traffic", tr, net.RunTraffic)
	in := incast.Default()
	in.Topology, in.Messages, in.Model = experiment.MustTopology("crossbar:4"), 2, "go"
	in.RTLNodes = []int{}
	viaJSON(t, "incast", in, incast.Run)
	m := mbcf.Default()
	m.Iterations, m.Writes, m.Sizes, m.BandwidthSizes = 2, 16, []int{4, 64}, []int{4}
	viaJSON(t, "mbcf", m, mbcf.Run)
	rtt := ib.DefaultRTT()
	rtt.Iterations = 10
	viaJSON(t, "ib rtt", rtt, ib.RunRTT)
	bw := ib.DefaultBandwidth()
	bw.Sizes, bw.RDMAMax = []int{16, 1024}, 64
	viaJSON(t, "ib bandwidth", bw, ib.RunBandwidth)
	bu := ib.DefaultBuffers()
	bu.Nodes, bu.Messages, bu.Senders = []int{2, 8}, 20, 2
	viaJSON(t, "ib buffers", bu, ib.RunBuffers)
	cpr := ib.DefaultCPR()
	cpr.QPs = []int{1, 3}
	viaJSON(t, "ib cpr", cpr, ib.RunCPR)
	s := rx.DefaultSearch()
	s.Model, s.MaxDepth = "go", 4
	viaJSON(t, "search", s, rx.RunSearch)
	mt := goal.DefaultMatchers()
	mt.Ranks, mt.Workloads, mt.Matchers = 8, []string{"dissemination", "fig6"}, []string{"list", "bins:4", "lhs"}
	mt, err := mt.PrepareInput()
	require.NoError(t, err)
	viaJSON(t, "matchers", mt, goal.RunMatchers)
}
