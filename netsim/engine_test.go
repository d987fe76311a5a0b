package netsim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type recorder struct{ got [][2]int64 }

func (r *recorder) Fire(now Time, arg int64) { r.got = append(r.got, [2]int64{int64(now), arg}) }

// Events run in time order; events at the same time run in the order they were scheduled.
func TestEngineOrder(t *testing.T) {
	var e Engine
	r := &recorder{}
	rng := rand.New(rand.NewPCG(1, 2))
	type sched struct{ at, arg int64 }
	var want []sched
	for i := range 2000 {
		at := int64(rng.IntN(50)) // many ties
		e.At(Time(at), r, int64(i))
		want = append(want, sched{at, int64(i)})
	}
	require.Equal(t, uint64(2000), e.Run(Never))
	require.Len(t, r.got, 2000)
	for i := 1; i < len(r.got); i++ {
		a, b := r.got[i-1], r.got[i]
		require.True(t, a[0] < b[0] || a[0] == b[0] && a[1] < b[1], "event %d (%v) after %v", i, b, a)
	}
}

// Events scheduled while running, Stop and Run's horizon.
func TestEngineRunUntilAndStop(t *testing.T) {
	var e Engine
	n := 0
	var tick Func
	tick = func(now Time, arg int64) {
		n++
		if arg < 9 {
			e.After(10*Nanosecond, tick, arg+1)
		}
		if arg == 6 {
			e.Stop()
		}
	}
	e.At(0, tick, 0)
	require.Equal(t, uint64(3), e.Run(25*Nanosecond)) // 0, 10, 20 ns
	require.Equal(t, 20*Nanosecond, e.Now())
	require.Equal(t, 30*Nanosecond, e.NextAt())
	e.Run(Never)
	require.Equal(t, 7, n, "stopped after the event with arg 6")
	e.Run(Never)
	require.Equal(t, 10, n)
	require.Equal(t, Never, e.NextAt())
	require.Panics(t, func() { e.At(0, tick, 0) }, "scheduling in the past")
}

// refQueue is the order the engine must keep, the plain way: the pending events, the least
// (time, sequence) first.
type refQueue struct {
	q   []event
	seq uint64
}

func (r *refQueue) at(at Time, arg int64) {
	r.seq++
	r.q = append(r.q, event{at: at, key: seqKey | r.seq, arg: arg})
}

func (r *refQueue) pop(until Time) (event, bool) {
	if len(r.q) == 0 {
		return event{}, false
	}
	m := 0
	for i := range r.q {
		if r.q[i].before(&r.q[m]) {
			m = i
		}
	}
	ev := r.q[m]
	if ev.at > until {
		return event{}, false
	}
	r.q = append(r.q[:m], r.q[m+1:]...)
	return ev, true
}

// The calendar runs events in exactly the order of (time, sequence), whatever the delays:
// the same instant, within a bucket, a bucket or two ahead, past the window, far past it,
// and after Run stopped at a horizon or on Stop (the engine then may have looked ahead).
func TestEngineCalendarOrder(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		delays := []func() Time{
			func() Time { return 0 },
			func() Time { return Time(rng.IntN(1 << calShift)) },
			func() Time { return Time(rng.IntN(8 << calShift)) },
			func() Time { return Time(calBuckets<<calShift - 3 + rng.IntN(6)) },
			func() Time { return Time(rng.IntN(3 * calBuckets << calShift)) },
			func() Time { return Time(rng.Int64N(int64(Second))) },
		}
		var e Engine
		ref := &refQueue{}
		var got, want [][2]int64
		next := int64(0)
		var step Func
		schedule := func(now Time, k int) {
			for range k {
				at := now + delays[rng.IntN(len(delays))]()
				next++
				e.At(at, step, next)
				ref.at(at, next)
			}
		}
		step = func(now Time, arg int64) {
			got = append(got, [2]int64{int64(now), arg})
			if arg%97 == 0 {
				e.Stop()
			}
			schedule(now, rng.IntN(3))
		}
		schedule(0, 50)
		for len(got) < 5000 && e.Pending() > 0 {
			require.Equal(t, len(ref.q), e.Pending(), "seed %d", seed)
			m := ref.q[0]
			for i := range ref.q {
				if ref.q[i].before(&m) {
					m = ref.q[i]
				}
			}
			require.Equal(t, m.at, e.NextAt(), "seed %d", seed)
			until := e.Now() + Time(rng.IntN(4*calBuckets<<calShift))
			if rng.IntN(10) == 0 {
				until = Never
			}
			before := len(got)
			e.Run(until)
			for _, g := range got[before:] {
				ev, ok := ref.pop(until)
				require.True(t, ok, "seed %d: the engine ran %v, the reference nothing", seed, g)
				want = append(want, [2]int64{int64(ev.at), ev.arg})
			}
			require.Equal(t, want, got, "seed %d", seed)
			if !e.stop {
				_, more := ref.pop(until)
				require.False(t, more, "seed %d: the engine left an event at or before %v", seed, until)
			}
			if rng.IntN(4) == 0 { // scheduled from outside, between runs
				schedule(e.Now(), 1+rng.IntN(5))
			}
		}
		require.Greater(t, len(got), 1000, "seed %d", seed)
	}
}

func TestNS(t *testing.T) {
	require.Equal(t, Time(600), NS(0.6))
	require.Equal(t, 128*Nanosecond, NS(128))
	require.InDelta(t, 1.5, (1500 * Nanosecond).Microseconds(), 1e-12)
}

type hop struct{ e *Engine }

func (h *hop) Fire(now Time, arg int64) { h.e.After(Time(1+arg%7), h, arg+1) }

// BenchmarkEngine is the engine's own cost: events per second with 4096 components each
// keeping one event in flight (the size of the 4,096-node runs).
func BenchmarkEngine(b *testing.B) {
	var e Engine
	for i := range 4096 {
		e.At(Time(i%13), &hop{e: &e}, int64(i))
	}
	b.ResetTimer()
	for b.Loop() {
		e.Run(e.Now() + 1000)
	}
	b.ReportMetric(float64(e.Fired())/b.Elapsed().Seconds(), "events/s")
}

// FromFloat refuses, before converting, every value that is not a finite non-negative time
// within an hour, and one that rounds to 0 ps without being 0.
func TestFromFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit Time
		want Time
		bad  string
	}{
		{0, Microsecond, 0, ""}, {1.5, Nanosecond, 1500, ""}, {3600, Second, MaxInput, ""}, {0.4, Picosecond, 0, "under half a picosecond"},
		{0.5, Picosecond, 1, ""}, {math.NaN(), Nanosecond, 0, "not a finite number"}, {math.Inf(1), Nanosecond, 0, "not a finite number"},
		{math.Inf(-1), Nanosecond, 0, "not a finite number"}, {-1, Nanosecond, 0, "negative"}, {1e30, Nanosecond, 0, "past an hour"},
		{3600.000001, Second, 0, "past an hour"}, {1e12, Microsecond, 0, "past an hour"}, {1, 0, 0, "unit"},
	} {
		got, err := FromFloat(c.v, c.unit)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("FromFloat(%g, %d) = %v, %v; want an error saying %q", c.v, c.unit, got, err, c.bad)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("FromFloat(%g, %d) = %v, %v; want %v", c.v, c.unit, got, err, c.want)
		}
	}
}
