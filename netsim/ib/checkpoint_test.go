package ib

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// ckptConfig is a machine of six nodes whose shared receive queues are small enough for
// the workload to run them dry (RNR NAKs and retries), with RDMA writes among the sends.
func ckptConfig() (Config, Workload) {
	cfg := DefaultConfig()
	cfg.Nodes = 6
	cfg.OneCQ = true
	cfg.RecvDepth = 4
	cfg.SQDepth = 8
	cfg.CQDepth = 64
	cfg.RDMABytes = 6 * 4096
	w := Workload{Messages: 40, RDMAEvery: 5, Gap: 2 * netsim.Microsecond, Consume: 12 * netsim.Microsecond, Seed: 3}
	return cfg, w
}

func startTraffic(t *testing.T, cfg Config, w Workload) *Cluster {
	c, err := Build(cfg)
	require.NoError(t, err)
	for i := range cfg.Nodes {
		c.Start(i, 0, NewTraffic(w, i))
	}
	return c
}

func finish(t *testing.T, c *Cluster) []NodeOutcome {
	require.NoError(t, c.Run(netsim.Never))
	o, err := c.Outcome()
	require.NoError(t, err)
	return o
}

// TestCheckpointResumeHelper is the new process: it reads the checkpoint named in the
// environment, restores the machine and runs it to the end.
func TestCheckpointResumeHelper(t *testing.T) {
	in, out := os.Getenv("IB_CHECKPOINT_IN"), os.Getenv("IB_CHECKPOINT_OUT")
	if in == "" {
		t.Skip("run by TestCheckpointRestoreInNewProcess")
	}
	c, _, err := ReadCheckpoint(in)
	require.NoError(t, err)
	require.NoError(t, c.Continue())
	data, err := json.Marshal(finish(t, c))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, data, 0o644))
}

// A six-node run with traffic in flight (packets on the wire, messages unacknowledged, RNR
// retries pending) is checkpointed with one range command per node, written to an lhsim
// checkpoint file, and resumed in a new process from the file: it ends exactly as the run
// that was checkpointed and went on in this process (every node's received messages and
// their times, send completions, memory, HCA counters). Against a run never checkpointed,
// every node received the same messages in the same order (only later).
func TestCheckpointRestoreInNewProcess(t *testing.T) {
	cfg, w := ckptConfig()
	for _, bulk := range []bool{true, false} {
		name := map[bool]string{true: "bulk", false: "per QP"}[bulk]
		t.Run(name, func(t *testing.T) {
			never := finish(t, startTraffic(t, cfg, w))

			at := 700 * netsim.Microsecond
			c := startTraffic(t, cfg, w)
			rep, err := c.Checkpoint(at, bulk)
			require.NoError(t, err)
			f := rep.InFlight
			require.Positive(t, f.Packets+f.Unacked, "traffic in flight at the checkpoint: %+v", f)
			require.Positive(t, f.NotStarted, "WQEs posted and not started: %+v", f)
			path := filepath.Join(t.TempDir(), "ib.ckpt")
			require.NoError(t, c.WriteCheckpoint(path, w))
			require.NoError(t, c.Continue())
			went := finish(t, c)

			out := filepath.Join(t.TempDir(), "outcome.json")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckpointResumeHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "IB_CHECKPOINT_IN="+path, "IB_CHECKPOINT_OUT="+out)
			msg, err := cmd.CombinedOutput()
			require.NoError(t, err, "the resuming process:\n%s", msg)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			var resumed []NodeOutcome
			require.NoError(t, json.Unmarshal(data, &resumed))
			require.Equal(t, went, resumed, "resumed in a new process against checkpointed and gone on")

			var rnr uint64
			for i := range never {
				require.Equal(t, never[i].Content, went[i].Content, "node %d received other messages than without a checkpoint", i)
				require.Equal(t, never[i].Received, went[i].Received)
				require.Greater(t, went[i].EndPs, never[i].EndPs, "the checkpoint took time")
				rnr += went[i].Stats.RNRNaksSent
			}
			require.Positive(t, rnr, "the shared receive queues ran dry")
			t.Logf("%s: %s; in flight %+v; images %v bytes", name, rep, f, rep.ImageBytes)
		})
	}
}

// A machine on a network of its own (a fat tree, not the crossbar of Nodes) comes back from
// its checkpoint on that network, and ends as the run that went on.
func TestCheckpointKeepsTheTopology(t *testing.T) {
	cfg, w := ckptConfig()
	tree, err := fabric.NewFatTree(2, 2)
	require.NoError(t, err)
	cfg.Topology, cfg.Nodes = tree, 4
	c := startTraffic(t, cfg, w)
	_, err = c.Checkpoint(200*netsim.Microsecond, true)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "ib.ckpt")
	require.NoError(t, c.WriteCheckpoint(path, w))
	require.NoError(t, c.Continue())
	went := finish(t, c)

	back, meta, err := ReadCheckpoint(path)
	require.NoError(t, err)
	require.Equal(t, "fattree:2x2", meta.Topology)
	require.Equal(t, "fattree:2x2", back.Config().Topology.String())
	p, err := back.Network().Path(0, 2)
	require.NoError(t, err)
	require.Len(t, p, 4, "three switches between nodes 0 and 2, as on the fat tree")
	require.NoError(t, back.Continue())
	require.Equal(t, went, finish(t, back))
}
