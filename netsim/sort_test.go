package netsim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// benchEvents is n events of four instants and random keys: a bucket of an all-to-all's step.
func benchEvents(n int) []event {
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]event, n)
	for i := range q {
		q[i] = event{at: Time(1000 + r.IntN(4)), key: r.Uint64() >> 1}
	}
	return q
}

// BenchmarkSortEvents sorts such a bucket of 4,096 events.
func BenchmarkSortEvents(b *testing.B) {
	src := benchEvents(4096)
	q := make([]event, len(src))
	for b.Loop() {
		copy(q, src)
		sortEvents(q)
	}
}

// sortEvents puts buckets of up to 7,787 events (a few instants, keys drawn from few or many
// values, some in reverse order) in the order of a stable sort on (at, key).
func TestSortEvents(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 600 {
		if n > 300 {
			n = n * 13 // up to 7,787: a step of an all-to-all
		}
		q := make([]event, n)
		for i := range q {
			q[i] = event{at: Time(r.IntN(1 + n%5)), key: r.Uint64N(uint64(1 + n%3*n))}
		}
		if n%4 == 1 {
			slices.SortFunc(q, func(a, b event) int { return int(b.at) - int(a.at) })
		}
		want := slices.Clone(q)
		slices.SortStableFunc(want, compareEvents)
		sortEvents(q)
		for i := range q {
			if q[i].at != want[i].at || q[i].key != want[i].key {
				t.Fatalf("seed PCG(3, 4), n=%d: event %d is (%d, %d), want (%d, %d)", n, i, q[i].at, q[i].key, want[i].at, want[i].key)
			}
		}
	}
}
