package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/match"
)

// lhsim matchers: JSON with a cell per workload and matcher; unknown matchers and sizes out of
// range exit 2 with the list of matchers; so does lhsim goal --matcher.
func TestMatchersCommand(t *testing.T) {
	code, js, stderr := run(t, nil, "matchers", "--ranks", "8", "--matchers", "list,alpu:64", "--workloads", "incast", "--json")
	require.Equal(t, 0, code, stderr)
	for _, k := range []string{`"matcher": "list"`, `"matcher": "alpu:64"`, `"xc2vp_slices"`, `"p99_ns"`, `"software_fallbacks"`} {
		require.Contains(t, js, k)
	}
	dir := t.TempDir()
	code, _, stderr = run(t, nil, "matchers", "--ranks", "8", "--matchers", "list,alpu:64", "--workloads", "incast,alltoall_late",
		"--plot", filepath.Join(dir, "q.svg"), "--plot-pareto", filepath.Join(dir, "p.svg"))
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"q.svg", "p.svg"} {
		svg, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Contains(t, string(svg), "alpu:64")
	}
	for _, bad := range [][]string{{"matchers", "--plot", "q.pdf"}, {"matchers", "--plot-pareto", "p.jpg"}, {"matchers", "--workloads", "bcast"}} {
		code, _, stderr := run(t, nil, bad...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
	// --matcher-rtl-nodes: the LHS receive path runs as RTL beside its model; a software
	// matcher has no RTL (exit 2, naming the ones that have).
	dir = t.TempDir()
	sched := filepath.Join(dir, "late.goal")
	code, _, stderr = run(t, nil, "goal", "gen", "alltoall_late", "--ranks", "8", "--out", sched)
	require.Equal(t, 0, code, stderr)
	code, out, stderr := run(t, nil, "goal", "--schedule", sched, "--matcher", "lhs", "--matcher-rtl-nodes", "0,3")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "matcher lhs (RTL on nodes 0,3)")
	code, _, stderr = run(t, nil, "goal", "--schedule", sched, "--matcher", "list", "--matcher-rtl-nodes", "0")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, match.RTLUsage)
	code, _, stderr = run(t, nil, "goal", "gen", "alltoall_late", "--ranks", "8", "--late-ns", "0")
	require.Equal(t, 2, code, stderr)
	for _, bad := range [][]string{{"matchers", "--matchers", "lhs2"}, {"matchers", "--matchers", "alpu:0"}, {"matchers", "--matchers", "bins:70000"},
		{"goal", "--schedule", "x.goal", "--matcher", "alpu:2000"}, {"goal", "--schedule", "x.goal", "--matcher", "hash"}} {
		code, _, stderr := run(t, nil, bad...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
		require.Contains(t, stderr, match.Usage, "%v", bad)
	}
}

