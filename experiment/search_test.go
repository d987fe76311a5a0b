package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallSearch is the experiment on the Go model at a few depths: fast enough for every run
// of the tests. The figures themselves come from `lhsim search`, not from here.
func smallSearch(t *testing.T) *SearchResult {
	t.Helper()
	cfg := DefaultSearch()
	cfg.Model = "go"
	cfg.Depths = []int{0, 1, 3, 8, 32, 160}
	res, err := RunSearch(cfg)
	require.NoError(t, err)
	return res
}

func TestSearchJSONShape(t *testing.T) {
	res := smallSearch(t)
	var buf bytes.Buffer
	require.NoError(t, res.WriteJSON(&buf))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	pm, ok := doc["per_message_ns"].(map[string]any)
	require.True(t, ok, "per_message_ns is an object")
	for _, k := range []string{"no_lhs", "lhs", "qsnet2"} {
		v, ok := pm[k].(float64)
		require.True(t, ok, "per_message_ns.%s is a number", k)
		require.Greater(t, v, 0.0)
	}
	for _, k := range []string{"speedup_lhs_vs_no_lhs", "speedup_lhs_vs_qsnet2"} {
		v, ok := doc[k].(float64)
		require.True(t, ok, "%s is a number", k)
		require.Greater(t, v, 1.0)
	}
	depths := doc["depths"].([]any)
	require.Len(t, depths, 6)
	series := doc["series_ns"].(map[string]any)
	for _, k := range []string{"no_lhs", "lhs", "qsnet2", "lhs_cold"} {
		require.Len(t, series[k].([]any), len(depths), "series_ns.%s has one point per depth", k)
	}
	require.Len(t, doc["ablation"].([]any), len(searchAblationOrder))
	for _, k := range []string{"memory_structure", "caching_prefetch"} {
		require.Contains(t, doc["factors"].(map[string]any), k)
	}
}

func TestSearchCurvesOrdered(t *testing.T) {
	res := smallSearch(t)
	for k, s := range res.Series {
		for i := 1; i < len(s); i++ {
			require.Greater(t, s[i], s[i-1], "%s grows with depth", k)
		}
	}
	pm := res.PerMessageNs
	// Each ablation step removes one cost: the order must hold whatever the parameters.
	order := []string{CurveNoLHS, CurveLHSUncached, CurveLHSColdNoPrefeth, CurveLHSColdAdjacent, CurveLHSCold, CurveLHS}
	for i := 1; i < len(order); i++ {
		require.Greater(t, pm[order[i-1]], pm[order[i]], "%s slower than %s", order[i-1], order[i])
	}
	require.InDelta(t, float64(DefaultSearch().QsNet.DRAMLatencyPs)/1000, pm[CurveQsNet2], 1e-9, "QsNET-II is one DRAM access per record by construction")
	require.InDelta(t, pm[CurveNoLHS]/pm[CurveLHS], res.SpeedupLHSvsNoLHS, 1e-9)
	require.Greater(t, res.VL.DeviceCyclesEach, 30.0)
	require.Greater(t, res.VL.HostVisibleNsEach, res.VL.DeviceNsEach)
}

func TestSearchDeterministic(t *testing.T) {
	a, b := smallSearch(t), smallSearch(t)
	var ja, jb bytes.Buffer
	require.NoError(t, a.WriteJSON(&ja))
	require.NoError(t, b.WriteJSON(&jb))
	require.Equal(t, ja.String(), jb.String())
}

func TestSearchTableAndPlot(t *testing.T) {
	res := smallSearch(t)
	var buf bytes.Buffer
	require.NoError(t, res.WriteTable(&buf))
	require.Contains(t, buf.String(), "QsNET-II")
	require.Contains(t, buf.String(), "memory structure")
	dir := t.TempDir()
	for _, name := range []string{"fig6.svg", "fig6.png"} {
		f := filepath.Join(dir, name)
		require.NoError(t, res.WritePlot(f))
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000))
	}
	require.Error(t, res.WritePlot(filepath.Join(dir, "fig6.pdf")))
}

func TestSearchRTLDepthLimit(t *testing.T) {
	cfg := DefaultSearch()
	cfg.Depths = []int{2000}
	_, err := RunSearch(cfg)
	require.ErrorContains(t, err, "--model go")
}

func TestLogDepths(t *testing.T) {
	require.Equal(t, []int{0, 1, 2, 3, 4, 6, 8, 10}, LogDepths(10))
	require.Equal(t, []int{0}, LogDepths(0))
	d := LogDepths(1023)
	require.Equal(t, 1023, d[len(d)-1])
	require.Len(t, d, 21)
}
