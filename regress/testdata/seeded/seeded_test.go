// Package seeded is a stand-in randomized suite for the regress tests: seeds divisible by 3
// fail, seed 7 panics.
package seeded

import (
	"os"
	"strconv"
	"testing"
)

func TestRandom(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
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
