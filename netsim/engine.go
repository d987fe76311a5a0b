// Package netsim is the discrete-event engine and the processes that run on it (Proc, Machine).
package netsim

// netsim is the discrete-event engine the network of NICs runs on: simulated time in
// integer picoseconds, one event queue ordered by (time, key), so that a run is the same bit
// for bit every time. An event's key says what the event is: a component that schedules with
// AtKey gives a key made of its key space (NewKeySpace) and what the event does there (its
// kind and port), so that events at the same time run in an order that depends on nothing
// but the events themselves, not on which queue or thread they were scheduled from (Parts,
// the parallel engine, relies on it). Events scheduled with At take the engine's sequence
// number as their key, after every keyed event at that time: they run in the order they were
// scheduled, as before keys existed. Components schedule events for themselves; no goroutine
// runs per event or component.
//
// Programs run on it as processes (Proc: a coroutine or a Stepper) of a Machine, which stops
// on the first failure and reports a hang one way. Subpackages build on it: fabric (links,
// routers, topologies) and the systems (cluster, mbcf, lhsnic, ib).

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/lhsim/lhsim/simtime"
)

// Time is simulated time in picoseconds (package simtime: the command line parses times in its
// units without reaching into the engine).
type Time = simtime.Time

// Units of Time.
const (
	Picosecond  = simtime.Picosecond
	Nanosecond  = simtime.Nanosecond
	Microsecond = simtime.Microsecond
	Millisecond = simtime.Millisecond
	Second      = simtime.Second
	// Never is later than any event.
	Never = simtime.Never
	// MaxInput is the longest time a user may give for one delay or one moment of a run.
	MaxInput = simtime.MaxInput
)

// NS converts nanoseconds (a parameter from a paper) to Time, rounded to the picosecond.
func NS(ns float64) Time { return simtime.NS(ns) }

// FromFloat converts v units to Time, or says what is wrong with it (simtime.FromFloat).
func FromFloat(v float64, unit Time) (Time, error) { return simtime.FromFloat(v, unit) }

// Handler is a component that takes events. arg says which of its events this is (a port
// number, a kind); components keep their own state, so an event costs no allocation.
type Handler interface {
	Fire(now Time, arg int64)
}

// Func adapts a function to Handler (for the rare event that is not a component's).
type Func func(now Time, arg int64)

// Fire calls f.
func (f Func) Fire(now Time, arg int64) { f(now, arg) }

type event struct {
	at  Time
	key uint64 // AtKey's key, or seqKey | the engine's sequence number (At)
	h   Handler
	arg int64
}

// seqKey marks the key of an event scheduled with At: after every keyed event of its time.
const seqKey = 1 << 63

// KeySpaceBits is how many low bits of a key are the component's own (AtKey): above them,
// the key space NewKeySpace gives it.
const KeySpaceBits = 56

func (a *event) before(b *event) bool {
	return a.at < b.at || a.at == b.at && a.key < b.key
}

// The queue is a calendar (Brown, CACM 1988) over a window of calBuckets buckets of
// 2^calShift ps from the current bucket on, with a heap for what lies past the window. An
// event goes to the bucket of its time, appended unsorted: the pending events of a network
// (some 33,000 on a 4,096-node torus at load 0.05, nearly all within the next microsecond) are
// written and read in order, instead of sitting in a heap whose every pop walks its height. A
// bucket's events are kept in chunks of calChunk from one arena, so that memory follows the
// events pending and not the fullest each bucket ever was. A bucket is sorted on (at, key)
// when it becomes the current one; an event scheduled into the current bucket (or before it)
// goes to a small heap beside it, and the next event is the lesser of the two heads. So the
// order is exactly the heap's, (time, key), and a run is the same bit for bit
// (TestEngineCalendarOrder).
const (
	calShift   = 8 // 256 ps per bucket, a 1 µs window
	calBuckets = 4096
	calMask    = calBuckets - 1
	calChunk   = 16 // events per chunk of a bucket
)

// chunk is a piece of a bucket: up to calChunk events, and the next piece (-1: none).
type chunk struct {
	ev   [calChunk]event
	n    int32
	next int32
}

