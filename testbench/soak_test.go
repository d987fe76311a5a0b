package testbench

import (
	"os"
	"strconv"
	"testing"

	"github.com/lhsim/lhsim/gosim"
)

// TestSoak pushes SOAK_MESSAGES (default 1,000,000) random messages through the RTL in
// batches, every one checked by the scoreboard, with the golden model in lockstep unless
// LHSIM_MODEL says otherwise. Run it with `make soak`; it is skipped unless SOAK=1.
func TestSoak(t *testing.T) {
	if os.Getenv("SOAK") == "" {
		t.Skip("set SOAK=1 (make soak) to run the million-message soak")
	}
	total := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SOAK_MESSAGES")); err == nil && v > 0 {
		total = v
	}
	const batch = 5000
	for _, seed := range seeds(1)[:1] {
		rng := gosim.NewRand(seed)
		board, cfg := randomSetup(rng, seed)
		t.Logf("seed %d: %+v %+v", seed, board, cfg)
		d := newDUT(t, board, cfg)
		for done := 0; done < total; done += batch {
			scoreboard(t, d, rng, randomMessages(rng, min(batch, total-done), d.host.Config().SizePos, 2000), 50_000_000)
			if t.Failed() {
				t.Fatal(replay(t, seed))
			}
			if (done/batch)%20 == 0 {
				t.Logf("%d messages checked, cycle %d", done+batch, d.dev.Cycle())
			}
		}
		t.Logf("%d messages, %d cycles, zero mismatches", total, d.dev.Cycle())
	}
}
