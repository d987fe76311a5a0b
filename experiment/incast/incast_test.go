package incast

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
)

func smallIncast() Config {
	cfg := Default()
	cfg.Topology = experiment.MustTopology("crossbar:4")
	cfg.Messages = 30
	cfg.PostAt = 20 * netsim.Microsecond
	cfg.Speed = false
	return cfg
}

// Every message is received once, LHS on and off; with LHS the receives complete sooner; the
// RTL and the golden model as receive paths give the same times.
func TestIncast(t *testing.T) {
	cfg := smallIncast()
	rtl, err := Run(cfg)
	require.NoError(t, err)
	for _, run := range []Outcome{rtl.On, rtl.Off} {
		require.Equal(t, 3*30, run.Messages)
		require.Positive(t, run.MaxQueueDepth)
	}
	require.Less(t, rtl.On.MeanReceiveUs, rtl.Off.MeanReceiveUs)
	cfg.RTLNodes = []int{}
	gm, err := Run(cfg)
	require.NoError(t, err)
	for _, p := range [][2]Outcome{{rtl.On, gm.On}, {rtl.Off, gm.Off}} {
		require.Equal(t, p[0].MeanReceiveUs, p[1].MeanReceiveUs)
		require.Equal(t, p[0].LastReceiveUs, p[1].LastReceiveUs)
		require.Equal(t, p[0].StallCycles, p[1].StallCycles)
	}
}

// A small LH buffer fills with unexpected messages: the receive path holds the network off,
// the host moves messages to its memory to let the wanted one in, and nothing is lost.
func TestIncastLHFull(t *testing.T) {
	cfg := smallIncast()
	cfg.RTLNodes = []int{}
	cfg.Entries = 16
	r, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, 3*30, r.On.Messages)
	require.Positive(t, r.On.StallCycles, "back-pressure from the full LH buffer")
	require.Positive(t, r.On.CopiedToHost)
	require.Zero(t, r.Off.StallCycles, "the SO-DIMM ring does not fill")
}

func TestIncastBadInput(t *testing.T) {
	cfg := smallIncast()
	cfg.Receivers = 4
	_, err := Run(cfg)
	require.ErrorContains(t, err, "4 receivers on 4 nodes")
	cfg = smallIncast()
	cfg.RTLNodes = []int{3}
	_, err = Run(cfg)
	require.ErrorContains(t, err, "RTL node 3 is not a receiver")
	// A receiver named twice in the RTL nodes is refused as input (it was taken silently).
	cfg = smallIncast()
	cfg.Receivers, cfg.RTLNodes = 2, []int{0, 0}
	_, err = Run(cfg)
	require.ErrorContains(t, err, "RTL nodes: 0 is named twice")
	var ie *experiment.InputError
	require.ErrorAs(t, err, &ie)
	cfg = smallIncast()
	cfg.Model = "rtl"
	_, err = Run(cfg)
	require.ErrorContains(t, err, `model "rtl" for the non-RTL receivers`)
	cfg = smallIncast()
	cfg.Model, cfg.RTLNodes = "tlm", []int{}
	_, err = Run(cfg)
	require.ErrorContains(t, err, "no host bus for the MPI host")
	cfg.Host = "os"
	_, err = Run(cfg)
	require.ErrorContains(t, err, `host "os"`)
}

// The MPI host (drivers/mpi on each receiver's host bus): the RTL in this process, the RTL in
// a plugin process and the golden model give the same receive times; its search costs are
// those lhsim search measures on a single node, so LHS off takes about as much longer than
// LHS on as the costs host (which charges those figures per message) says; and with a small
// LH buffer it spills messages to host memory to let the wanted ones in.
func TestIncastMPIHost(t *testing.T) {
	cfg := smallIncast()
	cfg.Topology, cfg.Messages, cfg.Speed = experiment.MustTopology("crossbar:5"), 60, true
	live, err := Run(cfg)
	require.NoError(t, err)
	require.Len(t, live.Speed, 3)
	for _, s := range live.Speed {
		require.True(t, s.Same, "%s: mean receive %.3f µs; RTL %.3f µs", s.NIC, s.MeanReceiveUs, live.On.MeanReceiveUs)
	}
	cfg.Host, cfg.Speed = HostCosts, false
	costs, err := Run(cfg)
	require.NoError(t, err)
	gap := func(r *Result) float64 { return r.Off.MeanReceiveUs - r.On.MeanReceiveUs }
	t.Logf("LHS off - on, mean receive: %.1f µs with the MPI host, %.1f µs with the costs host", gap(live), gap(costs))
	require.InEpsilon(t, gap(costs), gap(live), 0.3)
	require.Equal(t, live.On.Messages, costs.On.Messages)

	cfg = smallIncast()
	cfg.RTLNodes, cfg.Entries = []int{}, 16
	r, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, 3*30, r.On.Messages)
	require.Positive(t, r.On.StallCycles, "back-pressure from the full LH buffer")
	require.Positive(t, r.On.CopiedToHost, "spilled to host memory")
}

