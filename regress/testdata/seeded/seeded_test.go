// Package seeded is a stand-in randomized suite for the regress tests: seeds divisible by 3
// fail, seed 7 panics. For the Slurm tests of lhsim regress (cmd/lhsim/slurm_test.go):
// SEEDED_SLEEP makes every seed take that long, and SEEDED_KILL_PARENT=N makes seed N kill
// the process that runs it (an array task's lhsim: a node that dies mid-task).
package seeded

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestRandom(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	if d, err := time.ParseDuration(os.Getenv("SEEDED_SLEEP")); err == nil {
		time.Sleep(d)
	}
	if k, err := strconv.Atoi(os.Getenv("SEEDED_KILL_PARENT")); err == nil && k == seed {
		syscall.Kill(os.Getppid(), syscall.SIGKILL)
		os.Exit(3)
	}
	t.Run(strconv.Itoa(seed), func(t *testing.T) {
		if seed == 7 {
			panic("seed 7")
		}
		if seed%3 == 0 {
			t.Fatalf("seed %d fails", seed)
		}
	})
}

func TestOther(t *testing.T) { t.Fatal("not selected by -run Random") }
