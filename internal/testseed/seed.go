// Package testseed gives the randomized tests their seeds and says how to replay one.
package testseed

// testseed gives the randomized tests their seeds and says how to replay one: every
// package's randomized tests take SEED=n the same way.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// List is the seeds a randomized test runs: 1..n, or only SEED when the environment sets it.
// A SEED that is not a number fails the test rather than run the fixed seeds instead.
func List(t testing.TB, n int) []uint64 {
	t.Helper()
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("SEED=%q: want a number", s)
		}
		return []uint64{v}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// One is the seed of a test that draws all its trials from one generator: def, or SEED when
// the environment sets it (a SEED that is not a number fails the test, as List).
func One(t testing.TB, def uint64) uint64 {
	t.Helper()
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("SEED=%q: want a number", s)
		}
		return v
	}
	return def
}

// Replay is the message a failing seed prints: the command that runs t's top-level test
// again with that seed alone. pkg is the package's path from the module root
// ("./netsim/ether").
func Replay(t testing.TB, seed uint64, pkg string) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("seed %d: replay with SEED=%d go test %s -run '^%s$'", seed, seed, pkg, name)
}

// ReplayOnFailure has t log, when it ends failed, the command that replays seed (Replay).
func ReplayOnFailure(t testing.TB, seed uint64, pkg string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(Replay(t, seed, pkg))
		}
	})
}
