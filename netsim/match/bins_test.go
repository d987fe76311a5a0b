package match

import (
	"runtime"
	"testing"

	"github.com/lhsim/lhsim/netsim/goal"
)

// bins:K makes a bin when its first entry arrives: an empty bins:65536 rank takes a few
// kilobytes, not K lists (14 MB a rank before), and each bin made takes at most binBytes, the
// figure Spec.Footprint counts.
func TestBinsMemory(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	spec, err := Parse("bins:65536")
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(spec, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ranks, entries = 16, 4096
	lists, err := NewSet(Spec{Kind: "list"}, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	ranksOf := func(set *Set) ([]goal.Matcher, uint64) {
		before := heap()
		ms := make([]goal.Matcher, ranks)
		for r := range ms {
			if ms[r], err = set.New(r); err != nil {
				t.Fatal(err)
			}
		}
		return ms, heap() - before
	}
	ls, listBytes := ranksOf(lists)
	ms, empty := ranksOf(set)
	// The host model is every rank's; the bins add their queues' few fields.
	if per := (int64(empty) - int64(listBytes)) / ranks; per > 32<<10 {
		t.Errorf("an empty bins:65536 rank takes %d bytes more than a list rank", per)
	}
	runtime.KeepAlive(ls)
	// Every entry in a bin of its own (distinct sources), on one rank's unexpected queue.
	m := ms[0]
	before := heap()
	m.Begin(0)
	for i := 0; i < entries; i++ {
		m.Unexpected().Push(goal.Entry{Src: uint32(i), Tag: 1})
	}
	m.End()
	q := m.Unexpected().(*timed).Queue.(*binsQueue)
	bins := len(q.used)
	grown := heap() - before
	// A bin with its one entry in it.
	perBin := grown / uint64(bins)
	t.Logf("%d bins, %d bytes each", bins, perBin)
	if bins < entries/2 || perBin > binBytes {
		t.Errorf("%d entries made %d bins of %d bytes each; Spec.Footprint counts %d", entries, bins, perBin, binBytes)
	}
	if est := spec.Footprint(ranks, entries); est < int64(bins)*binBytes {
		t.Errorf("Spec.Footprint(%d ranks, %d operations) = %d, under the %d bins made", ranks, entries, est, bins)
	}
	runtime.KeepAlive(ms)
}
