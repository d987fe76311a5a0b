package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lhsim goal --qstat PREFIX: LogGOPSim's six files (byte for byte the ones LogGOPSim wrote for
// the same schedule), refused when one would overwrite the schedule or has no directory, and
// none written for a run that leaves operations unmatched (as LogGOPSim writes none).
func TestGoalQStatCommand(t *testing.T) {
	const data = "../../netsim/goal/testdata/qstat/"
	dir := t.TempDir()
	prefix := filepath.Join(dir, "hand")
	code, _, stderr := run(t, nil, "goal", "--network", "loggp", "--stdsort", "--schedule", data+"hand.goal", "--qstat", prefix)
	require.Equal(t, 0, code, stderr)
	for _, suf := range []string{"rq-max", "uq-max", "rq-hit", "uq-hit", "rq-miss", "uq-miss"} {
		want, err := os.ReadFile(data + "hand-" + suf + ".data")
		require.NoError(t, err)
		got, err := os.ReadFile(prefix + "-" + suf + ".data")
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), suf)
	}

	sched := filepath.Join(dir, "s-rq-hit.data")
	b, err := os.ReadFile(data + "hand.goal")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sched, b, 0o644))
	code, _, stderr = run(t, nil, "goal", "--network", "loggp", "--schedule", sched, "--qstat", filepath.Join(dir, "s"))
	require.Equal(t, 2, code)
	require.Contains(t, strings.SplitN(stderr, "\n", 2)[0], "is the schedule")
	after, err := os.ReadFile(sched)
	require.NoError(t, err)
	require.Equal(t, b, after, "the schedule is untouched")
	link := filepath.Join(dir, "l-uq-max.data")
	require.NoError(t, os.Symlink(sched, link))
	code, _, stderr = run(t, nil, "goal", "--network", "loggp", "--schedule", sched, "--qstat", filepath.Join(dir, "l"))
	require.Equal(t, 2, code, "a file that is the schedule by another name")
	require.Contains(t, stderr, "is the schedule")

	code, _, stderr = run(t, nil, "goal", "--network", "loggp", "--schedule", sched, "--qstat", filepath.Join(dir, "no", "q"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "no directory")

	lone := filepath.Join(dir, "lone.goal")
	require.NoError(t, os.WriteFile(lone, []byte("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 4\n}\n"), 0o644))
	for _, nw := range []string{"loggp", "packet"} {
		code, _, stderr = run(t, nil, "goal", "--network", nw, "--schedule", lone, "--qstat", filepath.Join(dir, "u"+nw))
		require.Equal(t, 1, code, nw)
		require.Contains(t, stderr, "--qstat: no files written", nw)
		m, _ := filepath.Glob(filepath.Join(dir, "u"+nw+"*"))
		require.Empty(t, m, nw)
	}
	code, _, stderr = run(t, nil, "goal", "--schedule", data+"hand.goal", "--qstat", filepath.Join(dir, "pk"))
	require.Equal(t, 0, code, stderr)
	m, _ := filepath.Glob(filepath.Join(dir, "pk-*.data"))
	require.Len(t, m, 6, "the packet network writes them too")
}