// Engine runs events in time order. The zero value is ready to use.
type Engine struct {
	cur    []event  // the current bucket, sorted on (at, seq); cur[ci:] still to run
	ci     int      //
	hot    []event  // 4-ary min-heap: events scheduled at or before the current bucket once it was sorted
	head   []int32  // bucket b%calBuckets: its first chunk (-1: empty), for curB < b < curB+calBuckets
	tail   []int32  // and its last
	arena  []chunk  // the buckets' chunks
	free   int32    // the first unused chunk (-1: none), linked by next
	bits   []uint64 // the non-empty buckets
	inCal  int      // events in the buckets
	curB   int64    // the current bucket: at>>calShift of the events in cur (and hot's at most that)
	far    []event  // 4-ary min-heap on (at, key): events from the window's end on
	n      int      // events pending
	now    Time
	seq    uint64
	fired  uint64
	stop   bool
	halt   bool   // Stop was called in a Parts: the parts stop when the window ends
	spaces uint64 // key spaces given out (NewKeySpace)

	// In a Parts (nil: a serial engine): its number, the end of the window running (events
	// for another part must come at or after it) and, per part, the events posted to it.
	parts  *Parts
	part   int
	winEnd Time
	out    [][]event    // the outboxes being written: one of outs
	outs   [2][][]event // per window parity, per part
}

// Now is the time of the event running (or of the last one run).
func (e *Engine) Now() Time { return e.now }

// Fired is the number of events run so far.
func (e *Engine) Fired() uint64 { return e.fired }

// WindowEnd is the end of the window the engine runs in a Parts: no event another part posts
// to it comes before it (Never on a serial engine, or on a Parts of one). A component that
// runs ahead of the engine's next event (lhsnic's receive paths) may not run past it.
func (e *Engine) WindowEnd() Time {
	if e.parts == nil {
		return Never
	}
	return e.winEnd
}

// Pending is the number of events scheduled and not yet run.
func (e *Engine) Pending() int { return e.n }

// At schedules h.Fire(at, arg). Scheduling in the past is a bug in the caller: it panics
// with the times, rather than let time run backwards.
func (e *Engine) At(at Time, h Handler, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("netsim: event scheduled at %v, before now (%v)", at, e.now))
	}
	e.seq++
	e.insert(event{at: at, key: seqKey | e.seq, h: h, arg: arg})
}

// AtKey schedules h.Fire(at, arg) with key: the caller's key space (NewKeySpace) or'd with
// what the event is within it (less than 1<<KeySpaceBits). Two events pending at the same time
// with the same key must be the same event (handler and argument): the order between them is
// then all that is left undecided, and it cannot matter.
func (e *Engine) AtKey(at Time, key uint64, h Handler, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("netsim: event scheduled at %v, before now (%v)", at, e.now))
	}
	if key&seqKey != 0 {
		panic(fmt.Sprintf("netsim: key %#x is not a key space's", key))
	}
	e.insert(event{at: at, key: key, h: h, arg: arg})
}

// NewKeySpace gives a component its own key space for AtKey: a key for each of its events is
// the space or'd with a number below 1<<KeySpaceBits. The engines of one Parts share their
// spaces, so that a component has the same keys on every part.
func (e *Engine) NewKeySpace() uint64 {
	c := &e.spaces
	if e.parts != nil {
		c = &e.parts.spaces
	}
	*c++
	if *c >= 1<<(63-KeySpaceBits) {
		panic("netsim: too many key spaces on one engine")
	}
	return *c << KeySpaceBits
}

// Keys numbers one component's events for AtKey: its base (a key space or'd with the
// component's number in it) and the component's own count of the events it has scheduled,
// so that its events at one instant run in the order it scheduled them, and take the same
// place among other components' on any part of a Parts.
type Keys struct {
	base, mask, n uint64
}

// NewKeys gives component (0 to components-1) of key space space its keys: the component's
// number in the space's high bits, its count in the rest.
func NewKeys(space uint64, component, components int) *Keys {
	if component < 0 || component >= components || space&(1<<KeySpaceBits-1) != 0 {
		panic(fmt.Sprintf("netsim: keys of component %d of %d in space %#x", component, components, space))
	}
	shift := KeySpaceBits - bits.Len(uint(components-1))
	if shift < 24 {
		panic(fmt.Sprintf("netsim: %d components leave a key space too few bits for their counts", components))
	}
	return &Keys{base: space | uint64(component)<<shift, mask: 1<<shift - 1}
}

// Next is the key of the component's next event. (Its count wraps after 2^24 or more
// events; only events pending at one instant need distinct keys.)
func (k *Keys) Next() uint64 {
	k.n++
	return k.base | k.n&k.mask
}

