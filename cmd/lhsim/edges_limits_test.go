package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The edges of memory (issue 37, class 3; make edges): every command that sizes a run by
// its estimate, under every limit a process can have: an address-space limit (ulimit -v),
// its cgroup's (v2 memory.max and v1 memory.limit_in_bytes, fake hierarchies through
// LHSIM_CGROUP_ROOT) and GOMEMLIMIT. A large run is refused before any work, exit 2, one
// line naming the limit that binds; a small one runs (exit 0).
func TestEdgesLimits(t *testing.T) {
	if os.Getenv("LHSIM_EDGES") == "" {
		t.Skip("make edges runs it (LHSIM_EDGES=1)")
	}
	var tally edgeTally
	tally.report(t, "TestEdgesLimits")
	outside := t.TempDir()
	const twoGiB = "2147483648\n"
	v2, v1 := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(v2, "memory.max"), []byte(twoGiB), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(v1, "memory"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(v1, "memory", "memory.limit_in_bytes"), []byte(twoGiB), 0o644))
	limits := []struct {
		name, shell string
		env         []string
		says        string
	}{
		{"ulimit -v", "ulimit -v 4194304", nil, "(ulimit -v 4194304 KiB, less what is mapped)"},
		{"cgroup v2", "", []string{"LHSIM_CGROUP_ROOT=" + v2}, "(cgroup memory.max " + v2},
		{"cgroup v1", "", []string{"LHSIM_CGROUP_ROOT=" + v1}, "(cgroup memory.limit_in_bytes " + v1},
		{"GOMEMLIMIT", "", []string{"GOMEMLIMIT=3GiB"}, "(GOMEMLIMIT)"},
	}
	small := map[string][]string{}
	for _, b := range edgeBases(t) {
		small[strings.Join(b.cmd, " ")] = b.base
	}
	goalFile, err := filepath.Abs("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	for _, c := range []struct {
		cmd   string
		large []string
	}{
		{"barrier", []string{"--topology", "torus:128x128x128", "--processes", "2"}},
		{"incast", []string{"--topology", "torus:128x128x128"}},
		{"traffic", []string{"--topology", "torus:128x128x128"}},
		{"alltoall", []string{"--torus", "128x128x128"}},
		{"goal", []string{"--schedule", goalFile, "--topology", "fattree:4x10"}},
		{"bench-net", []string{"--topologies", "torus:128x128x128"}},
		{"matchers", []string{"--ranks", "1024", "--matchers", "bins:65536"}},
	} {
		smallArgs := small[c.cmd]
		if c.cmd == "matchers" {
			smallArgs = []string{"--ranks", "16", "--workloads", "incast", "--matchers", "bins:65536", "--json"}
		}
		require.NotNil(t, smallArgs, c.cmd)
		for _, l := range limits {
			args := append([]string{c.cmd}, c.large...)
			code, _, stderr := edgeRun(t, &tally, outside, l.shell, l.env, args)
			require.Equal(t, 2, code, "%s: lhsim %v: %s", l.name, args, stderr)
			line := firstLine(stderr)
			require.True(t, strings.HasPrefix(line, "lhsim "+c.cmd+": "), "%s: %v: %s", l.name, args, line)
			require.Contains(t, line, "does not fit in memory", "%s: %v", l.name, args)
			require.Contains(t, line, l.says, "%s: %v: the limit that binds is not named", l.name, args)
			require.NotContains(t, stderr, "goroutine ", "%s: %v", l.name, args)
			if !strings.Contains(stderr, "\nusage: ") {
				require.Equal(t, 1, strings.Count(stderr, "\n"), "%s: %v: one line: %s", l.name, args, stderr)
			}
			args = append([]string{c.cmd}, smallArgs...)
			code, _, stderr = edgeRun(t, &tally, outside, l.shell, l.env, args)
			require.Equal(t, 0, code, "%s: a small run refused: lhsim %v: %s", l.name, args, stderr)
		}
	}
}
