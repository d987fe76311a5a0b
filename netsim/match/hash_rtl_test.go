package match

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The Go model and the Verilated rtl/hash_match.v, in both its builds (1,024 entries in 2
// banks with a one-cycle read; 16 in 4 banks with a two-cycle read), take the same random
// inserts and searches (wildcards on either side, two contexts, the matcher filled and
// refusing, then drained) and must give the same outputs in every cycle.
func TestHashModelIsTheRTL(t *testing.T) {
	for _, p := range []HashParams{HashRTLParams, HashRTLSmall} {
		t.Run(fmt.Sprintf("N%d_K%d_W%d_L%d", p.Entries, p.Bins, p.Banks, p.ReadLat), func(t *testing.T) { hashModelIsTheRTL(t, p) })
	}
}

func hashModelIsTheRTL(t *testing.T, p HashParams) {
	for seed := uint64(1); seed <= 3; seed++ {
		h, err := newHashPair(p, true)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 38))
		fill := 0.7
		for op := 0; op < 6000; op++ {
			if op == 2500 {
				fill = 0.3
			}
			if rng.Float64() < fill {
				_, _, err = h.insert(uint32(rng.IntN(8)), uint32(rng.IntN(6)), uint32(rng.IntN(2)), uint32(op), rng.IntN(8) == 0, rng.IntN(8) == 0)
			} else {
				_, _, err = h.search(uint32(rng.IntN(8)), uint32(rng.IntN(6)), uint32(rng.IntN(2)), rng.IntN(6) == 0, rng.IntN(6) == 0)
			}
			if err != nil {
				h.close()
				t.Fatalf("seed %d, operation %d: %v", seed, op, err)
			}
		}
		h.close()
	}
}
