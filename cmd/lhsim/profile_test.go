package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --cpuprofile and --memprofile write profiles that go tool pprof reads, on any command
// (newFlags defines them for all); a file that cannot be created is a mistake on the
// command line, found before any work starts.
func TestProfileFlags(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: go tool pprof reads the profiles")
	}
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	code, out, stderr := run(t, nil, "barrier", "--topology", "torus:4x4x4", "--node-latency", "1.0", "--cpuprofile", cpu, "--memprofile", mem)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "torus:4x4x4, node latency 1.0 µs", "the command's own output is unchanged")
	for _, c := range []struct{ file, kind, has string }{
		{cpu, "Type: cpu", "Duration:"},
		// The heap profile holds the allocations the simulation made.
		{mem, "Type: alloc_space", "netsim"},
	} {
		top, err := exec.Command(goTool, "tool", "pprof", "-top", c.file).CombinedOutput()
		require.NoError(t, err, "go tool pprof -top %s: %s", c.file, top)
		require.Contains(t, string(top), c.kind, c.file)
		require.Contains(t, string(top), c.has, c.file)
	}
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		code, _, stderr = run(t, nil, "demo", flag, filepath.Join(dir, "no/such/dir/p.prof"))
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "lhsim demo: "+flag+": ", stderr)
	}
}
