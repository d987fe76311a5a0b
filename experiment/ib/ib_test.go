package ib

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ib"
)

// lhsim ib rtt's JSON is exactly the issue's: {"gc_le": {"dowqe_us", "no_dowqe_us"},
// "e7501": {...}}; without Data on WQE a round trip is longer; every round trip is within
// 15 % of the PM/InfiniBand-FJ paper's Table 4 (docs/ib.md says which are inputs and why the DoWQE effect is not).
func TestIBRTT(t *testing.T) {
	cfg := DefaultRTT()
	cfg.Iterations = 10
	r, err := RunRTT(cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r))
	var got map[string]map[string]float64
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	require.Len(t, got, 2)
	for _, chip := range []string{"gc_le", "e7501"} {
		require.Len(t, got[chip], 2, chip)
		with, without := got[chip]["dowqe_us"], got[chip]["no_dowqe_us"]
		require.Greater(t, without, with, chip)
		paper := paperRTT[map[string]string{"gc_le": "gc-le", "e7501": "e7501"}[chip]]
		require.InEpsilon(t, paper[0], with, 0.15, chip)
		require.InEpsilon(t, paper[1], without, 0.15, chip)
	}
	require.Greater(t, r.ThreeStages[0], got["e7501"]["dowqe_us"], "three switches take longer than one")
	var table bytes.Buffer
	require.NoError(t, r.WriteTable(&table))
	require.Contains(t, table.String(), "input: calibration")
	require.Contains(t, table.String(), "not modelled")
}

// Bandwidth grows with size, RDMA stays under its bound (4 KB DMA reads one at a time), and
// the JSON has its rows and peaks.
func TestIBBandwidth(t *testing.T) {
	cfg := DefaultBandwidth()
	cfg.Chipsets = []ib.Params{ib.GCLE()}
	cfg.Sizes = []int{64, 1024, 8192}
	cfg.RDMAMax = 65536
	r, err := RunBandwidth(cfg)
	require.NoError(t, err)
	last := map[string]float64{}
	for _, row := range r.Rows {
		require.Greater(t, row.MBps, last[row.Kind], "%+v", row)
		last[row.Kind] = row.MBps
		require.Less(t, row.MBps, 4096/(574*7.519e-3), "%+v", row)
	}
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r))
	var got struct {
		Rows []map[string]any              `json:"rows"`
		Peak map[string]map[string]float64 `json:"peak"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	for _, k := range []string{"chipset", "kind", "bytes", "mb_s"} {
		require.Contains(t, got.Rows[0], k)
	}
	require.Equal(t, 688.0, got.Peak["gc_le"]["paper_message"])
	require.NoError(t, r.WritePlot(filepath.Join(t.TempDir(), "bw.svg")))
}

// The buffer scaling's rows are exactly {"nodes", "rc_bytes", "srq_bytes"}: per-peer memory
// grows with the node count, the shared queue's does not. The incasts deliver every message;
// a queue runs dry (RNR NAKs) exactly when the offered rate is above the derived threshold.
func TestIBBuffers(t *testing.T) {
	cfg := DefaultBuffers()
	cfg.Nodes = []int{2, 64, 4096}
	cfg.Messages = 60
	cfg.Depths = []int{32}
	cfg.RatesKps = []float64{60, 300}
	r, err := RunBuffers(cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r))
	var got struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	require.Len(t, got.Rows, 3)
	for _, row := range got.Rows {
		require.Len(t, row, 3)
		for _, k := range []string{"nodes", "rc_bytes", "srq_bytes"} {
			require.Contains(t, row, k)
		}
	}
	require.Equal(t, r.Rows[0].SRQBytes, r.Rows[2].SRQBytes)
	require.Equal(t, 4095*r.Rows[0].RCBytes, r.Rows[2].RCBytes)
	for _, d := range r.Dry {
		require.Equal(t, d.Sent, d.Delivered, "%+v", d)
		require.Equal(t, d.ThresholdKp > 0 && d.OfferedKps > d.ThresholdKp, d.RNRNaks > 0, "%+v", d)
	}
	var table bytes.Buffer
	require.NoError(t, r.WriteTable(&table))
	require.NoError(t, r.WritePlot(filepath.Join(t.TempDir(), "b.png")))
}

// Bulk commands beat one per QP by more as QPs grow, and tie at one QP.
func TestIBCPR(t *testing.T) {
	r, err := RunCPR(CPRConfig{QPs: []int{1, 8, 64}, Params: DefaultCPR().Params})
	require.NoError(t, err)
	require.Zero(t, r.Rows[0].SavedUs)
	require.Greater(t, r.Rows[1].SavedUs, 0.0)
	require.Greater(t, r.Rows[2].SavedUs, r.Rows[1].SavedUs)
	for _, row := range r.Rows {
		require.LessOrEqual(t, row.BulkUs, row.PerQPUs)
	}
}

// lhsim ib run: the run checkpointed and gone on in this process, and the one resumed from
// the file, end with the same digest.
func TestIBRunCheckpointResume(t *testing.T) {
	cfg := DefaultRun()
	cfg.Machine.Nodes, cfg.Machine.RDMABytes = 4, 4*4096
	cfg.Workload.Messages = 20
	cfg.CheckpointAt = 200 * netsim.Microsecond
	went, err := Run(cfg)
	require.NoError(t, err)
	require.NotNil(t, went.Checkpoint)
	cfg.Checkpoint = filepath.Join(t.TempDir(), "ib.ckpt")
	stopped, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, cfg.Checkpoint, stopped.Saved)
	require.Empty(t, stopped.Nodes)
	resumed, err := Resume(cfg.Checkpoint)
	require.NoError(t, err)
	require.True(t, resumed.Resumed)
	require.Equal(t, went.Digest, resumed.Digest)
	require.Equal(t, went.Nodes, resumed.Nodes)
}
