package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// installed lays out lhsim as make leaves it, outside the source tree: PREFIX/build/bin/lhsim
// (this test binary, which runs lhsim's main when LHSIM_ARGS is set), with the files named
// in files (relative to build/) copied from the tree's build/. It returns the binary.
func installed(t *testing.T, files ...string) string {
	t.Helper()
	build := filepath.Join(t.TempDir(), "build")
	bin := filepath.Join(build, "bin", "lhsim")
	copyFile(t, os.Args[0], bin)
	for _, f := range files {
		copyFile(t, filepath.Join("../../build", f), filepath.Join(build, f))
	}
	return bin
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.WriteFile(to, b, 0o755))
}

// runFrom runs the lhsim binary bin in the folder dir with env added.
func runFrom(t *testing.T, bin, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, strings.TrimSuffix(strings.TrimSpace(o.String()), "PASS"), e.String()
}

// lhsim goal record run from outside the source tree finds the tracer beside the binary, as
// make installs them (build/bin/lhsim and build/tracer/MPI/liblhtrace.so); with none, it says
// in one line, exit 1, which paths it tried and the make target that builds it (issue 37,
// class 5: it looked only under the working folder's build/).
func TestGoalRecordOutsideTheTree(t *testing.T) {
	mpiTools(t, "openmpi", false)
	prog := filepath.Join(t.TempDir(), "ring")
	compile(t, "mpicc.openmpi", "../../tracer/testdata/ring.c", prog)
	elsewhere := t.TempDir()
	bin := installed(t, "tracer/openmpi/liblhtrace.so")
	code, out, stderr := runFrom(t, bin, elsewhere, nil, "goal", "record", "--out", "ring.trace", "--", "mpirun.openmpi", "-np", "2", prog)
	require.Equal(t, 0, code, "%s\n%s", out, stderr)
	require.Contains(t, out, "lhsim goal record: ring.trace: 2 ranks")
	require.DirExists(t, filepath.Join(elsewhere, "ring.trace"))

	bare := installed(t)
	code, _, stderr = runFrom(t, bare, elsewhere, nil, "goal", "record", "--out", "again.trace", "--", "mpirun.openmpi", "-np", "2", prog)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	require.Contains(t, stderr, "lhsim goal record: the tracer for openmpi is not built: tried "+filepath.Join(filepath.Dir(filepath.Dir(bare)), "tracer/openmpi/liblhtrace.so"))
	require.Contains(t, stderr, filepath.Join(elsewhere, "build/tracer/openmpi/liblhtrace.so"))
	require.Contains(t, stderr, "build it with make tracer")
}

// lhsim bench (whose rtl-plugin rows run the RTL in the plugin process) outside the source
// tree takes the plugin beside the binary (make plugin's build/bin/lhsim-plugin); with none,
// one line, exit 1, naming the path tried and make plugin.
func TestBenchOutsideTheTree(t *testing.T) {
	if _, err := os.Stat("../../build/bin/lhsim-plugin"); err != nil {
		t.Skip("no plugin binary: make plugin")
	}
	elsewhere := t.TempDir()
	bench := []string{"bench", "--messages", "10", "--repeats", "1", "--json"}
	bin := installed(t, "bin/lhsim-plugin")
	code, out, stderr := runFrom(t, bin, elsewhere, []string{"LHSIM_PLUGIN="}, bench...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"plugin`)

	bare := installed(t)
	code, _, stderr = runFrom(t, bare, elsewhere, []string{"LHSIM_PLUGIN="}, bench...)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	require.Contains(t, stderr, "lhsim bench: plugin: no lhsim-plugin: tried "+filepath.Join(filepath.Dir(bare), "lhsim-plugin"))
	require.Contains(t, stderr, "build it with make plugin")
}
