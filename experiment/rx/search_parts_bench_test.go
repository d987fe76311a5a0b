package rx

import (
	"testing"

	"github.com/lhsim/lhsim/cputime"
)

// The search at 128 depths (every 8th, 0 to 1,016, on the RTL) in its parts, each run alone
// and timed in CPU seconds; the metrics are their total, the largest and the speed-up two
// free cores would give (two workers taking the parts in order, as --jobs 2 does). Run it
// with go test ./experiment/rx -run '^$' -bench SearchParts -benchtime 1x -v.
func BenchmarkSearchParts(b *testing.B) {
	cfg := DefaultSearch()
	for d := 0; d <= 1023; d += 8 {
		cfg.Depths = append(cfg.Depths, d)
	}
	for range b.N {
		var w [2]float64
		var total, most float64
		for _, p := range cfg.Parts() {
			c0, _ := cputime.Process()
			if _, err := RunSearch(p.Config); err != nil {
				b.Fatal(err)
			}
			c1, _ := cputime.Process()
			s := (c1 - c0).Seconds()
			b.Logf("%-24s %.2f CPU s", p.Label, s)
			total, most = total+s, max(most, s)
			if w[0] <= w[1] {
				w[0] += s
			} else {
				w[1] += s
			}
		}
		b.ReportMetric(total, "CPU-s")
		b.ReportMetric(most, "largest-part-CPU-s")
		b.ReportMetric(total/max(w[0], w[1]), "x-on-2-cores")
	}
}
