package experiment

import (
	"testing"

	"github.com/lhsim/lhsim/area"
)

// The study: a cell per workload and matcher; area from the checked-in reports (two ALPUs
// for alpu:N, none for software); an ALPU that holds every queue answers in the RTL's
// cycles; on incast, where rank 0's posted queue is as long as the senders, the list's mean
// matching time exceeds the ALPU's and a 4-cell ALPU falls back to software.
func TestMatchersStudy(t *testing.T) {
	r, err := RunMatchers(MatchersConfig{Ranks: 16, Size: 8, Seed: 1, Workloads: MatchersWorkloads,
		Matchers: []string{"list", "bins:8", "alpu:4", "alpu:64"}, Reports: "synth-reports"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 16 {
		t.Fatalf("%d cells, want 16", len(r.Cells))
	}
	sum, err := area.LoadSummary("../synth-reports")
	if err != nil {
		t.Fatal(err)
	}
	a64, _ := sum.Find("alpu", area.XC2VP, area.Param{Name: "CELLS", Value: 64})
	cell := map[string]MatchersCell{}
	for _, c := range r.Cells {
		cell[c.Workload+" "+c.Matcher] = c
		if c.EndUs <= 0 || c.Matching == nil || c.Matching.Steps == 0 {
			t.Errorf("%s %s: end %v µs, matching %+v", c.Workload, c.Matcher, c.EndUs, c.Matching)
		}
		switch c.Matcher {
		case "list", "bins:8":
			if c.Area != nil || !c.Software {
				t.Errorf("%s: area %+v", c.Matcher, c.Area)
			}
		case "alpu:64":
			if c.Area == nil || c.Area.XC2VPSlices != 2*a64.Slices || c.Area.XC7LUTs == 0 {
				t.Errorf("alpu:64 area %+v, want twice %d slices", c.Area, a64.Slices)
			}
			if c.Matching.Fallbacks != 0 || c.Matching.P99Ns != 30 {
				t.Errorf("%s alpu:64: %d fallbacks, p99 %v ns (want 3 cycles at 100 MHz, 30 ns)", c.Workload, c.Matching.Fallbacks, c.Matching.P99Ns)
			}
		}
	}
	in := func(m string) *MatchSummary { return cell["incast "+m].Matching }
	if in("list").MaxPosted != 15 || in("list").MeanNs <= in("alpu:64").MeanNs {
		t.Errorf("incast: list %+v, alpu:64 %+v", in("list"), in("alpu:64"))
	}
	if in("alpu:4").Fallbacks == 0 && in("alpu:4").Refills == 0 {
		t.Errorf("incast alpu:4 never left hardware: %+v", in("alpu:4"))
	}
}
