package rx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/gosim"
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
	order := []string{CurveNoLHS, CurveLHSUncached, CurveLHSColdNoPrefeth, CurveLHSInOrder, CurveLHS}
	for i := 1; i < len(order); i++ {
		require.Greater(t, pm[order[i-1]], pm[order[i]], "%s slower than %s", order[i-1], order[i])
	}
	// A first search, prefetched or not, cannot beat the memory bus (one 64-byte line per
	// entry); on the out-of-order core four misses in flight already fill it, so the
	// prefetchers change it by little either way.
	bus := float64(DefaultSearch().CPU.LineTransferPs) / 1000
	for _, k := range []string{CurveLHSColdNoPrefeth, CurveLHSColdAdjacent, CurveLHSCold} {
		require.GreaterOrEqual(t, pm[k], 0.99*bus, k)
		require.Less(t, pm[k], pm[CurveLHSUncached], k)
		require.Greater(t, pm[k], pm[CurveLHSInOrder], k)
	}
	require.Greater(t, res.VL.DeviceCyclesEach, 30.0)
	require.Greater(t, res.VL.HostVisibleNsEach, res.VL.DeviceNsEach)
	// The optimized loop runs fewer instructions: the curves it bounds are faster with it.
	require.Len(t, res.Loops, len(SearchLoops))
	o0, o2 := res.Loops[0], res.Loops[1]
	require.Equal(t, SearchLoopO0.Name, o0.Loop, "the headline's loop comes first")
	require.Less(t, o2.LHSNs, o0.LHSNs)
	require.Less(t, o2.LHSColdNs, o0.LHSColdNs)
	// Without LHS the loop's instructions hide under the window line's miss, which the next
	// message's flush waits for: no faster with fewer instructions, and never slower.
	require.LessOrEqual(t, o2.NoLHSNs, o0.NoLHSNs)
	require.Equal(t, pm[CurveLHS], o0.LHSNs)
}

// TestSearchJSONSources: every number of `lhsim search --json` has a source, found at the same
// key in the sources object (or at a key above it), and it is one of the three.
func TestSearchJSONSources(t *testing.T) {
	res := smallSearch(t)
	var buf bytes.Buffer
	require.NoError(t, res.WriteJSON(&buf))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	sources, ok := doc["sources"].(map[string]any)
	require.True(t, ok, "sources is an object")
	numbers := 0
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(append(path, k), x)
			}
		case []any:
			for i, x := range v {
				walk(append(path, fmt.Sprint(i)), x)
			}
		case float64:
			numbers++
			// The source is at the same path, or a string at a key above it. A list of rows
			// has a list of rows of sources; a series (a list of numbers) shares one source.
			var src any = sources
			for _, k := range path {
				switch m := src.(type) {
				case map[string]any:
					src = m[k]
				case []any:
					i, err := strconv.Atoi(k)
					require.NoError(t, err)
					require.Less(t, i, len(m), "sources of %v", path)
					src = m[i]
				}
			}
			s, ok := src.(string)
			require.True(t, ok, "no source for %v", path)
			require.Contains(t, []string{SourceSimulated, SourceInput, SourceDerived}, s, "source of %v", path)
		}
	}
	for k, v := range doc {
		switch k {
		case "sources", "depths", "seed", "native":
			continue // the run's settings, not figures; native has its own note
		}
		walk([]string{k}, v)
	}
	require.Greater(t, numbers, 50)
	curves := sources["per_message_ns"].(map[string]any)
	require.Equal(t, SourceInput, curves[CurveQsNet2], "QsNET-II's slope is the paper's figure, put in")
	require.Equal(t, SourceSimulated, curves[CurveLHS])
	require.Equal(t, SourceSimulated, curves[CurveNoLHS])
	require.Equal(t, SourceDerived, sources["speedup_lhs_vs_no_lhs"])
}

