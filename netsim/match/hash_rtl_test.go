package match

import (
	"math/rand/v2"
	"testing"
)

// The Go model and the Verilated rtl/hash_match.v take the same random inserts and searches
// (wildcards on either side, two contexts, the matcher filled to its 1,024 entries and
// refusing, then drained) and must give the same outputs in every cycle.
func TestHashModelIsTheRTL(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		h, err := newHashPair(HashRTLParams, true)
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
