package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// lhsim goal --timeline writes a file that parses and passes the format's checks, says on
// stderr what it wrote, keeps stdout's JSON clean; bad filters exit 2.
func TestGoalTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.json")
	code, out, stderr := run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4", "--timeline", f, "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "timeline "+f+": ")
	require.NotContains(t, out, "timeline")
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	evs, err := timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, false))
	code, _, stderr = run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--timeline", f, "--timeline-ranks", "1", "--timeline-window", "0.5:3")
	require.Equal(t, 0, code, stderr)
	for _, bad := range [][]string{
		{"--timeline", f, "--timeline-ranks", "3-1"},
		{"--timeline", f, "--timeline-window", "5:2"},
		{"--timeline", f, "--timeline-window", "x"},
		{"--timeline-ranks", "1"},
		{"--timeline", f, "--network", "loggp"},
		{"--timeline", dir},
	} {
		code, _, stderr = run(t, nil, append([]string{"goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}
