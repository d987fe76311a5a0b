package rx

// The search on the machine running lhsim (`lhsim search --native`): the same envelopes as
// LHS-style contiguous entries and as a linked list scattered in memory, each searched for its
// last message and timed by a small loop of its own (nativeTimer).

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"
)

// SearchNativeResult is the same search on the machine running lhsim.
type SearchNativeResult struct {
	CPU  string            `json:"cpu"`
	Rows []SearchNativeRow `json:"rows"`
}

// SearchNativeRow compares the LHS layout with a scattered list at one queue length.
type SearchNativeRow struct {
	Messages      int     `json:"messages"`
	ArrayNsPerMsg float64 `json:"contiguous_ns_per_message"`
	ListNsPerMsg  float64 `json:"scattered_list_ns_per_message"`
	Ratio         float64 `json:"list_over_contiguous"`
}

// searchEntry is an LHS-style entry: a 16-byte envelope in a 64-byte, 64-byte-aligned slot.
type searchEntry struct {
	source, tag, comm, size int32
	_                       [48]byte
}

// searchNode is a list record: the same envelope and a pointer to the next record, padded to
// a cache line so that every record is a separate line wherever it lands.
type searchNode struct {
	source, tag, comm, size int32
	next                    *searchNode
	_                       [40]byte
}

//go:noinline
func searchEntries(q []searchEntry, src, tag, comm int32) int {
	for i := range q {
		e := &q[i]
		if e.comm == comm && e.source == src && e.tag == tag {
			return i
		}
	}
	return -1
}

//go:noinline
func searchNodes(n *searchNode, src, tag, comm int32) int {
	for i := 0; n != nil; i++ {
		if n.comm == comm && n.source == src && n.tag == tag {
			return i
		}
		n = n.next
	}
	return -1
}

// nativeLayout is one layout of a queue, with a search for its last message.
type nativeLayout struct {
	name   string     // "contiguous" (the LHS entries) or "list"
	search func() int // the index where the target was found, -1 if it was not
}

// nativeLayouts builds the same n envelopes, the target last, in both layouts: contiguous
// entries first, then the scattered list.
func nativeLayouts(n int) [2]nativeLayout {
	arr, head := buildNativeQueues(n)
	return [2]nativeLayout{
		{"contiguous", func() int { return searchEntries(arr, searchSource, searchTargetTag, searchComm) }},
		{"list", func() int { return searchNodes(head, searchSource, searchTargetTag, searchComm) }},
	}
}

// nativeTimer times a function with a loop of its own. The number of calls per run grows
// until one run takes at least target; then runs runs of that many calls are timed (the one
// that reached the target among them) and the shortest counts: other work on the machine can
// only add time.
type nativeTimer struct {
	target time.Duration
	runs   int
	// now is the clock: time.Now when nil (tests give a simulated one, so that what they
	// check does not depend on how loaded the machine is).
	now func() time.Time
}

// defaultNativeTimer spends about half a second on each figure.
var defaultNativeTimer = nativeTimer{target: 100 * time.Millisecond, runs: 5}

// nsPerCall is the time of one call of f, in nanoseconds: the shortest run over its calls.
func (t nativeTimer) nsPerCall(f func()) float64 {
	calls := 1
	best := t.timeCalls(f, calls)
	for best < t.target {
		// Aim a fifth past the target from the last run's rate, growing by at least one call
		// and at most a hundredfold.
		next := calls * 100
		if best > 0 {
			next = min(int(1.2*float64(t.target)*float64(calls)/float64(best)), next)
		}
		calls = max(next, calls+1)
		best = t.timeCalls(f, calls)
	}
	for i := 1; i < t.runs; i++ {
		best = min(best, t.timeCalls(f, calls))
	}
	return float64(best.Nanoseconds()) / float64(calls)
}

// timeCalls is how long calls calls of f take.
func (t nativeTimer) timeCalls(f func(), calls int) time.Duration {
	now := t.now
	if now == nil {
		now = time.Now
	}
	start := now()
	for i := 0; i < calls; i++ {
		f()
	}
	return now().Sub(start)
}

// RunSearchNative times a search for the last of n messages over an LHS-style contiguous
// array and over a linked list whose records are scattered through a pool 16 times larger than
// the list, for each n in sizes (nil: 1 Ki, 64 Ki, 1 Mi).
func RunSearchNative(sizes []int) SearchNativeResult {
	return defaultNativeTimer.runSearch(sizes)
}

func (t nativeTimer) runSearch(sizes []int) SearchNativeResult {
	if len(sizes) == 0 {
		sizes = []int{1 << 10, 1 << 16, 1 << 20}
	}
	res := SearchNativeResult{CPU: fmt.Sprintf("%s, %s/%s, %d CPUs", cpuName(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	for _, n := range sizes {
		var nsPerMsg [2]float64
		for i, l := range nativeLayouts(n) {
			nsPerMsg[i] = t.nsPerCall(func() {
				if got := l.search(); got != n-1 {
					panic(fmt.Sprintf("native %s search of %d messages found the target at %d", l.name, n, got))
				}
			}) / float64(n)
		}
		res.Rows = append(res.Rows, SearchNativeRow{
			Messages:      n,
			ArrayNsPerMsg: nsPerMsg[0],
			ListNsPerMsg:  nsPerMsg[1],
			Ratio:         nsPerMsg[1] / nsPerMsg[0],
		})
	}
	return res
}

// buildNativeQueues makes the same n envelopes (the target last) as a contiguous entry array
// and as a list whose records sit at random places in a pool 16 times larger.
func buildNativeQueues(n int) ([]searchEntry, *searchNode) {
	rng := rand.New(rand.NewPCG(1, 2))
	arr := make([]searchEntry, n)
	for i := range arr {
		arr[i] = searchEntry{source: searchSource, tag: int32(rng.IntN(searchTargetTag)), comm: searchComm}
	}
	arr[n-1].tag = searchTargetTag
	pool := make([]searchNode, 16*n)
	var head, prev *searchNode
	for i, s := range rng.Perm(len(pool))[:n] {
		nd := &pool[s]
		*nd = searchNode{source: searchSource, tag: arr[i].tag, comm: searchComm}
		if prev == nil {
			head = nd
		} else {
			prev.next = nd
		}
		prev = nd
	}
	return arr, head
}
