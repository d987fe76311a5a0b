package experiment

import (
	"testing"
)

// Seed 000 as the check: the list and lhs matchers, run on the LHS paper's micro-benchmark
// with lhsim search's set-up (device, host model, loop, seed, depths), give lhsim search's
// figures depth for depth: list its no-LHS curve, lhs its LHS first and repeated searches.
func TestMatchersGiveFigure6(t *testing.T) {
	cfg := DefaultSearch()
	cfg.Model = "go"
	cfg.Depths = []int{0, 1, 2, 8, 33, 100}
	fig6, err := RunSearch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m               string
		first, repeated string
	}{{"list", CurveNoLHS, ""}, {"lhs", CurveLHSCold, CurveLHS}} {
		r, err := RunMatcherFig6(c.m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range cfg.Depths {
			if got, want := r.FirstNs[i], fig6.Series[c.first][i]; got != want {
				t.Errorf("%s, depth %d, first search: %.3f ns, lhsim search's %s %.3f ns", c.m, x, got, c.first, want)
			}
			if c.repeated != "" {
				if got, want := r.RepeatedNs[i], fig6.Series[c.repeated][i]; got != want {
					t.Errorf("%s, depth %d, repeated search: %.3f ns, lhsim search's %s %.3f ns", c.m, x, got, c.repeated, want)
				}
			}
		}
		t.Logf("%s: %.2f ns/message first, %.2f repeated", c.m, r.FirstPerMsgNs, r.RepeatedPerMsgNs)
	}
}
