package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A network too big for the process's real limit is refused with the estimate and that
// limit, exit 2, under each limit a process can have (issue 37, class 3): an address-space
// limit (ulimit -v, where it died with "fatal error: out of memory") and its cgroup's
// (memory.max, here a fake hierarchy through LHSIM_CGROUP_ROOT), as well as GOMEMLIMIT.
func TestMemoryLimitsKnown(t *testing.T) {
	fake := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(fake, "memory.max"), []byte("2147483648\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(fake, "memory"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fake, "memory", "memory.limit_in_bytes"), []byte("2147483648\n"), 0o644))
	args := []string{"barrier", "--topology", "torus:128x128x128", "--processes", "2"}
	for _, c := range []struct {
		name, ulimit string
		env          []string
		says         string
	}{
		{"ulimit -v 4 GiB", "4194304", nil, "(ulimit -v 4194304 KiB, less what is mapped)"},
		{"cgroup", "", []string{"LHSIM_CGROUP_ROOT=" + fake}, "and the limit is 2.0 GiB (cgroup memory."},
		{"GOMEMLIMIT", "", []string{"GOMEMLIMIT=3GiB"}, "and the limit is 3.0 GiB (GOMEMLIMIT)"},
	} {
		script := `exec "$0" "$@"`
		if c.ulimit != "" {
			script = "ulimit -v " + c.ulimit + " && " + script
		}
		cmd := exec.Command("sh", "-c", script, os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
		cmd.Env = append(append(os.Environ(), c.env...), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
		var e strings.Builder
		cmd.Stderr = &e
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%s: %s", c.name, e.String())
		require.Equal(t, 2, ee.ExitCode(), "%s: %s", c.name, e.String())
		require.Contains(t, firstLine(e.String()), "torus:128x128x128 does not fit in memory", c.name)
		require.Contains(t, firstLine(e.String()), c.says, c.name)
		require.NotContains(t, e.String(), "goroutine ", c.name)
	}
}

// --timeline-ranks naming a node the run does not have is refused by the run (before any
// work, no file), exit 2; it was taken, and the file had none of them (issue 37, class 4).
func TestTimelineRanksPastTheRun(t *testing.T) {
	dir := t.TempDir()
	goal, err := filepath.Abs("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"goal", "--schedule", goal, "--topology", "crossbar:4", "--timeline-ranks", "0-5"}, "timeline ranks: node 5 is past the run's 3 nodes (0 to 2)"},
		{[]string{"incast", "--topology", "crossbar:4", "--messages", "2", "--speed=false", "--timeline-ranks", "7"}, "timeline ranks: node 7 is past the run's 4 nodes (0 to 3)"},
		{[]string{"traffic", "--topology", "torus:4x4", "--warmup", "200", "--measure", "1000", "--load", "0.1", "--timeline-ranks", "16"}, "node 16 is past the run's 16 nodes"},
		{[]string{"barrier", "--topology", "crossbar:4", "--timeline-ranks", "4"}, "node 4 is past the run's 4 nodes"},
		{[]string{"alltoall", "--torus", "4x4x4", "--sizes", "8", "--timeline-ranks", "64"}, "node 64 is past the run's 64 nodes"},
	} {
		file := filepath.Join(dir, c.args[0]+".json")
		code, _, stderr := run(t, nil, append(c.args, "--timeline", file)...)
		require.Equal(t, 2, code, "%v: %s", c.args, stderr)
		require.Contains(t, firstLine(stderr), c.says, "%v", c.args)
		_, err := os.Stat(file)
		require.True(t, os.IsNotExist(err), "%v left %s", c.args, file)
	}
}
