package netsim

// Parts is the parallel engine: one Engine per part of a model, each run by its own goroutine
// locked to an OS thread, in conservative windows (Chandy and Misra's null-message-free
// variant: a global window as long as the lookahead). The lookahead is the least time in
// which anything one part does can reach another (in the fabric, the latency of the cut
// links); every part runs the events of [T, T+lookahead) at once, T the earliest pending
// event of any part, and the events one part posts for another (Engine.Post, at T+lookahead
// or later) are handed over when the window ends. Nothing is rolled back.
//
// The order is the serial engine's: every event a part posts to another is keyed (AtKey),
// and keys say what an event is, not where it was scheduled; within a window each part runs
// its events in (time, key) order, and no event of another part can come before the window's
// end. So a model whose parts touch each other's state only through posted events runs the
// same events in the same order on any number of parts (TestPartsSameOrder).

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// Parts is the engines of the parts of one model and the windows they run in.
type Parts struct {
	engines   []*Engine
	lookahead Time
	spaces    uint64
	now       Time

	// The threads (handoff.go), the window they run and the earliest event each part holds
	// or posted after it.
	crew *Crew
	win  window
	next []Time
	// unlocked: the workers and the caller are not locked to OS threads (SetLockThreads).
	unlocked bool
	// The windows run one part after another on the caller's thread while the threads do not
	// pay (adapt): the order is the same either way, since a part takes in only what the
	// others posted in the window before.
	adapt  adaptPolicy
	serial int          // windows left to run on one thread (0: on the threads)
	probe  probeMeasure // the windows on the threads since the last decision

	stats WindowStats
}

// adaptPolicy is when the windows leave the threads: after misses probes in a row of probe
// windows on them whose wall time was more than slower times the parts' busy time summed
// (what one thread would take), the next stay windows run on one thread, then probe windows
// on the threads again.
type adaptPolicy struct {
	probe, stay, misses int
	slower              float64
}

// defaultAdapt tries the threads for 64 windows after every 256 on one: a window on the
// threads must take less than 0.9 of what its parts' events took in all, or a second core
// gives less than the hand-over costs (a crowded machine; the network's own parts, traffic's,
// on a fat tree's windows of 4.6 ns at low load: docs/performance.md). Two probes in a row
// must miss: a run's first windows, nearly empty while its traffic starts, sit near the
// line, and 256 windows on one thread after them cost the fat tree at 0.05 some 5 %.
var defaultAdapt = adaptPolicy{probe: 64, stay: 256, misses: 2, slower: 0.9}

type probeMeasure struct {
	windows    int
	wall, busy time.Duration
	missed     int // probes in a row that missed
}

type window struct {
	last Time   // its last instant
	n    uint64 // its number
}

// WindowStats is what the windows of a Parts run were: how many, how many events they ran,
// and how long the threads waited for the slowest part of each.
type WindowStats struct {
	Parts     int
	Lookahead Time
	Windows   uint64
	Events    uint64
	// Wait is the sum over windows and parts of the time a part had finished its window and
	// waited for the others (wall time, all threads).
	Wait time.Duration
	// OneThread is how many of the windows ran their parts one after another on one thread,
	// the threads giving less than their hand-over cost (Parts' adapt).
	OneThread uint64
	// Busy is the sum over windows and parts of the time a part ran its window's events.
	Busy time.Duration
}

// NewParts makes n engines that run in windows of lookahead (n >= 1; lookahead > 0 unless
// n is 1).
func NewParts(n int, lookahead Time) (*Parts, error) {
	if n < 1 {
		return nil, fmt.Errorf("netsim: %d parts: want at least 1", n)
	}
	if n > 1 && lookahead <= 0 {
		return nil, fmt.Errorf("netsim: %d parts with a lookahead of %v: parts must be at least one picosecond apart", n, lookahead)
	}
	ps := &Parts{lookahead: lookahead, adapt: defaultAdapt}
	for i := range n {
		e := &Engine{parts: ps, part: i}
		e.outs[0], e.outs[1] = make([][]event, n), make([][]event, n)
		e.out = e.outs[1] // as if posted in the window before the first
		ps.engines = append(ps.engines, e)
	}
	ps.stats.Parts, ps.stats.Lookahead = n, lookahead
	return ps, nil
}

