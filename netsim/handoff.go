package netsim

// The hand-over between the parts' threads at a window's start and end. A thread that waits
// for the others first polls for a while, then sleeps: a window of a few thousand events
// lasts some hundreds of microseconds a part, and the parts finish within tens of
// microseconds of each other, about what waking a sleeping thread takes (channels between two
// threads locked to their own took 17.7 µs a window, two wake-ups, on the 2-core machine:
// BenchmarkPartsWindow before polling; docs/performance.md). Polling also keeps each part's
// goroutine on its own thread and core (with its caches) where the Go scheduler would move a
// goroutine it woke to wherever a thread was free.

import (
	"sync/atomic"
	"time"
)

// maxSpin bounds how long a wait polls before it sleeps; each waiter adapts its own bound
// (signal.spin) between none and this to the waits it met: a wait the bound would have
// covered doubles it, a wait past it halves it. On free cores the parts finish windows within
// a few hundred microseconds of each other and no thread sleeps; on a machine with no core
// free the other thread is often not running at all, the waits last milliseconds and the
// bound falls to none (then a wait costs what a channel costs, and no CPU is burnt).
const (
	maxSpin = time.Millisecond
	minSpin = 10 * time.Microsecond
)

// signal is a count that one side advances and another waits on. wake holds a token when the
// count moved while its waiter may have been asleep; a token is only a hint (the waiter looks
// at the count again), so a stale one costs a turn of the loop and none is ever lost: the
// count moves before the token is left.
type signal struct {
	n    atomic.Uint64
	wake chan struct{}
	spin time.Duration // the waiter's bound (its own: one waiter a signal)
}

func (s *signal) init() { s.wake, s.spin = make(chan struct{}, 1), maxSpin }

// advance moves the count on by one and wakes its waiter.
func (s *signal) advance() {
	s.n.Add(1)
	select {
	case s.wake <- struct{}{}:
	default: // a token is there already
	}
}

// wait returns once the count has reached target: polling first if spin, for the bound.
func (s *signal) wait(target uint64, spin bool) {
	if s.n.Load() >= target {
		return
	}
	t0 := time.Now()
	if spin && s.spin > 0 {
		for i := 1; ; i++ {
			if s.n.Load() >= target {
				return
			}
			if i%256 == 0 && time.Since(t0) > s.spin {
				break
			}
		}
	}
	for s.n.Load() < target {
		<-s.wake
	}
	switch waited := time.Since(t0); {
	case waited > s.spin:
		if s.spin /= 2; s.spin < minSpin {
			s.spin = 0
		}
	case waited <= maxSpin/2:
		s.spin = min(maxSpin, max(2*s.spin, minSpin))
	}
}
