// Package netsim is the discrete-event engine and the processes that run on it (Proc, Machine).
package netsim

// netsim is the discrete-event engine the network of NICs runs on: simulated time in
// integer picoseconds, one event queue ordered by (time, sequence number), so that events at
// the same time run in the order they were scheduled and a run is the same bit for bit every
// time. Components schedule events for themselves; no goroutine runs per event or component.
//
// Programs run on it as processes (Proc: a coroutine or a Stepper) of a Machine, which stops
// on the first failure and reports a hang one way. Subpackages build on it: fabric (links,
// routers, topologies) and the systems (cluster, mbcf, lhsnic, ib).

import (
	"errors"
	"fmt"
	"math"
)

// Time is simulated time in picoseconds.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	// Never is later than any event.
	Never Time = math.MaxInt64
)

// NS converts nanoseconds (a parameter from a paper) to Time, rounded to the picosecond.
func NS(ns float64) Time { return Time(math.Round(ns * 1000)) }

// MaxInput is the longest time a user may give for one delay or one moment of a run: an hour.
// Simulated time ends at Never (about 106 days of picoseconds); an hour leaves room for a run
// to add a million such delays without passing it.
const MaxInput = 3600 * Second

// FromFloat converts v units (a number as the user typed it, in ns, µs, cycles) to Time,
// rounded to the picosecond, or says what is wrong with it: not a finite number, negative,
// past MaxInput, or not zero but rounding to 0 ps. The check comes before the conversion,
// so that no value wraps around.
func FromFloat(v float64, unit Time) (Time, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errors.New("not a finite number")
	case v < 0:
		return 0, errors.New("negative")
	case v == 0:
		return 0, nil
	case unit <= 0:
		return 0, fmt.Errorf("the unit is %d ps", unit)
	case v*float64(unit) > float64(MaxInput):
		return 0, errors.New("past an hour, the longest time a run takes as input")
	}
	t := Time(math.Round(v * float64(unit)))
	if t == 0 && v != 0 {
		return 0, errors.New("not zero but under half a picosecond, the simulator's step")
	}
	return t, nil
}

// Microseconds is t in microseconds, for reports.
func (t Time) Microseconds() float64 { return float64(t) / float64(Microsecond) }

// Nanoseconds is t in nanoseconds, for reports.
func (t Time) Nanoseconds() float64 { return float64(t) / float64(Nanosecond) }

func (t Time) String() string { return fmt.Sprintf("%.3f ns", t.Nanoseconds()) }

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
	seq uint64
	h   Handler
	arg int64
}

func (a *event) before(b *event) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// Engine runs events in time order. The zero value is ready to use.
type Engine struct {
	q     []event // a 4-ary min-heap on (at, seq): shallower than a binary one, fewer cache misses
	now   Time
	seq   uint64
	fired uint64
	stop  bool
}

// Now is the time of the event running (or of the last one run).
func (e *Engine) Now() Time { return e.now }

// Fired is the number of events run so far.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending is the number of events scheduled and not yet run.
func (e *Engine) Pending() int { return len(e.q) }

// At schedules h.Fire(at, arg). Scheduling in the past is a bug in the caller: it panics
// with the times, rather than let time run backwards.
func (e *Engine) At(at Time, h Handler, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("netsim: event scheduled at %v, before now (%v)", at, e.now))
	}
	e.seq++
	e.q = append(e.q, event{at: at, seq: e.seq, h: h, arg: arg})
	e.up(len(e.q) - 1)
}

// After schedules h.Fire(now+d, arg).
func (e *Engine) After(d Time, h Handler, arg int64) { e.At(e.now+d, h, arg) }

// Stop makes Run return after the event running.
func (e *Engine) Stop() { e.stop = true }

// Run runs events until none is left, Stop is called, or the next event is after until. It
// returns the number of events it ran.
func (e *Engine) Run(until Time) uint64 {
	e.stop = false
	start := e.fired
	for len(e.q) > 0 && !e.stop {
		ev := e.q[0]
		if ev.at > until {
			break
		}
		last := len(e.q) - 1
		e.q[0] = e.q[last]
		e.q[last] = event{}
		e.q = e.q[:last]
		if last > 0 {
			e.down(0)
		}
		e.now = ev.at
		e.fired++
		ev.h.Fire(ev.at, ev.arg)
	}
	return e.fired - start
}

// NextAt is the time of the next event, or Never.
func (e *Engine) NextAt() Time {
	if len(e.q) == 0 {
		return Never
	}
	return e.q[0].at
}

func (e *Engine) up(i int) {
	q := e.q
	for i > 0 {
		p := (i - 1) / 4
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (e *Engine) down(i int) {
	q := e.q
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
