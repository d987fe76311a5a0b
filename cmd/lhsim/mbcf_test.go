package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lhsim mbcf: mistakes on its command line exit 2 naming the flag, before any work.
func TestMBCFUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--network", "fddi"}, `--network: mbcf: unknown network "fddi"`},
		{[]string{"--network", ","}, "--network: name at least one network"},
		{[]string{"--sizes", "4,0"}, "--sizes 4,0: 0: want 1 to 1452"},
		{[]string{"--sizes", "4,x"}, "--sizes 4,x: x: not a whole number"},
		{[]string{"--sizes", "1453"}, "--sizes 1453: want 1 to 1452"},
		{[]string{"--bandwidth-sizes", "1457"}, "--bandwidth-sizes 1457: want 1 to 1456"},
		{[]string{"--iterations", "0"}, "--iterations 0: want 1 to 1000000"},
		{[]string{"--writes", "30"}, "--writes 30, --group 16: want a whole number of groups"},
		{[]string{"--groups-in-flight", "0"}, "--groups-in-flight 0: want 1 to 64"},
		{[]string{"--timer", "-1"}, "--timer -1: negative"},
		{[]string{"--tx-ring", "-1"}, "--tx-ring -1: want 0 to 256"},
		{[]string{"--tx-ring", "257"}, "--tx-ring 257: want 0 to 256"},
		{[]string{"--drop", "1"}, "drop rate 1: want 0 <= rate < 1"},
		{[]string{"--reorder", "-0.5"}, "--reorder -0.5: want 0 to 1"},
		{[]string{"--plot", "x.pdf"}, `--plot: plot file "x.pdf": want .svg or .png`},
		{[]string{"--out", "/nonexistent/dir/x.json"}, "--out: open /nonexistent/dir/x.json"},
	} {
		code, _, stderr := run(t, nil, append([]string{"mbcf"}, c.args...)...)
		require.Equal(t, 2, code, "lhsim mbcf %v", c.args)
		require.Contains(t, stderr, c.says, "lhsim mbcf %v", c.args)
		if !pathCase.MatchString(c.says) { // a path that cannot be used: one line (cli.CheckPaths)
			require.Contains(t, stderr, "usage: lhsim mbcf")
		}
	}
}

// --json prints the JSON, --out writes the same, --plot draws.
func TestMBCFCommand(t *testing.T) {
	dir := t.TempDir()
	outFile, plotFile := filepath.Join(dir, "m.json"), filepath.Join(dir, "m.svg")
	code, out, stderr := run(t, nil, "mbcf", "--network", "100basetx", "--iterations", "1", "--writes", "32", "--json", "--out", outFile, "--plot", plotFile)
	require.Equal(t, 0, code, stderr)
	var got map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.ElementsMatch(t, []string{"rtt_us", "send_overhead_us", "peak_mb_s"}, keys(got))
	require.Contains(t, got["rtt_us"], "100basetx")
	require.NotContains(t, got["rtt_us"], "10baset")
	written, err := os.ReadFile(outFile)
	require.NoError(t, err)
	require.JSONEq(t, out, string(written))
	st, err := os.Stat(plotFile)
	require.NoError(t, err)
	require.Positive(t, st.Size())

	code, out, stderr = run(t, nil, "mbcf", "-h")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.HasPrefix(out, "usage: lhsim mbcf"))
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
