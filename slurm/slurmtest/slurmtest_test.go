package slurmtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRequireHelper is Require in a process of its own (see TestRequireWithoutSlurm).
func TestRequireHelper(t *testing.T) {
	if os.Getenv("SLURMTEST_HELPER") == "" {
		t.Skip("run by TestRequireWithoutSlurm")
	}
	Require(t)
}

// With no Slurm client on PATH, a test that needs Slurm is skipped with the reason in plain
// go test, and fails when RequiredEnv says Slurm must be there (make test-slurm).
func TestRequireWithoutSlurm(t *testing.T) {
	for _, required := range []bool{false, true} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequireHelper$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "PATH=/nonexistent", "SLURMTEST_HELPER=1", RequiredEnv+"=")
		if required {
			cmd.Env = append(cmd.Env, RequiredEnv+"=1")
		}
		out, err := cmd.CombinedOutput()
		if required {
			require.Error(t, err, "%s", out)
			require.Contains(t, string(out), "is set but no Slurm answers (no scontrol on PATH)")
		} else {
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "--- SKIP: TestRequireHelper")
			require.True(t, strings.Contains(string(out), "make test-slurm"), "%s", out)
		}
	}
}
