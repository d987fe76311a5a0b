package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/gosim"
)

// Faults at the SO-DIMM port: read data delayed by random amounts (in order), m_mem_ready low
// for stretches of up to StallMax cycles, random busy cycles, and the wire's bytes past tkeep.
// The scoreboard stays exact: every byte where the LHS rule puts it, nothing lost, nothing
// jammed, the RTL and the golden model in agreement on every cycle.
func TestFaultInjectionSODIMM(t *testing.T) {
	forSeeds(t, 6, func(t *testing.T, seed uint64) {
		rng := gosim.NewRand(seed)
		board, cfg := randomSetup(rng, seed)
		board.WireNoise = true
		board.Memory.ReadJitter = 1 + rng.Intn(200)
		board.Memory.StallPercent = 1 + rng.Intn(3)
		board.Memory.StallMax = []int{50, 500, 3000}[rng.Intn(3)]
		t.Logf("seed %d: %+v %+v", seed, board, cfg)
		d := newDUT(t, board, cfg)
		scoreboard(t, d, rng, randomMessages(rng, 120, d.host.Config().SizePos, 3000), 20_000_000)
	})
}
