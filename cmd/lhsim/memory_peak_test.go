package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment/goal"
)

// peakRSS runs lhsim args in a process of its own and returns its peak resident set (bytes).
func peakRSS(t *testing.T, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "lhsim %v: %s", args, out)
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// The estimate the memory limit compares (MatchersConfig.JobMemory) counts what a run of
// lhsim matchers really takes, bins:65536 among them (its bins are made as entries arrive;
// issue 37, class 3): at 256 ranks it is at least the measured peak and at most three times
// it (measured: list 183 MB, bins:65536 183 MB at 256 ranks; 1,541 MB and 1,602 MB at 1,024).
func TestMatchersEstimateCountsThePeak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const ranks = 256
	for _, m := range []string{"list", "bins:65536"} {
		peak := peakRSS(t, "matchers", "--matchers", m, "--ranks", "256", "--jobs", "1")
		est := goal.MatchersConfig{Ranks: ranks, Size: 8, Workloads: goal.MatchersWorkloads, Matchers: []string{m}}.JobMemory()
		t.Logf("%s at %d ranks: peak %d MB resident, estimate %d MB", m, ranks, peak>>20, est>>20)
		require.GreaterOrEqual(t, est, peak, "%s: the estimate is under the peak", m)
		require.LessOrEqual(t, est, 3*peak, "%s: the estimate is more than three times the peak", m)
	}
}
