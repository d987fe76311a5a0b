package netsim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/stretchr/testify/require"
)

// unit is a component of the randomized model: each event it fires is logged, and schedules
// zero to three more, drawn from its own generator: for itself after any delay (zero
// included), for another unit no sooner than the lookahead. Keys: the target, the source and
// the source's own count of events scheduled.
type unit struct {
	id    int
	rng   *rand.Rand
	sent  uint64
	log   []string
	units []*unit
	engOf func(u int) *Engine
	part  func(u int) int
	la    Time
	end   Time
}

func (u *unit) Fire(now Time, arg int64) {
	u.log = append(u.log, fmt.Sprintf("%d:%d", now, arg))
	if now > u.end || u.sent > 400 {
		return
	}
	for range u.rng.IntN(4) {
		to := u.id
		d := Time(u.rng.IntN(3)) * Time(u.rng.IntN(50)) // zeros often
		if u.rng.IntN(3) == 0 {
			to = u.rng.IntN(len(u.units))
			d = u.la + Time(u.rng.IntN(3))*Time(u.rng.IntN(80))
		}
		u.sent++
		key := uint64(to)<<48 | uint64(u.id)<<40 | u.sent
		u.engOf(u.id).Post(u.part(to), now+d, key, u.units[to], int64(u.rng.IntN(8)))
	}
}

// runUnits runs the model on parts parts (the units dealt out by assign), in slices.
func runUnits(t *testing.T, seed uint64, nunits, parts int, assign []int, la Time, cuts []Time, adapt *adaptPolicy) ([][]string, uint64, WindowStats) {
	ps, err := NewParts(parts, la)
	require.NoError(t, err)
	defer ps.Close()
	if adapt != nil {
		ps.adapt = *adapt
	}
	units := make([]*unit, nunits)
	for i := range units {
		units[i] = &unit{id: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), la: la, end: 5000}
	}
	for _, u := range units {
		u.units = units
		u.engOf = func(i int) *Engine { return ps.Engine(assign[i]) }
		u.part = func(i int) int { return assign[i] }
	}
	for i := range units { // two first events each
		for k := range 2 {
			ps.Engine(assign[i]).AtKey(Time(k*7), uint64(i)<<48|1<<47|uint64(k), units[i], int64(k))
		}
	}
	for _, c := range cuts {
		ps.Run(c)
	}
	ps.Run(Never)
	logs := make([][]string, nunits)
	for i, u := range units {
		logs[i] = u.log
	}
	return logs, ps.Fired(), ps.Stats()
}

// The parallel engine runs every unit's events in the serial engine's order, on any number
// of parts and any assignment of units to parts, whatever the slices Run is called in.
func TestPartsSameOrder(t *testing.T) {
	seed := testseed.One(t, 39)
	testseed.ReplayOnFailure(t, seed, "./netsim")
	rng := rand.New(rand.NewPCG(seed, 1))
	for trial := range 20 {
		nunits := 2 + rng.IntN(12)
		parts := 2 + rng.IntN(4)
		la := Time(1 + rng.IntN(40))
		assign := make([]int, nunits)
		for i := range assign {
			assign[i] = rng.IntN(parts)
		}
		var cuts []Time
		for range rng.IntN(4) {
			cuts = append(cuts, Time(rng.IntN(6000)))
		}
		s := rng.Uint64()
		one, n1, _ := runUnits(t, s, nunits, 1, make([]int, nunits), la, cuts, nil)
		many, n2, ws := runUnits(t, s, nunits, parts, assign, la, cuts, nil)
		what := fmt.Sprintf("trial %d: %d units on %d parts %v, lookahead %v", trial, nunits, parts, assign, la)
		require.Greater(t, n1, uint64(2*nunits), what)
		require.Equal(t, one, many, what)
		require.Equal(t, n1, n2, what)
		require.Positive(t, ws.Windows, what)
		require.Equal(t, n2, ws.Events, what)
		// Windows that leave the threads for one and come back (2 on the threads, then 3 on
		// one, ...): the same events in the same order.
		mixed, n3, ws3 := runUnits(t, s, nunits, parts, assign, la, cuts, &adaptPolicy{probe: 2, stay: 3, misses: 1, slower: 0})
		require.Equal(t, one, mixed, what+", windows on one thread and on the threads")
		require.Equal(t, n1, n3, what)
		if ws3.Windows > 2 {
			require.Positive(t, ws3.OneThread, what)
			require.Less(t, ws3.OneThread, ws3.Windows, what)
		}
	}
}

// Posting inside the window running is a lookahead the model broke: a panic that says so.
func TestPartsPostTooSoon(t *testing.T) {
	ps, err := NewParts(2, 10)
	require.NoError(t, err)
	defer ps.Close()
	var e0 *Engine
	e0 = ps.Engine(0)
	e0.AtKey(0, 1, Func(func(now Time, arg int64) { e0.Post(1, now+5, 2, Func(func(Time, int64) {}), 0) }), 0)
	require.PanicsWithValue(t, "netsim: part 0 posted an event for part 1 at 0.005 ns, inside the window that ends at 0.010 ns (the lookahead is too long)",
		func() { ps.Run(Never) })
	_, err = NewParts(2, 0)
	require.ErrorContains(t, err, "at least one picosecond")
	_, err = NewParts(0, 5)
	require.ErrorContains(t, err, "want at least 1")
}

// ticker fires once a window on its part and posts its next event to itself one lookahead
// on: a model whose windows hold one event a part, so that a window costs its hand-over.
type ticker struct {
	e   *Engine
	key uint64
}

func (k *ticker) Fire(now Time, _ int64) { k.e.AtKey(now+Nanosecond, k.key, k, 0) }

// BenchmarkPartsWindow measures the hand-over of a window between two threads: what a
// window costs beyond its events (docs/performance.md, the cost model with threads).
func BenchmarkPartsWindow(b *testing.B) {
	for _, locked := range []bool{true, false} {
		b.Run(fmt.Sprintf("locked=%v", locked), func(b *testing.B) {
			ps, err := NewParts(2, Nanosecond)
			require.NoError(b, err)
			defer ps.Close()
			ps.SetLockThreads(locked)
			for i := range 2 {
				e := ps.Engine(i)
				k := &ticker{e: e, key: e.NewKeySpace()}
				e.AtKey(0, k.key, k, 0)
			}
			b.ResetTimer()
			ps.Run(Time(b.N) * Nanosecond)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ps.Stats().Windows), "ns/window")
		})
	}
}
