package netsim

// The hand-over between the parts' threads at a window's start and end. A thread that waits
// for the others polls while no other thread wants its core, and sleeps otherwise. A window
// lasts from a hundred microseconds a part (a fat tree's 4.6 ns at low load) to some
// milliseconds, and a woken goroutine waits in its waker's run queue until the Go scheduler
// moves it to a free core (a thread locked to it waits with it): up to milliseconds on the
// 2-core machine. So on free cores a waiter does not sleep, and each part's thread stays on
// its core with its caches; on a crowded machine it sleeps, and the Go scheduler's
// hand-over (the woken goroutine runs on its waker's core when the waker parks) is what a
// machine with no core free wants (docs/performance.md, "`--threads 2` on the idle machine:
// where it stands").

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A poll lasts up to spinFor; a wait longer than that sleeps, and a wake-up then costs little
// beside it. Before polling and every pollCheck of it, the waiter looks whether more threads
// are runnable than there are cores (coresWanted); when they were at two looks in a row, it
// sleeps at once, leaving its core to them: one of them may be the very thread it waits for.
// (The Go runtime's own threads, the collector's and the scheduler's, want a core now and then
// for less than a pollCheck, and are not worth a sleep.)
const (
	spinFor   = time.Millisecond
	pollCheck = 50 * time.Microsecond
)

// Crew is the threads that run the parts of a parallel model after the first, a round (a
// window) at a time: Round starts every part's round on its own thread, runs the first
// part's on the caller's, and returns when all are done. netsim.Parts and the booksim
// router's network run their windows on one.
type Crew struct {
	work   func(part int)
	busy   []time.Duration // how long each part's work took in the last round
	start  []signal        // a part's rounds to run (start[0] unused: the caller runs part 0)
	done   signal          // the rounds the parts after the first have finished, all together
	rounds uint64
	poll   bool // waits poll before they sleep: every part can have a core of its own
	closed atomic.Bool
	quit   sync.Once
}

// NewCrew starts a goroutine for each of the parts 1 to n-1 that runs work(i) once a round;
// locked, each is locked to its own OS thread (then a part's state stays in one core's
// caches). The caller runs part 0's work in Round (locked to its thread too, if it wants the
// same).
func NewCrew(n int, locked bool, work func(part int)) *Crew {
	c := &Crew{work: work, busy: make([]time.Duration, n), start: make([]signal, n), poll: n <= runtime.GOMAXPROCS(0)}
	for i := range c.start {
		c.start[i].init()
	}
	c.done.init()
	for i := 1; i < n; i++ {
		go func() {
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			for r := uint64(1); ; r++ {
				c.start[i].wait(r, c.poll)
				if c.closed.Load() {
					return
				}
				c.run(i)
				c.done.advance()
			}
		}()
	}
	return c
}

// Round runs one round: every part's work on its thread, part 0's on the caller's. It adds
// the round to ws (its windows aside): the parts' busy time and how long each waited for the
// slowest; and it returns the round's wall time and its parts' busy time summed.
func (c *Crew) Round(ws *WindowStats) (wall, busy time.Duration) {
	t0 := time.Now()
	for i := 1; i < len(c.start); i++ {
		c.start[i].advance()
	}
	c.run(0)
	c.rounds++
	c.done.wait(c.rounds*uint64(len(c.start)-1), c.poll)
	wall = time.Since(t0)
	for _, b := range c.busy {
		busy += b
		ws.Wait += max(0, wall-b)
	}
	ws.Busy += busy
	return wall, busy
}

// run runs part i's work of a round and times it.
func (c *Crew) run(i int) {
	t0 := time.Now()
	c.work(i)
	c.busy[i] = time.Since(t0)
}

// Close ends the crew's goroutines (after its last Round).
func (c *Crew) Close() {
	c.quit.Do(func() {
		c.closed.Store(true)
		for i := 1; i < len(c.start); i++ {
			c.start[i].advance()
		}
	})
}

// signal is a count that one side advances and another waits on. wake holds a token when the
// count moved while its waiter may have been asleep; a token is only a hint (the waiter looks
// at the count again), so a stale one costs a turn of the loop and none is ever lost: the
// count moves before the token is left.
type signal struct {
	n    atomic.Uint64
	wake chan struct{}
	// crowd is what the waiter's last look at the cores found (one waiter a signal), look
	// how it looks (coresWanted), bound how long it polls (spinFor).
	crowd bool
	look  func() bool
	bound time.Duration
}

func (s *signal) init() { s.wake, s.look, s.bound = make(chan struct{}, 1), coresWanted, spinFor }

// advance moves the count on by one and wakes its waiter.
func (s *signal) advance() {
	s.n.Add(1)
	select {
	case s.wake <- struct{}{}:
	default: // a token is there already
	}
}

// wait returns once the count has reached target: polling first if poll and the cores are
// not crowded, then sleeping.
func (s *signal) wait(target uint64, poll bool) {
	if s.n.Load() >= target {
		return
	}
	if poll && !s.crowded() {
		t0, next := time.Now(), pollCheck
	polling:
		for i := 1; s.n.Load() < target; i++ {
			if i%256 != 0 {
				continue
			}
			switch waited := time.Since(t0); {
			case waited > s.bound:
				break polling
			case waited > next:
				if s.crowded() {
					break polling
				}
				next = waited + pollCheck
			}
		}
	}
	for s.n.Load() < target {
		<-s.wake
	}
}

// crowded reports whether more threads wanted a core than there are at this look and the last.
func (s *signal) crowded() bool {
	now := s.look()
	both := now && s.crowd
	s.crowd = now
	return both
}

// runnable is the count of runnable threads in a line of /proc/loadavg (its fourth field's
// first number), or 0 if the line has none.
func runnable(line []byte) int {
	fields, n := 0, 0
	for _, c := range line {
		switch {
		case c == ' ':
			fields++
		case fields == 3 && c >= '0' && c <= '9':
			n = 10*n + int(c-'0')
		case fields == 3:
			return n
		}
	}
	return 0
}
