package netsim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func benchEvents(n int) []event {
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]event, n)
	for i := range q {
		q[i] = event{at: Time(1000 + r.IntN(4)), key: r.Uint64() >> 1}
	}
	return q
}

func BenchmarkSortEvents(b *testing.B) {
	src := benchEvents(4096)
	q := make([]event, len(src))
	for b.Loop() {
		copy(q, src)
		sortEvents(q)
	}
}

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
		slices.SortStableFunc(want, func(a, b event) int {
			switch {
			case a.before(&b):
				return -1
			case b.before(&a):
				return 1
			}
			return 0
		})
		sortEvents(q)
		for i := range q {
			if q[i].at != want[i].at || q[i].key != want[i].key {
				t.Fatalf("n=%d: event %d is (%d, %d), want (%d, %d)", n, i, q[i].at, q[i].key, want[i].at, want[i].key)
			}
		}
	}
}