// The same incast (with the costs host) with every receiver the RTL in this process, the RTL
// in a plugin process, the golden model and the transaction-level model: every receive
// completes at the same time, with the same stalls, with the LH buffer filling. And with two
// receivers, one RTL (on either bridge) and one of each model, the same times as with two RTL
// receivers, LHS on and off.
func TestIncastReceivePathsAgree(t *testing.T) {
	cfg := smallIncast()
	cfg.Host = HostCosts
	cfg.Topology, cfg.Messages, cfg.Speed = experiment.MustTopology("crossbar:5"), 300, true
	cfg.PostAt = 300 * netsim.Microsecond
	r, err := Run(cfg)
	require.NoError(t, err)
	require.Len(t, r.Speed, 4)
	require.Positive(t, r.On.CopiedToHost, "the 1024-entry LH buffer filled")
	for _, s := range r.Speed {
		require.True(t, s.Same, "%s: mean receive %.3f µs, %d stalls; RTL %.3f µs, %d stalls", s.NIC, s.MeanReceiveUs, s.StallCycles,
			r.On.MeanReceiveUs, r.On.StallCycles)
	}
	cfg = smallIncast()
	cfg.Host = HostCosts
	cfg.Receivers, cfg.Topology = 2, experiment.MustTopology("crossbar:6")
	both, err := Run(cfg)
	require.NoError(t, err)
	for _, bridge := range []device.Bridge{device.Cgo, device.Plugin} {
		for _, model := range []string{"go", "tlm"} {
			cfg.Bridge, cfg.Model, cfg.RTLNodes = bridge, model, []int{1}
			m, err := Run(cfg)
			require.NoError(t, err)
			require.Equal(t, both.On.Done, m.On.Done, "RTL on %s at 1, %s at 0", bridge, model)
			require.Equal(t, both.Off.Done, m.Off.Done, "RTL on %s at 1, %s at 0", bridge, model)
		}
	}
}

// Several receive paths at once (their cycles start at the same times): every message
// arrives, and RTL and golden-model receivers agree.
func TestIncastManyReceivers(t *testing.T) {
	cfg := smallIncast()
	cfg.Topology, cfg.Receivers, cfg.Messages = experiment.MustTopology("crossbar:8"), 4, 10
	rtl, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, 4*4*10, rtl.On.Messages)
	cfg.RTLNodes = []int{1, 3}
	mixed, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, rtl.On.MeanReceiveUs, mixed.On.MeanReceiveUs)
	require.Equal(t, rtl.Off.LastReceiveUs, mixed.Off.LastReceiveUs)
}

// --trace: the traced receiver's RTL waveform and its GTKWave save file are written, and
// fst2vcd reads the waveform; a golden-model receiver has none to give.
func TestIncastTrace(t *testing.T) {
	cfg := smallIncast()
	cfg.Trace = filepath.Join(t.TempDir(), "n0.fst")
	r, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, cfg.Trace, r.On.Waveform)
	save, err := os.ReadFile(r.On.SaveFile)
	require.NoError(t, err)
	require.Contains(t, string(save), cfg.Trace)
	if _, err := exec.LookPath("fst2vcd"); err == nil {
		vcd, err := exec.Command("fst2vcd", cfg.Trace).Output()
		require.NoError(t, err)
		require.Contains(t, string(vcd), "s_msg_tready")
	}
	cfg.RTLNodes = []int{}
	_, err = Run(cfg)
	require.ErrorContains(t, err, "runs go, which has no waveform here")
}

// Sixteen receivers (golden model, 64-entry LH buffers) whose buffers fill: stepped with the
// network's lookahead they give the same receive times as stepped in turn, with far fewer
// step events of the receive paths (the costs host, whose events are few), and the same
// events besides (what Events counts). With the MPI host, whose accesses come at its own
// times, the same receive times too.
func TestIncastLookahead(t *testing.T) {
	cfg := smallIncast()
	cfg.Topology, cfg.Receivers, cfg.Messages, cfg.PostAt = experiment.MustTopology("crossbar:20"), 16, 20, 100*netsim.Microsecond
	cfg.RTLNodes, cfg.Entries = []int{}, 64
	ahead, err := Run(cfg)
	require.NoError(t, err)
	cfg.StepInTurn = true
	inTurn, err := Run(cfg)
	require.NoError(t, err)
	require.Positive(t, ahead.On.CopiedToHost, "the LH buffers filled")
	require.Equal(t, inTurn.On.Done, ahead.On.Done)
	require.Equal(t, inTurn.Off.Done, ahead.Off.Done)
	require.Equal(t, inTurn.On.StallCycles, ahead.On.StallCycles)

	cfg.StepInTurn, cfg.Host, cfg.Messages = false, HostCosts, 70
	ahead, err = Run(cfg)
	require.NoError(t, err)
	cfg.StepInTurn = true
	inTurn, err = Run(cfg)
	require.NoError(t, err)
	require.Positive(t, ahead.On.CopiedToHost, "the LH buffers filled")
	require.Equal(t, inTurn.On.Done, ahead.On.Done)
	require.Equal(t, inTurn.Off.Done, ahead.Off.Done)
	require.Equal(t, inTurn.On.StallCycles, ahead.On.StallCycles)
	require.Equal(t, inTurn.On.Events, ahead.On.Events, "the events but the receive paths' steps")
	t.Logf("LHS on: %d step events stepping in turn, %d with the lookahead", inTurn.On.steps, ahead.On.steps)
	require.Less(t, ahead.On.steps, inTurn.On.steps*2/3)
}
