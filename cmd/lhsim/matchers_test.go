package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/netsim/match"
	"github.com/stretchr/testify/require"
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
	for _, bad := range [][]string{{"matchers", "--matchers", "lhs2"}, {"matchers", "--matchers", "alpu:0"}, {"matchers", "--matchers", "bins:70000"},
		{"goal", "--schedule", "x.goal", "--matcher", "alpu:2000"}, {"goal", "--schedule", "x.goal", "--matcher", "hash"}} {
		code, _, stderr := run(t, nil, bad...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
		require.Contains(t, stderr, match.Usage, "%v", bad)
	}
}
