package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// run runs lhsim in a process of its own and returns its exit status and output.
func run(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
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

// Help is asked for in every way users try, and answers on stdout with status 0.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "demo"}, {"demo", "-h"}, {"run", "--help"}, {"search", "-h"}, {"area", "-h"}} {
		code, out, _ := run(t, nil, args...)
		require.Equal(t, 0, code, "lhsim %v", args)
		require.Contains(t, out, "usage: lhsim", "lhsim %v", args)
	}
}

// A mistake on the command line exits 2 with one line naming it and the command's usage,
// before any work starts.
func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		args []string
		env  []string
		says string
	}{
		{[]string{"nosuch"}, nil, `unknown command "nosuch"`},
		{[]string{"demo", "--nosuch"}, nil, "flag provided but not defined: -nosuch"},
		{[]string{"run", "foo"}, nil, `unexpected argument "foo"`},
		{[]string{"demo", "--model", "verilog"}, nil, `--model: unknown model "verilog"`},
		{[]string{"demo", "--bridge", "tcp"}, nil, `--bridge: unknown bridge "tcp"`},
		{[]string{"demo"}, []string{"LHSIM_BRIDGE=tcp"}, `LHSIM_BRIDGE="tcp"`},
		{[]string{"demo", "--entries", "100", "--model", "go"}, nil, "Entries must be a power of two"},
		{[]string{"demo", "--entries", "64"}, nil, "needs --model go"},
		{[]string{"demo", "--split-pos", "20"}, nil, "--split-pos 20: want 16, 32 or 48"},
		{[]string{"search", "--size-pos", "5"}, nil, "--size-pos 5: want 0, 4, 8 or 12"},
		{[]string{"run", "--bridge", "plugin"}, nil, "a run keeps its device in this process"},
		{[]string{"regress", "--jobs", "-3"}, nil, "--jobs must be positive"},
		{[]string{"bench", "--repeats", "0"}, nil, "--repeats must be at least 1"},
		{[]string{"demo", "--out", "/nonexistent/dir/x.json"}, nil, "--out: open /nonexistent/dir/x.json"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.env, c.args...)
		require.Equal(t, 2, code, "lhsim %v: %s", c.args, stderr)
		require.Contains(t, stderr, c.says, "lhsim %v", c.args)
		if c.args[0] != "nosuch" {
			require.Contains(t, stderr, "usage: lhsim "+c.args[0], "lhsim %v", c.args)
		}
	}
}

// --json prints JSON on stdout on every command that reports a result, and --out writes the
// same JSON to a file beside the table.
func TestJSONAndOut(t *testing.T) {
	file := t.TempDir() + "/demo.json"
	code, table, _ := run(t, nil, "demo", "--model", "go", "--out", file)
	require.Equal(t, 0, code)
	require.Contains(t, table, "LH entry 0: whole")
	code, js, _ := run(t, nil, "demo", "--model", "go", "--json")
	require.Equal(t, 0, code)
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	require.JSONEq(t, js, string(saved))
	require.Contains(t, js, `"model": "go"`)
}

// --size-pos moves the size field the demo writes and the splitter reads: the same outcome.
func TestDemoSizePos(t *testing.T) {
	for _, pos := range []string{"0", "4", "8"} {
		code, out, stderr := run(t, nil, "demo", "--model", "go", "--size-pos", pos, "--split-pos", "32")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, out, "LH entry 3: 32-byte head; 25-byte tail in SO-DIMM", "--size-pos %s", pos)
		require.NotContains(t, out, "DIFFERS", "--size-pos %s", pos)
	}
}

// lhsim barrier prints the table, and JSON rows with the documented keys; bad lists exit 2.
func TestBarrierCommand(t *testing.T) {
	code, out, stderr := run(t, nil, "barrier", "--topology", "crossbar:8", "--node-latency", "1.0", "--processes", "2,4,8")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "crossbar:8, node latency 1.0 µs")
	code, js, stderr := run(t, nil, "barrier", "--topology", "crossbar:8", "--node-latency", "1.0", "--processes", "4", "--algorithm", "ring", "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, js, `"algorithm": "ring"`)
	require.Contains(t, js, `"model_us"`)
	for _, bad := range [][]string{{"--algorithm", "tree"}, {"--processes", "1"}, {"--node-latency", "-1"}, {"--plot", "b.txt"}} {
		code, _, stderr := run(t, nil, append([]string{"barrier"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}