// The headline figures, from the paper's depths (0..1023) on every device model: the
// Verilated RTL, the golden model and both in lockstep give the same search times bit for bit,
// and the slopes are docs/search.md's. A change to the RTL, the driver, the MPI layer or the
// host model that moves one of them by half a percent fails here (a 16-byte VL one device
// cycle longer moves no LHS by 1.7 %; one instruction more per entry moves LHS by 2 %).
func TestSearchHeadlineOnEveryModel(t *testing.T) {
	results := map[string]*SearchResult{}
	for _, model := range []string{"rtl", "go", "lockstep"} {
		cfg := DefaultSearch()
		cfg.Model = device.Model(model)
		res, err := RunSearch(cfg)
		require.NoError(t, err, model)
		results[model] = res
	}
	for _, model := range []string{"go", "lockstep"} {
		require.Equal(t, results["rtl"].Series, results[model].Series, "%s against rtl", model)
		require.Equal(t, results["rtl"].VL, results[model].VL, "%s against rtl", model)
		require.Equal(t, results["rtl"].Loops, results[model].Loops, "%s against rtl", model)
	}
	r := results["rtl"]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"no LHS", r.PerMessageNs[CurveNoLHS], 579.22},
		{"LHS repeated", r.PerMessageNs[CurveLHS], 13.85},
		{"LHS repeated, in-order core", r.PerMessageNs[CurveLHSInOrder], 18.90},
		{"LHS first search", r.PerMessageNs[CurveLHSCold], 40.00},
		{"no LHS, -O2 loop", r.Loops[1].NoLHSNs, 570.38},
		{"LHS repeated, -O2 loop", r.Loops[1].LHSNs, 5.00},
		{"16-byte VL, device cycles", r.VL.DeviceCyclesEach, 35},
		{"16-byte VL at the host, ns", r.VL.HostVisibleNsEach, 565},
	} {
		require.InEpsilon(t, c.want, c.got, 0.005, c.name)
	}
	// The paper's Figure 6 (5.1.3) and the bands: both points within 15 %, the
	// speedup within 15 % of 43x, LHS against QsNET-II (an input) within 15 % of 6.8x.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"no LHS against the paper's 634 ns", r.PerMessageNs[CurveNoLHS], 634},
		{"LHS against the paper's 14.8 ns", r.PerMessageNs[CurveLHS], 14.8},
		{"speedup against the paper's 43x", r.SpeedupLHSvsNoLHS, 43},
		{"LHS vs QsNET-II against the paper's 6.8x", r.SpeedupLHSvsQsNet2, 6.8},
	} {
		require.InEpsilon(t, c.want, c.got, 0.15, c.name)
	}
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

// The 16-byte VL is one figure everywhere the repository states it: 35 device cycles from the
// VEC_CMD write to DONE in VEC_STATUS (350 ns at 100 MHz), as TestVectorLoadLatency measures
// and TestSearchHeadlineOnEveryModel pins.
func TestVLFigureOneEverywhere(t *testing.T) {
	cycles := regexp.MustCompile(`16-byte VL[^.]*?\b(\d+(?:\.\d)?) (?:device )?cycles(?: \((\d+) ns\))?`)
	found := 0
	for _, f := range []string{"../../README.md", "../../docs/design.md", "../../docs/search.md", "../../gosim/sodimm.go", "../../testbench/vector_test.go"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(b)), " ") // sentences run across lines
		text = strings.ReplaceAll(text, "// ", "")
		for _, m := range cycles.FindAllStringSubmatch(text, -1) {
			found++
			t.Logf("%s: %s", f, m[0])
			require.Contains(t, []string{"35", "35.0"}, m[1], "%s: %q", f, m[0])
			if m[2] != "" {
				require.Equal(t, "350", m[2], "%s: %q", f, m[0])
			}
		}
	}
	require.GreaterOrEqual(t, found, 5, "the VL figure is stated in the README, design.md, search.md, sodimm.go and the test")
}

// The host reads the LH buffer through a 512 KiB region: a search deeper than its 8192
// entries is refused before any run (it used to fail mid-run, its target not found).
func TestSearchPlanRefusesMoreEntriesThanTheHostReads(t *testing.T) {
	cfg := DefaultSearch()
	cfg.Model = "go"
	cfg.MaxDepth = gosim.MaxEntries - 1
	_, entries, err := cfg.Plan()
	require.NoError(t, err)
	require.Equal(t, gosim.MaxEntries, entries)
	cfg.MaxDepth = gosim.MaxEntries
	_, _, err = cfg.Plan()
	require.ErrorContains(t, err, "depth 8192 needs 16384 LH entries; the host bus's LH region holds 8192")
	require.Error(t, gosim.ModelParams{Entries: 2 * gosim.MaxEntries, WinBytes: 4096}.Check())
}
