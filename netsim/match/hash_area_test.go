package match

import (
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/area"
)

// The checked-in Yosys reports of hash_match (make synth) put its entries and links in block
// RAM: on xc2vp as many RAMB16s as HashBRAMs counts (the estimate that refuses an N past the
// XC2VP70), on xc7 some, and no memory left to flip-flops. Each (N, K) of the sweep has both.
func TestHashEntriesInBlockRAM(t *testing.T) {
	root, err := area.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	s, err := area.LoadSummary(filepath.Join(root, "synth-reports"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range area.HashEntries {
		for _, k := range area.HashBins {
			ps := []area.Param{{Name: "BINS", Value: k}, {Name: area.ParamEntries, Value: n}}
			v, ok1 := s.Find(area.TopHash, area.XC2VP, ps...)
			x, ok2 := s.Find(area.TopHash, area.XC7, ps...)
			if !ok1 || !ok2 {
				t.Errorf("N %d, K %d: no report on both families (make synth)", n, k)
				continue
			}
			p := HashRTLParams
			p.Entries, p.Bins = n, k
			if want := HashBRAMs(p); v.BRAMs != want || x.BRAMs == 0 {
				t.Errorf("N %d, K %d: %d RAMB16s on xc2vp (want %d), %d BRAM18s on xc7", n, k, v.BRAMs, want, x.BRAMs)
			}
		}
	}
}
