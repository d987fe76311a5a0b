package goal

import (
	"testing"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/rx"
)

// partsSpeedup is what running parts on two cores may gain, from their CPU seconds one by one
// (cpus, in Parts order): two workers taking them in order, as lhsim's --jobs 2 does, finish
// when the busier one does.
func partsSpeedup(cpus []float64) (total, speedup float64) {
	var w [2]float64
	for _, s := range cpus {
		total += s
		if w[0] <= w[1] {
			w[0] += s
		} else {
			w[1] += s
		}
	}
	return total, total / max(w[0], w[1])
}

// The default study's parts, each run alone and timed in CPU seconds; the metrics are their
// total, the largest and the speed-up two free cores would give (--jobs 2). Run it with
// go test ./experiment/goal -run '^$' -bench MatchersParts -benchtime 1x -v.
func BenchmarkMatchersParts(b *testing.B) {
	cfg := MatchersConfig{Ranks: 256, Size: 8, Seed: 1, Fig6: rx.DefaultSearch(),
		Workloads: MatchersWorkloads, Matchers: MatchersDefault}
	cfg, err := cfg.Prepare()
	if err != nil {
		b.Fatal(err)
	}
	benchParts(b, cfg.Parts(), RunMatchers)
}

// benchParts runs each part alone b.N times and reports their CPU seconds.
func benchParts[C, R any](b *testing.B, parts []experiment.Part[C], run func(C) (*R, error)) {
	for range b.N {
		cpus := make([]float64, len(parts))
		var most float64
		for i, p := range parts {
			c0, _ := cputime.Process()
			if _, err := run(p.Config); err != nil {
				b.Fatal(err)
			}
			c1, _ := cputime.Process()
			cpus[i] = (c1 - c0).Seconds()
			most = max(most, cpus[i])
			b.Logf("%-30s %.2f CPU s", p.Label, cpus[i])
		}
		total, speedup := partsSpeedup(cpus)
		b.ReportMetric(total, "CPU-s")
		b.ReportMetric(most, "largest-part-CPU-s")
		b.ReportMetric(speedup, "x-on-2-cores")
	}
}
