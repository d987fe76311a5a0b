// Package slurmtest gives tests a real Slurm to run against, or says plainly that there is none.
package slurmtest

// slurmtest gives tests a real Slurm to run against, or says plainly that there is
// none: a test that needs Slurm is skipped with the reason in plain `go test`, and fails in
// `make test-slurm`, which sets RequiredEnv after starting a one-node Slurm
// (scripts/slurm-local.sh), so that the target that claims to test Slurm never passes
// without one.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// RequiredEnv, when set, turns a missing Slurm from a skip into a failure.
const RequiredEnv = "REQUIRE_SLURM"

// Up reports whether a Slurm controller answers here, and if not, why.
func Up() error {
	if _, err := exec.LookPath("scontrol"); err != nil {
		return fmt.Errorf("no scontrol on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scontrol", "ping").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is UP") {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("scontrol ping: %s", first)
	}
	return nil
}

// Require skips t when no Slurm answers, or fails it when RequiredEnv is set.
func Require(t testing.TB) {
	t.Helper()
	err := Up()
	if err == nil {
		return
	}
	if os.Getenv(RequiredEnv) != "" {
		t.Fatalf("%s is set but no Slurm answers (%v): scripts/slurm-local.sh start brings up a one-node Slurm", RequiredEnv, err)
	}
	t.Skipf("no Slurm answers here (%v): `make test-slurm` starts a one-node Slurm (scripts/slurm-local.sh) and runs this test", err)
}