// Post schedules a keyed event for part (AtKey on that part's engine): on a serial engine, or
// for its own part, at once; for another part, at the end of the window running, which at
// must not precede (the lookahead the Parts were made with guarantees it).
func (e *Engine) Post(part int, at Time, key uint64, h Handler, arg int64) {
	if e.parts == nil || part == e.part {
		e.AtKey(at, key, h, arg)
		return
	}
	if at < e.winEnd {
		panic(fmt.Sprintf("netsim: part %d posted an event for part %d at %v, inside the window that ends at %v (the lookahead is too long)", e.part, part, at, e.winEnd))
	}
	if key&seqKey != 0 {
		panic(fmt.Sprintf("netsim: key %#x is not a key space's", key))
	}
	e.out[part] = append(e.out[part], event{at: at, key: key, h: h, arg: arg})
}

// insert queues ev (at no earlier than now).
func (e *Engine) insert(ev event) {
	e.n++
	switch b := int64(ev.at) >> calShift; {
	case b <= e.curB:
		e.hot = append(e.hot, ev)
		heapUp(e.hot, len(e.hot)-1)
	case b < e.curB+calBuckets:
		e.bucket(b, &ev)
	default:
		e.far = append(e.far, ev)
		heapUp(e.far, len(e.far)-1)
	}
}

// After schedules h.Fire(now+d, arg).
func (e *Engine) After(d Time, h Handler, arg int64) { e.At(e.now+d, h, arg) }

// Stop makes Run return after the event running; in a Parts, the parts' Run returns when
// the window running ends (the other parts finish it).
func (e *Engine) Stop() {
	e.stop = true
	if e.parts != nil {
		e.halt = true
	}
}

// Run runs events until none is left, Stop is called, or the next event is after until. It
// returns the number of events it ran.
func (e *Engine) Run(until Time) uint64 {
	e.stop = false
	start := e.fired
	for !e.stop {
		var ev event
		if c, h := e.ci < len(e.cur), len(e.hot) > 0; c && (!h || e.cur[e.ci].before(&e.hot[0])) {
			if e.cur[e.ci].at > until {
				break
			}
			ev = e.cur[e.ci]
			e.ci++
		} else if h {
			if e.hot[0].at > until {
				break
			}
			ev = heapPop(&e.hot)
		} else {
			if !e.advance(until) {
				break
			}
			continue
		}
		e.n--
		e.now = ev.at
		e.fired++
		ev.h.Fire(ev.at, ev.arg)
	}
	return e.fired - start
}

// advance makes the next bucket with events the current one, once the current one and hot
// are empty, unless that bucket starts after until (or there is none): then it reports false.
func (e *Engine) advance(until Time) bool {
	clear(e.cur)
	e.cur, e.ci = e.cur[:0], 0
	target := int64(math.MaxInt64)
	if e.inCal > 0 {
		target = e.curB + e.nextBucket()
	}
	if len(e.far) > 0 {
		target = min(target, int64(e.far[0].at)>>calShift)
	}
	if target == math.MaxInt64 || Time(target<<calShift) > until {
		return false
	}
	e.curB = target
	for len(e.far) > 0 && int64(e.far[0].at)>>calShift < target+calBuckets {
		ev := heapPop(&e.far)
		e.bucket(int64(ev.at)>>calShift, &ev)
	}
	s := target & calMask
	for c := e.head[s]; c >= 0; {
		k := &e.arena[c]
		e.cur = append(e.cur, k.ev[:k.n]...)
		clear(k.ev[:k.n])
		next := k.next
		k.next, e.free = e.free, c
		c = next
	}
	e.head[s], e.tail[s] = -1, -1
	e.bits[s>>6] &^= 1 << (s & 63)
	e.inCal -= len(e.cur)
	sortEvents(e.cur)
	return true
}

// bucket appends ev to bucket b's last chunk, or to a new one.
func (e *Engine) bucket(b int64, ev *event) {
	if e.head == nil {
		e.head, e.tail = make([]int32, calBuckets), make([]int32, calBuckets)
		for i := range e.head {
			e.head[i], e.tail[i] = -1, -1
		}
		e.bits = make([]uint64, calBuckets/64)
		e.free = -1
	}
	s := b & calMask
	t := e.tail[s]
	if t < 0 || e.arena[t].n == calChunk {
		c := e.free
		if c >= 0 {
			e.free = e.arena[c].next
		} else {
			c = int32(len(e.arena))
			e.arena = append(e.arena, chunk{})
		}
		e.arena[c].n, e.arena[c].next = 0, -1
		if t < 0 {
			e.head[s] = c
			e.bits[s>>6] |= 1 << (s & 63)
		} else {
			e.arena[t].next = c
		}
		e.tail[s], t = c, c
	}
	k := &e.arena[t]
	k.ev[k.n] = *ev
	k.n++
	e.inCal++
}

