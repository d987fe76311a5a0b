package alltoall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkSuhShin16 is one all-to-all of the all-to-all paper's size (16x16x16, 32 bytes per pair)
// under each scheme: events per wall second and the simulated total.
// go test ./netsim/alltoall -run '^$' -bench SuhShin16 -benchtime 1x
func BenchmarkSuhShin16(b *testing.B) {
	topo, _ := machine(b, 16, 16, 16)
	s, err := SuhShin(topo, nil, 2)
	require.NoError(b, err)
	for _, sc := range Schemes {
		b.Run(string(sc), func(b *testing.B) {
			var events uint64
			var total float64
			for range b.N {
				_, c := machine(b, 16, 16, 16)
				r, err := Run(c, s, sc, Sizes{BytesPerPair: 32})
				require.NoError(b, err)
				events += r.Events
				total = r.Total.Microseconds()
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(total, "sim-µs")
		})
	}
}

// BenchmarkSuhShinSchedule16 builds the schedule of seed 002's machine (16x16x16: every one
// of the 4096^2 blocks tracked through 21 steps), the part of a run before its first event.
// go test ./netsim/alltoall -run '^$' -bench SuhShinSchedule16 -benchtime 3x
func BenchmarkSuhShinSchedule16(b *testing.B) {
	topo, _ := machine(b, 16, 16, 16)
	for range b.N {
		_, err := SuhShin(topo, nil, 2)
		require.NoError(b, err)
	}
}
