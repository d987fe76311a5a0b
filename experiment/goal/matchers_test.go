package goal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/area"
)

// The study: a cell per workload and matcher; area from the checked-in reports (two ALPUs
// for alpu:N, none for software); an ALPU that holds every queue answers in the RTL's
// cycles; on incast, where rank 0's posted queue is as long as the senders, the list's mean
// matching time exceeds the ALPU's and a 4-cell ALPU falls back to software.
func TestMatchersStudy(t *testing.T) {
	r, err := RunMatchers(MatchersConfig{Ranks: 16, Size: 8, Seed: 1, Workloads: MatchersWorkloads,
		Matchers: []string{"list", "bins:8", "alpu:4", "alpu:64"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 16 {
		t.Fatalf("%d cells, want 16", len(r.Cells))
	}
	sum, err := area.LoadSummary("../../synth-reports")
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
	// The Pareto front: the workload's fastest cell and its cheapest (software) are on it, and
	// nothing on it is beaten on both end time and slices.
	for _, w := range MatchersWorkloads {
		front := r.Pareto(w)
		fastest, cheapest := front[0], front[len(front)-1]
		for _, c := range r.Cells {
			if c.Workload == w && c.EndUs < fastest.EndUs {
				t.Errorf("%s: %s (%.2f µs) is faster than the front's first, %s", w, c.Matcher, c.EndUs, fastest.Matcher)
			}
		}
		if !cheapest.Software {
			t.Errorf("%s: the front ends with %s, not a software matcher", w, cheapest.Matcher)
		}
		for i := 1; i < len(front); i++ {
			if front[i].Area != nil && front[i-1].Area != nil && front[i].Area.XC2VPSlices >= front[i-1].Area.XC2VPSlices {
				t.Errorf("%s: %s is slower than %s and no smaller", w, front[i].Matcher, front[i-1].Matcher)
			}
		}
	}
	dir := t.TempDir()
	for _, f := range []func(string) error{r.WriteQueuePlot, r.WriteParetoPlot} {
		file := filepath.Join(dir, "p.svg")
		if err := f(file); err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(file)
		if !strings.Contains(string(svg), "alpu:64") || !strings.Contains(string(svg), "simulated") {
			t.Errorf("plot %d bytes without the matchers or the figures' source", len(svg))
		}
	}
	names, pts := r.QueuePoints()
	if len(names) != 4 || len(pts["list"]) < 3 {
		t.Errorf("queue plot: %v, list %v", names, pts["list"])
	}
	in := func(m string) *MatchSummary { return cell["incast "+m].Matching }
	if in("list").MaxPosted != 15 || in("list").MeanNs <= in("alpu:64").MeanNs {
		t.Errorf("incast: list %+v, alpu:64 %+v", in("list"), in("alpu:64"))
	}
	if late := cell["alltoall_late list"].Matching; late.MaxUnexpected != 15 || late.MaxPosted != 0 {
		t.Errorf("alltoall_late: longest unexpected %d (want 15), posted %d (want 0)", late.MaxUnexpected, late.MaxPosted)
	}
	if in("alpu:4").Fallbacks == 0 && in("alpu:4").Refills == 0 {
		t.Errorf("incast alpu:4 never left hardware: %+v", in("alpu:4"))
	}
}

// lhs and the hybrid: LHS's area is Table 1's increment at 512 entries on xc2vp; the hybrid
// adds one ALPU; on incast (a long posted queue, the unexpected queue empty) the hybrid's
// ALPU makes it faster than lhs, whose posted queue is the host's list.
func TestLHSAndHybridInTheStudy(t *testing.T) {
	r, err := RunMatchers(MatchersConfig{Ranks: 32, Size: 8, Seed: 1, Workloads: []string{"incast", "alltoall_late"},
		Matchers: []string{"lhs", "lhs+alpu:64"}, RTLNodes: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := area.LoadSummary("../../synth-reports")
	e := area.Param{Name: "ENTRIES", Value: LHSMatchEntries}
	on, _ := sum.Find("lhs_rx", area.XC2VP, e)
	off, _ := sum.Find("lhs_rx", area.XC2VP, e, area.Param{Name: "LHS", Value: 0})
	a64, _ := sum.Find("alpu", area.XC2VP, area.Param{Name: "CELLS", Value: 64})
	c := map[string]MatchersCell{}
	for _, x := range r.Cells {
		c[x.Workload+" "+x.Matcher] = x
	}
	on7, _ := sum.Find("lhs_rx", area.XC7, e)
	off7, ok := sum.Find("lhs_rx", area.XC7, e, area.Param{Name: "LHS", Value: 0})
	if !ok {
		t.Fatal("no xc7 report of lhs_rx without LHS")
	}
	if a := c["incast lhs"].Area; a == nil || a.XC2VPSlices != on.Slices-off.Slices || a.XC2VPBRAMs != on.BRAMs-off.BRAMs ||
		a.XC7Slices != on7.Slices-off7.Slices || a.XC7LUTs != on7.LUTs-off7.LUTs || a.XC7BRAMs != on7.BRAMs-off7.BRAMs || a.XC7LUTs <= 0 {
		t.Errorf("lhs area %+v, want %d slices on xc2vp, %d on xc7", a, on.Slices-off.Slices, on7.Slices-off7.Slices)
	}
	if a := c["incast lhs+alpu:64"].Area; a == nil || a.XC2VPSlices != on.Slices-off.Slices+a64.Slices {
		t.Errorf("lhs+alpu:64 area %+v", a)
	}
	// The hybrid ran as RTL on nodes 0 and 1 beside its model: the ALPU took rank 0's 31
	// posted receives and their 31 searches, the LHS receive path the 31 searches of rank
	// 0's empty unexpected queue.
	if n := c["incast lhs+alpu:64"].Matching.RTLChecked; n != 93 {
		t.Errorf("incast lhs+alpu:64: %d operations checked on the RTL, want 93", n)
	}
	// lhs alone on the late all-to-all: nodes 0 and 1 each take 31 messages into the LHS RTL
	// and search for them 31 times.
	if n := c["alltoall_late lhs"].Matching.RTLChecked; n != 124 {
		t.Errorf("alltoall_late lhs: %d operations checked on the RTL, want 124", n)
	}
	if h, l := c["incast lhs+alpu:64"], c["incast lhs"]; h.EndUs >= l.EndUs || h.Matching.MeanNs >= l.Matching.MeanNs {
		t.Errorf("incast: hybrid %.2f µs %.1f ns, lhs %.2f µs %.1f ns", h.EndUs, h.Matching.MeanNs, l.EndUs, l.Matching.MeanNs)
	}
	// With the unexpected queue on LHS in both, the late all-to-all is the same for both.
	if h, l := c["alltoall_late lhs+alpu:64"], c["alltoall_late lhs"]; h.Matching.MaxUnexpected != 31 || l.Matching.MaxUnexpected != 31 {
		t.Errorf("alltoall_late: unexpected max %d and %d, want 31", h.Matching.MaxUnexpected, l.Matching.MaxUnexpected)
	}
}