// Seed 000 as the check, from the command line: lhsim matchers --workloads fig6 runs the list
// and lhs matchers on the LHS paper's micro-benchmark and gives, depth for depth and as
// slopes, the figures lhsim search gives for Fig. 6 (no LHS; LHS first and repeated search).
func TestMatchersFig6IsLhsimSearch(t *testing.T) {
	code, js, stderr := run(t, nil, "matchers", "--workloads", "fig6", "--matchers", "list,lhs,alpu:64", "--json")
	require.Equal(t, 0, code, stderr)
	var m struct {
		Cells []any `json:"cells"`
		Fig6  []struct {
			Matcher     string    `json:"matcher"`
			Depths      []int     `json:"depths"`
			First       []float64 `json:"first_ns"`
			Repeated    []float64 `json:"repeated_ns"`
			FirstPer    float64   `json:"first_ns_per_message"`
			RepeatedPer float64   `json:"repeated_ns_per_message"`
		} `json:"fig6"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	code, sjs, stderr := run(t, nil, "search", "--json")
	require.Equal(t, 0, code, stderr)
	var s struct {
		Depths []int                `json:"depths"`
		Per    map[string]float64   `json:"per_message_ns"`
		Series map[string][]float64 `json:"series_ns"`
	}
	require.NoError(t, json.Unmarshal([]byte(sjs), &s))
	require.Empty(t, m.Cells)
	require.Len(t, m.Fig6, 2, "alpu:64 has no set-up on the micro-benchmark")
	list, lhs := m.Fig6[0], m.Fig6[1]
	require.Equal(t, "list", list.Matcher)
	require.Equal(t, s.Depths, list.Depths)
	require.Equal(t, s.Series["no_lhs"], list.First)
	require.Equal(t, s.Series["lhs_cold"], lhs.First)
	require.Equal(t, s.Series["lhs"], lhs.Repeated)
	require.InDelta(t, s.Per["no_lhs"], list.FirstPer, 1e-9)
	require.InDelta(t, s.Per["lhs_cold"], lhs.FirstPer, 1e-9)
	require.InDelta(t, s.Per["lhs"], lhs.RepeatedPer, 1e-9)
	require.InDelta(t, 13.85, lhs.RepeatedPer, 0.005, "the README's Fig. 6 figure")
	code, _, stderr = run(t, nil, "matchers", "--workloads", "fig6", "--matchers", "bins:4")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "list and lhs")
}

// A --schedule that cannot be read is the input's mistake: one line, exit 2, before any run
// (with the cells of the workloads run at once too).
func TestMatchersBadSchedule(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.goal")
	require.NoError(t, os.WriteFile(bad, []byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 7 tag 0\n}\n"), 0o644))
	for _, jobs := range []string{"1", "2"} {
		for file, msg := range map[string]string{filepath.Join(t.TempDir(), "none.goal"): "no such file", bad: "line 6, column 18: rank 7"} {
			code, out, stderr := run(t, nil, "matchers", "--ranks", "16", "--workloads", "incast", "--schedule", file, "--jobs", jobs)
			require.Equal(t, 2, code, stderr)
			require.Empty(t, out)
			require.Regexp(t, `^lhsim matchers: [^\n]*`+msg+`[^\n]*\n$`, stderr)
		}
	}
}

// A study of a schedule file alone is of the file's ranks, not --ranks': its header says so,
// and --rtl-nodes is checked against them.
func TestMatchersScheduleAloneHasItsRanks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "three.goal")
	require.NoError(t, os.WriteFile(file, []byte("num_ranks 3\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\nrank 2 {\n}\n"), 0o644))
	code, out, stderr := run(t, nil, "matchers", "--workloads", "", "--schedule", file, "--matchers", "list", "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "matchers on the packet network, 3 ranks,")
	code, _, stderr = run(t, nil, "matchers", "--workloads", "", "--schedule", file, "--matchers", "lhs", "--rtl-nodes", "3")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--rtl-nodes: node 3: the workloads have ranks 0 to 2")
}

// A real program's schedule as a workload (PROGRAM.RANKS, checked in under traces/): its own
// table, the same with one job or two, JSON with its application figures; an unknown one, a
// depth plot without one, and RTL nodes past its ranks are the command line's mistakes.
func TestMatchersApplicationWorkloads(t *testing.T) {
	args := []string{"matchers", "--workloads", "lammps-melt-50steps.8", "--matchers", "list,alpu:64"}
	code, one, stderr := run(t, nil, append(args, "--jobs", "1")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, one, "matchers on application schedules")
	require.NotContains(t, one, "matchers on the packet network,")
	code, two, stderr := run(t, nil, append(args, "--jobs", "2")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, one, two)
	code, js, stderr := run(t, nil, append(args, "--json", "--jobs", "2")...)
	require.Equal(t, 0, code, stderr)
	for _, k := range []string{`"application"`, `"program": "lammps-melt-50steps"`, `"queue_depth"`, `"hardware_share": 1`} {
		require.Contains(t, js, k)
	}
	for bad, msg := range map[string][]string{
		"lammps-melt-50steps.9": {"--workloads", "lammps-melt-50steps.9"},
		"--plot-depth":          {"--workloads", "incast", "--plot-depth", filepath.Join(t.TempDir(), "d.svg")},
		"ranks 0 to 7":          {"--workloads", "lammps-melt-50steps.8", "--rtl-nodes", "8", "--matchers", "lhs"},
	} {
		code, out, stderr := run(t, nil, append([]string{"matchers"}, msg...)...)
		require.Equal(t, 2, code, stderr)
		require.Empty(t, out)
		require.Contains(t, stderr, bad)
	}
}
