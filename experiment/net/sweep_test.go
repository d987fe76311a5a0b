package net

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
)

// runParts runs every part on its own, as the array tasks of lhsim --slurm do.
func runParts[C, R any](t *testing.T, parts []experiment.Part[C], run func(C) (*R, error)) []*R {
	t.Helper()
	var out []*R
	for _, p := range parts {
		r, err := run(p.Config)
		require.NoError(t, err, p.Label)
		out = append(out, r)
	}
	return out
}

// A sweep cut into parts and merged gives the rows and event counts of the whole sweep run at
// once; only the machine's times differ.
func TestMergeIsTheWholeSweep(t *testing.T) {
	t.Run("barrier", func(t *testing.T) {
		cfg := DefaultBarrier()
		cfg.Topologies = experiment.MustTopologies("crossbar:16,fattree:2x3")
		cfg.NodeLatency = []netsim.Time{0, netsim.Microsecond}
		whole, err := RunBarrier(cfg)
		require.NoError(t, err)
		parts := cfg.Parts()
		require.Len(t, parts, 4)
		require.Equal(t, "fattree:2x3 node-latency 1us", parts[3].Label)
		merged, err := cfg.Merge(runParts(t, parts, RunBarrier))
		require.NoError(t, err)
		whole.WallSeconds, merged.WallSeconds = 0, 0
		require.Equal(t, whole, merged)
	})
	t.Run("alltoall", func(t *testing.T) {
		cfg := DefaultAlltoall()
		cfg.Torus, cfg.Sizes, cfg.Uneven, cfg.EqualLatency = experiment.MustTopology("torus:4x4x4"), []int{8, 64}, true, true
		whole, err := RunAlltoall(cfg)
		require.NoError(t, err)
		parts := cfg.Parts()
		require.Len(t, parts, 8) // 2 sizes x 4 schemes
		merged, err := cfg.Merge(runParts(t, parts, RunAlltoall))
		require.NoError(t, err)
		for _, r := range []*AlltoallResult{whole, merged} {
			r.WallS, r.EventsPerS = 0, 0
			for i := range r.Rows {
				r.Rows[i].WallS = 0
			}
		}
		require.Equal(t, whole, merged)
	})
	t.Run("traffic", func(t *testing.T) {
		for _, all := range []bool{false, true} {
			cfg := DefaultTraffic()
			cfg.Topology, cfg.Loads, cfg.AllLoads = experiment.MustTopology("torus:4x4x4"), []float64{0.1, 0.5, 0.9, 1.0, 1.2}, all
			cfg.WarmupCycles, cfg.MeasureCycles, cfg.DrainCycles = 500, 1000, 2000
			whole, err := RunTraffic(cfg)
			require.NoError(t, err)
			merged, err := cfg.Merge(runParts(t, cfg.Parts(), RunTraffic))
			require.NoError(t, err)
			require.Equal(t, len(whole.Rows), len(merged.Rows))
			if !all {
				require.Less(t, len(merged.Rows), 5, "the sweep stops after the first saturated load")
			}
			for _, r := range []*TrafficResult{whole, merged} {
				r.CPUSeconds, r.EventsPerS, r.FlitHopsPerS = 0, 0, 0
			}
			require.Equal(t, whole, merged)
		}
	})
}

// Parts of different machines are not merged.
func TestMergeRefusesMixedParts(t *testing.T) {
	a, b := DefaultTraffic(), DefaultTraffic()
	a.Topology, a.Loads = experiment.MustTopology("torus:4x4x4"), []float64{0.1}
	b.Topology, b.Loads = experiment.MustTopology("crossbar:8"), []float64{0.2}
	ra, err := RunTraffic(a)
	require.NoError(t, err)
	rb, err := RunTraffic(b)
	require.NoError(t, err)
	_, err = TrafficConfig{Loads: []float64{0.1, 0.2}}.Merge([]*TrafficResult{ra, rb})
	require.ErrorContains(t, err, "part 1 (load 0.2) describes another machine than part 0")
}
