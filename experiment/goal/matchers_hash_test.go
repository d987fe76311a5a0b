package goal

import (
	"testing"

	"github.com/lhsim/lhsim/area"
)

// docs/matchers.md's design space at a size make test affords (incast at 128 ranks: rank 0's
// posted queue 127 deep): the hashed matcher is between the ALPU that holds the queue and the
// one that does not, on time and on area; its area is two hash_match reports; onload on a
// full ALPU serves none of incast's matches in hardware, overflow some.
func TestHashInTheStudy(t *testing.T) {
	r, err := RunMatchers(MatchersConfig{Ranks: 128, Size: 8, Seed: 1, Workloads: []string{"incast"},
		Matchers: []string{"alpu:64", "alpu:256", "hash:64:256", "alpu:64/onload"}})
	if err != nil {
		t.Fatal(err)
	}
	cell := map[string]MatchersCell{}
	for _, c := range r.Cells {
		cell[c.Matcher] = c
	}
	small, big, hash, onload := cell["alpu:64"], cell["alpu:256"], cell["hash:64:256"], cell["alpu:64/onload"]
	if !(big.EndUs < hash.EndUs && hash.EndUs < small.EndUs) {
		t.Errorf("incast end: alpu:256 %.2f, hash:64:256 %.2f, alpu:64 %.2f µs: want the hashed matcher between", big.EndUs, hash.EndUs, small.EndUs)
	}
	sum, err := area.LoadSummary("../../synth-reports")
	if err != nil {
		t.Fatal(err)
	}
	h, ok := sum.Find(area.TopHash, area.XC2VP, area.Param{Name: "BINS", Value: 64}, area.Param{Name: area.ParamEntries, Value: 256})
	if !ok || hash.Area == nil || hash.Area.XC2VPSlices != 2*h.Slices || hash.Area.XC2VPBRAMs != 2*h.BRAMs || h.BRAMs == 0 {
		t.Fatalf("hash:64:256 area %+v, want twice the report's %d slices and %d BRAMs", hash.Area, h.Slices, h.BRAMs)
	}
	if small.Area == nil || !(hash.Area.XC2VPSlices < small.Area.XC2VPSlices) {
		t.Errorf("hash:64:256 has %d xc2vp slices, alpu:64 %+v: want fewer", hash.Area.XC2VPSlices, small.Area)
	}
	p := onload.Matching.Policy
	if p == nil || p.HWMatches != 0 || p.Switches != 2 || onload.EndUs <= small.EndUs {
		t.Errorf("alpu:64/onload on incast: %+v, end %.2f µs (overflow %.2f): want no match in hardware, one switch each way, slower", p, onload.EndUs, small.EndUs)
	}
}
