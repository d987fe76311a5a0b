package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runIn is run with the working directory dir.
func runIn(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, strings.TrimSuffix(strings.TrimSpace(o.String()), "PASS"), e.String()
}

// The binary outside the source tree (issue 37, class 5): what a command reads from the
// tree travels with it (the checked-in Yosys summary is embedded), and only the commands
// that build from the RTL sources need the tree, saying so in one line.
func TestOutsideTheSourceTree(t *testing.T) {
	dir := t.TempDir()
	// matchers takes the area of each matcher from the checked-in Yosys reports.
	code, out, stderr := runIn(t, dir, nil, "matchers", "--ranks", "8", "--workloads", "allreduce_recdoub", "--matchers", "list,alpu:64", "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"xc2vp_slices"`)
	require.NotContains(t, out, `"xc2vp_slices": 0,`+"\n"+`      "xc2vp_luts": 0`, "alpu:64 has an area")
	// area --cached prints Table 1 from the same reports.
	code, out, stderr = runIn(t, dir, nil, "area", "-cached")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "built into lhsim")
	require.Contains(t, out, "lhs_top")
	for _, args := range [][]string{{"area"}, {"formal"}, {"regress", "--seeds", "1"}} {
		code, _, stderr = runIn(t, dir, nil, args...)
		require.Equal(t, 1, code, "lhsim %v: %s", args, stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "lhsim %v: one line: %s", args, stderr)
		require.Contains(t, stderr, "lhsim "+args[0]+": needs the lhsim source tree (it builds from rtl/): run it inside a checkout", "lhsim %v", args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "a command left something in the working directory")
}
