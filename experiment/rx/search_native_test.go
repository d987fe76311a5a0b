package rx

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNativeLayoutsFindTheTarget(t *testing.T) {
	for _, n := range []int{1, 2, 100} {
		ls := nativeLayouts(n)
		require.Equal(t, "contiguous", ls[0].name)
		require.Equal(t, "list", ls[1].name)
		for _, l := range ls {
			require.Equal(t, n-1, l.search(), "%s of %d", l.name, n)
		}
	}
}

// simulatedClock is a clock that moves only when a timed call says it took time.
type simulatedClock struct{ now time.Time }

func (c *simulatedClock) read() time.Time      { return c.now }
func (c *simulatedClock) take(d time.Duration) { c.now = c.now.Add(d) }

func TestNativeTimerGrowsCalls(t *testing.T) {
	calls := 0
	clock := &simulatedClock{}
	tm := nativeTimer{target: 5 * time.Millisecond, runs: 3, now: clock.read}
	ns := tm.nsPerCall(func() {
		calls++
		clock.take(50 * time.Microsecond)
	})
	require.Equal(t, float64(50*time.Microsecond), ns)
	// Runs of one call each would be 3 calls: the first run of one call (50 us), then runs
	// grown a hundredfold (5 ms, the target reached), then two more runs at that size.
	require.Equal(t, 1+3*100, calls, "the runs grew to the target")
}

func TestNativeTimerSlowCall(t *testing.T) {
	// One call already takes longer than the target: every run is that one call.
	calls := 0
	clock := &simulatedClock{}
	tm := nativeTimer{target: time.Millisecond, runs: 3, now: clock.read}
	ns := tm.nsPerCall(func() {
		calls++
		clock.take(2 * time.Millisecond)
	})
	require.Equal(t, tm.runs, calls)
	require.Equal(t, float64(2*time.Millisecond), ns)
}

func TestRunSearchNativeShort(t *testing.T) {
	res := nativeTimer{target: time.Millisecond, runs: 2}.runSearch([]int{256, 1024})
	require.NotEmpty(t, res.CPU)
	require.Len(t, res.Rows, 2)
	for i, r := range res.Rows {
		require.Equal(t, []int{256, 1024}[i], r.Messages)
		for _, v := range []float64{r.ArrayNsPerMsg, r.ListNsPerMsg, r.Ratio} {
			require.False(t, math.IsNaN(v) || math.IsInf(v, 0) || v <= 0, "row %d: %+v", i, r)
		}
		require.InDelta(t, r.ListNsPerMsg/r.ArrayNsPerMsg, r.Ratio, 1e-12)
	}
}

// BenchmarkSearchNative is the --native search as Go benchmarks: ns per queued message over
// an LHS-style contiguous entry array and over a list scattered in memory.
func BenchmarkSearchNative(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		for _, l := range nativeLayouts(n) {
			b.Run(fmt.Sprintf("%s/%d", l.name, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if l.search() != n-1 {
						b.Fatal("missed")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
			})
		}
	}
}
