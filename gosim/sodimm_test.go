package gosim

import "testing"

// The fault knobs do what they say: reads come back in request order after ReadLatency plus
// at most ReadJitter cycles, and the port goes not ready in stretches of up to StallMax cycles (two may follow each other).
func TestSODIMMFaults(t *testing.T) {
	s := NewSODIMM(SODIMMParams{ReadLatency: 5, MaxOutstanding: 1000, ReadJitter: 30, StallPercent: 5, StallMax: 40}, NewRand(1))
	var p Pins
	var issued, got []uint64
	run, longest, jittered := 0, 0, false
	for c := uint64(0); c < 20000; c++ {
		s.Drive(&p, c)
		if p.MemRValid != 0 {
			got = append(got, p.MemRData[0])
			if d := c - issued[len(got)-1]; d < 5 || d > 5+30 {
				t.Fatalf("read %d came back after %d cycles", len(got)-1, d)
			} else if d > 5 {
				jittered = true
			}
		}
		if p.MemReady == 0 {
			run++
			longest = max(longest, run)
		} else {
			run = 0
			p.MemValid, p.MemWrite, p.MemAddr = 1, 0, uint32(16*len(issued))
			s.Observe(&p, c)
			issued = append(issued, c)
		}
	}
	for i, v := range got {
		if v != 0 {
			t.Fatalf("read %d: data %#x from an empty memory", i, v)
		}
	}
	if longest < 20 || !jittered || len(got) < len(issued)-100 {
		t.Fatalf("longest not-ready stretch %d (want 20 or more), jitter seen %v, %d of %d reads back", longest, jittered, len(got), len(issued))
	}
}