// PartMemory is the memory, in bytes, a part adds to a model beyond the events it holds (which
// the parts share out: as many pending in all as on one engine): its engine's calendar, the
// buckets' heads, tails and bitmap, and a chunk in each bucket once the bucket has held an
// event (a chunk holds calChunk events; a bucket of one engine that held 8 events on average
// takes one chunk, and so does each part's bucket holding a share of them). Its outboxes hold
// the events crossing in a window, counted with the events. A fabric.EstimateParts counts
// this for every part beyond the first.
func PartMemory() int64 {
	return calBuckets*(4+4+int64(unsafe.Sizeof(chunk{}))) + calBuckets/8
}

// Engine is part i's engine.
func (ps *Parts) Engine(i int) *Engine { return ps.engines[i] }

// Ways is the threads ps runs on, for what a model computes before its run (Split): 1 for a
// machine of one engine (nil).
func (ps *Parts) Ways() int {
	if ps == nil {
		return 1
	}
	return len(ps.engines)
}

// Len is the number of parts.
func (ps *Parts) Len() int { return len(ps.engines) }

// Now is the latest time any part has run to (a part's own now is its engine's).
func (ps *Parts) Now() Time { return ps.now }

// Fired is the number of events the parts have run.
func (ps *Parts) Fired() uint64 {
	var n uint64
	for _, e := range ps.engines {
		n += e.fired
	}
	return n
}

// Stats is the windows run so far.
func (ps *Parts) Stats() WindowStats { return ps.stats }

// NextAt is the earliest pending event of any part, or Never (between runs).
func (ps *Parts) NextAt() Time {
	t := Never
	for _, e := range ps.engines {
		t = min(t, e.NextAt(), posted(e.outs[0]), posted(e.outs[1]))
	}
	return t
}

// posted is the earliest event of the outboxes out.
func posted(out [][]event) Time {
	t := Never
	for _, q := range out {
		for i := range q {
			t = min(t, q[i].at)
		}
	}
	return t
}

// takeIn queues the events the other parts posted to e in the window before (or before the
// first), then makes every part post into its other set of outboxes: while e reads one set,
// the others already write the other.
func (e *Engine) takeIn(w uint64) {
	for _, o := range e.parts.engines {
		q := o.outs[(w+1)%2][e.part]
		for i := range q {
			e.insert(q[i])
			q[i] = event{}
		}
		o.outs[(w+1)%2][e.part] = q[:0]
	}
	e.out = e.outs[w%2]
}

