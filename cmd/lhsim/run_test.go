package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/session"
)

// TestLhsimProcess is lhsim itself when LHSIM_ARGS is set: other tests run the test binary
// as the command, in a process of its own.
func TestLhsimProcess(t *testing.T) {
	args := os.Getenv("LHSIM_ARGS")
	if args == "" {
		t.Skip("runs lhsim for other tests")
	}
	os.Args = append([]string{"lhsim"}, strings.Split(args, "\x1f")...)
	main()
}

// lhsim runs the command in a new process and returns its standard output.
func lhsim(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "lhsim %s:\n%s", strings.Join(args, " "), stderr.String())
	// The test binary adds its own verdict after lhsim's output.
	return strings.TrimSuffix(strings.TrimSpace(string(out)), "PASS")
}

// `lhsim run` stopped into a checkpoint in one process and resumed in another ends exactly
// as the uninterrupted run.
func TestRunCheckpointResume(t *testing.T) {
	run := []string{"run", "--model", "rtl", "--messages", "1500", "--seed", "5", "--json"}
	var want, got session.Result
	require.NoError(t, json.Unmarshal([]byte(lhsim(t, run...)), &want))
	require.EqualValues(t, 1500, want.Messages)

	path := filepath.Join(t.TempDir(), "run.ckpt")
	at := want.Cycles / 3
	lhsim(t, append(run, "--checkpoint-at", itoa(at), "--checkpoint", path)...)
	f, err := os.Stat(path)
	require.NoError(t, err)
	require.Positive(t, f.Size())

	require.NoError(t, json.Unmarshal([]byte(lhsim(t, "run", "--resume", path, "--json")), &got))
	require.GreaterOrEqual(t, got.ResumedAt, at)
	got.ResumedAt = 0
	require.Equal(t, want, got)
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