// nextBucket is how many buckets after the current one the next non-empty one is (inCal > 0).
func (e *Engine) nextBucket() int64 {
	cs := e.curB & calMask
	start := (cs + 1) & calMask
	w := start >> 6
	word := e.bits[w] &^ (1<<(start&63) - 1)
	for range len(e.bits) + 1 {
		if word != 0 {
			s := w<<6 + int64(bits.TrailingZeros64(word))
			return (s - cs) & calMask
		}
		w = (w + 1) % int64(len(e.bits))
		word = e.bits[w]
	}
	panic("netsim: calendar count and bitmap disagree")
}

// NextAt is the time of the next event, or Never.
func (e *Engine) NextAt() Time {
	t := Never
	if e.ci < len(e.cur) {
		t = e.cur[e.ci].at
	}
	if len(e.hot) > 0 {
		t = min(t, e.hot[0].at)
	}
	if t != Never {
		return t
	}
	if e.inCal > 0 {
		for c := e.head[(e.curB+e.nextBucket())&calMask]; c >= 0; c = e.arena[c].next {
			for _, ev := range e.arena[c].ev[:e.arena[c].n] {
				t = min(t, ev.at)
			}
		}
	}
	if len(e.far) > 0 {
		t = min(t, e.far[0].at)
	}
	return t
}

// sortEvents sorts a bucket on (at, key): insertion sort for a short one, else a quicksort
// that compares events in place (the library's sort, through a comparison function taking
// two 40-byte events by value, cost 2.6 times as much: a bucket of an all-to-all's step
// holds thousands of events of one instant). Past a depth of 2 log n it hands the rest to
// the library's, which cannot go quadratic.
func sortEvents(q []event) {
	quickEvents(q, 2*bits.Len(uint(len(q))))
}

// compareEvents is the (at, key) order (event.before) as a comparison for package slices.
func compareEvents(a, b event) int {
	switch {
	case a.before(&b):
		return -1
	case b.before(&a):
		return 1
	}
	return 0
}

func quickEvents(q []event, depth int) {
	for len(q) > 12 {
		if depth == 0 {
			slices.SortFunc(q, compareEvents)
			return
		}
		depth--
		// The median of the first, middle and last as the pivot, moved to the front.
		m, l := len(q)/2, len(q)-1
		if q[m].before(&q[0]) {
			q[m], q[0] = q[0], q[m]
		}
		if q[l].before(&q[m]) {
			q[l], q[m] = q[m], q[l]
			if q[m].before(&q[0]) {
				q[m], q[0] = q[0], q[m]
			}
		}
		q[0], q[m] = q[m], q[0]
		// Hoare's partition around q[0]: q[1:i] <= pivot <= q[j+1:].
		i, j := 1, l
		for {
			for i <= j && q[i].before(&q[0]) {
				i++
			}
			for i <= j && q[0].before(&q[j]) {
				j--
			}
			if i >= j {
				break
			}
			q[i], q[j] = q[j], q[i]
			i++
			j--
		}
		q[0], q[j] = q[j], q[0]
		// The shorter side by recursion, the longer by the loop: a stack of log n.
		if j < len(q)-1-j {
			quickEvents(q[:j], depth)
			q = q[j+1:]
		} else {
			quickEvents(q[j+1:], depth)
			q = q[:j]
		}
	}
	for i := 1; i < len(q); i++ {
		for j := i; j > 0 && q[j].before(&q[j-1]); j-- {
			q[j], q[j-1] = q[j-1], q[j]
		}
	}
}

// heapUp and heapDown keep a 4-ary min-heap on (at, key): shallower than a binary one, fewer
// cache misses.
func heapUp(q []event, i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// heapPop takes the least event off the heap *q (which has one), clearing its old slot.
func heapPop(q *[]event) event {
	h := *q
	ev, last := h[0], len(h)-1
	h[0], h[last] = h[last], event{}
	*q = h[:last]
	if last > 0 {
		heapDown(*q, 0)
	}
	return ev
}

func heapDown(q []event, i int) {
	n := len(q)
	for {
		c := 4*i + 1
		if c >= n {
			return
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if q[k].before(&q[m]) {
				m = k
			}
		}
		if !q[m].before(&q[i]) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}