// Run runs the parts' events until none is left or the next is after until, window by
// window; it returns the number of events run. A single part runs as a serial engine.
func (ps *Parts) Run(until Time) uint64 {
	before := ps.Fired()
	if len(ps.engines) == 1 {
		e := ps.engines[0]
		e.winEnd = Never
		e.Run(until)
		ps.now = max(ps.now, e.now)
		ps.stats.Events += e.fired - before
		return e.fired - before
	}
	ps.startWorkers()
	if !ps.unlocked {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	for _, e := range ps.engines {
		e.halt = false
	}
	next := ps.NextAt()
	for next != Never && next <= until && !ps.halted() {
		end := next + ps.lookahead
		last := min(end-1, until)
		for _, e := range ps.engines {
			e.winEnd = end
		}
		if ps.serial > 0 {
			next = ps.windowOnOneThread(last)
		} else {
			next = ps.windowOnThreads(last)
		}
		ps.stats.Windows++
		ps.now = max(ps.now, last)
	}
	ps.now = min(ps.now, until)
	n := ps.Fired() - before
	ps.stats.Events += n
	return n
}

// windowOnThreads runs the window up to last on every part's thread at once, and says what
// the parts hold next. It measures the windows for the choice of threads (adapt).
func (ps *Parts) windowOnThreads(last Time) Time {
	ps.win = window{last, ps.stats.Windows}
	wall, busy := ps.crew.Round(&ps.stats)
	if a := ps.adapt; a.probe > 0 {
		p := &ps.probe
		p.windows, p.wall, p.busy = p.windows+1, p.wall+wall, p.busy+busy
		if p.windows >= a.probe {
			missed := 0
			if float64(p.wall) > a.slower*float64(p.busy) {
				missed = p.missed + 1
			}
			if missed >= a.misses {
				ps.serial, missed = a.stay, 0
			}
			*p = probeMeasure{missed: missed}
		}
	}
	return slices.Min(ps.next)
}

// windowOnOneThread runs the window up to last part by part on the caller's thread: each
// part takes in what the others posted in the window before (takeIn), as on the threads, so
// the events and their order are the same.
func (ps *Parts) windowOnOneThread(last Time) Time {
	t0 := time.Now()
	next := Never
	for i := range ps.engines {
		next = min(next, ps.window(i, last, ps.stats.Windows))
	}
	ps.stats.Busy += time.Since(t0)
	ps.serial--
	ps.stats.OneThread++
	return next
}

// halted reports whether a part's engine was stopped (Engine.Stop) in the window just run.
func (ps *Parts) halted() bool {
	for _, e := range ps.engines {
		if e.halt {
			return true
		}
	}
	return false
}

// window runs part i's window w up to last and says when the earliest event it holds or
// posted is.
func (ps *Parts) window(i int, last Time, w uint64) Time {
	e := ps.engines[i]
	e.takeIn(w)
	e.Run(last)
	// (Only this window's outboxes: the last window's are being taken in by their parts.)
	return min(e.NextAt(), posted(e.out))
}

// startWorkers starts the crew of threads for every part but the first (which the caller's
// goroutine runs), once.
func (ps *Parts) startWorkers() {
	if ps.crew != nil {
		return
	}
	ps.next = make([]Time, len(ps.engines))
	ps.crew = NewCrew(len(ps.engines), !ps.unlocked, func(i int) {
		ps.next[i] = ps.window(i, ps.win.last, ps.win.n)
	})
}

// Close ends the workers (a Parts that has run must be closed, or its threads stay).
func (ps *Parts) Close() {
	if ps.crew != nil {
		ps.crew.Close()
	}
}

// SetLockThreads says whether the parts run on goroutines locked to OS threads (the
// default). A model whose components are coroutines (netsim.Proc's iter.Pull) that a caller
// may unwind between runs (a run that failed or hung) runs unlocked: a coroutine made on a
// locked thread may be entered only from that thread, with the same locking. Such a model's
// windows stay on their parts' goroutines (no adapt): a part's coroutines are entered from
// its own goroutine only, which a caller locked to its thread (one that made a Verilated
// model) is not. Before the first Run.
func (ps *Parts) SetLockThreads(on bool) {
	ps.unlocked = !on
	if !on {
		ps.adapt = adaptPolicy{}
	}
}

// SetLookahead sets the windows' length (before the first Run).
func (ps *Parts) SetLookahead(t Time) {
	ps.lookahead, ps.stats.Lookahead = t, t
}

// Split calls work(lo, hi) on ranges that cover 0..n-1, on up to ways goroutines (the run's
// threads: --threads 1 builds on one), and returns the error of the lowest range that
// failed. It is for what a model computes before its run, entry by entry (a closed-form
// latency for each of thousands of pairs): each range writes only its own entries, so the
// result is the same for any number of ranges.
func Split(ways, n int, work func(lo, hi int) error) error {
	ranges := min(ways, runtime.GOMAXPROCS(0), max(1, n/256))
	if ranges <= 1 {
		return work(0, n)
	}
	errs := make([]error, ranges)
	var wg sync.WaitGroup
	for r := range ranges {
		wg.Go(func() { errs[r] = work(r*n/ranges, (r+1)*n/ranges) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
