package netsim

import (
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"
)

// Body is a process's program, run as a coroutine of the engine: a call that blocks suspends
// it until the event that satisfies it. Its error ends the process.
type Body func(p *Proc) error

// Stepper is a process written as an explicit state machine, so that its state can be saved
// (a coroutine's stack cannot): Step runs from where it stopped, at one instant, until it
// must wait (it arranges its own wake-up with ResumeAt, LimitAt or a condition) or is done.
type Stepper interface {
	Step(p *Proc) (done bool, err error)
}

// State is where a process is.
type State uint8

const (
	// Idle: not started in this run.
	Idle State = iota
	// Waiting: started and not ended (running, or suspended in a wait).
	Waiting
	// Done: its program returned.
	Done
	// Failed: its program returned an error.
	Failed
)

// Why says what a process waits for. It is a format and up to three integers, formatted
// only when a hang or a wait limit is reported, so that a wait costs no allocation.
type Why struct {
	Format string
	Args   [3]int64
	N      uint8 // arguments used
	Times  uint8 // bit i: Args[i] is a Time
	// Of, when set, says it instead (a system's own description of a wait it keeps).
	Of fmt.Stringer
}

// Because makes a Why of format and integer arguments (at most three).
func Because(format string, a ...int64) Why {
	w := Why{Format: format}
	w.N = uint8(copy(w.Args[:], a))
	return w
}

// Time marks argument i as a Time (formatted as one).
func (w Why) Time(i int) Why {
	w.Times |= 1 << i
	return w
}

func (w Why) String() string {
	if w.Of != nil {
		return w.Of.String()
	}
	if w.N == 0 {
		return w.Format
	}
	a := make([]any, w.N)
	for i := range a {
		if w.Times&(1<<i) != 0 {
			a[i] = Time(w.Args[i])
		} else {
			a[i] = w.Args[i]
		}
	}
	return fmt.Sprintf(w.Format, a...)
}

// Kinds of a process's events (the low two bits of the event's argument; a generation above).
const (
	evResume = iota // resume if what it waits for has come
	evCheck         // look at the wait (a sleep's end): resume at once if it is over
	evLimit         // the wait's limit (of the generation) has passed
	evAt            // resume now (if the generation still counts)
)

// Proc is a process on the simulated machine: a coroutine body or a Stepper, and what it
// waits for. A system holds one per program it runs (a rank, a task, a host) and keeps its
// own typed calls, built on Wait, WaitLimit, Sleep, Suspend and ResumeAt.
type Proc struct {
	m *Machine
	// Name names it in reports ("rank 3").
	Name string
	// FailFormat wraps its program's error when that fails the machine (default "%w").
	FailFormat string
	// Hold, when set, keeps it from being resumed while it holds, even past a limit (a CPU
	// whose kernel is busy).
	Hold func() bool

	body Body
	step Stepper
	keys *Keys // its events' keys (SetKeys), or nil: the engine's order of scheduling (At)

	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool

	state    State
	cond     func() bool // what it waits for (nil: nothing, or a sleep's end)
	until    Time        // a sleep's end (with sleeping)
	sleeping bool
	why      Why
	since    Time
	woken    bool   // an evResume event is scheduled
	gen      uint64 // limits and ResumeAt of older generations are stale
	timedOut bool
	end      Time
	err      error
}

// abandoned unwinds a coroutine the run gave up on (it waited for what never came).
type abandoned struct{}

// exit unwinds a coroutine that ends with an error (Exit).
type exit struct{ error }

// never is the condition of a wait that only ResumeAt ends.
func never() bool { return false }

// Machine is the engine and the processes on it: it stops on the first failure and reports a
// hang one way. Several machines may share one engine (a node's host inside a cluster).
type Machine struct {
	eng   *Engine
	procs []*Proc
	err   error
	live  int // processes started and not ended
	// ContinueOnError lets a process's error end only that process (it is then reported by
	// the system, as MBCF's task errors are); else it fails the machine.
	ContinueOnError bool
}

// ErrHang is wrapped by the error of a run whose processes wait for what never comes.
var ErrHang = errors.New("programs wait for what never comes")

// NewMachine makes a machine on eng (a new engine if nil).
func NewMachine(eng *Engine) *Machine {
	if eng == nil {
		eng = &Engine{}
	}
	return &Machine{eng: eng}
}

// Engine is the event engine.
func (m *Machine) Engine() *Engine { return m.eng }

// Now is the simulated time.
func (m *Machine) Now() Time { return m.eng.Now() }

// Err is the failure that stopped the machine, if any.
func (m *Machine) Err() error { return m.err }

// Fail records the first failure and stops the engine.
func (m *Machine) Fail(err error) {
	if m.err == nil {
		m.err = err
	}
	m.eng.Stop()
}

// ClearErr forgets the failure (a machine reused after a failed run).
func (m *Machine) ClearErr() { m.err = nil }

// Live is the number of processes started and not ended.
func (m *Machine) Live() int { return m.live }

// NewProc makes a process of the machine, named name, not started.
func (m *Machine) NewProc(name string) *Proc {
	p := &Proc{m: m, Name: name}
	m.procs = append(m.procs, p)
	return p
}

// Drain runs every event (until none is left or a failure) and returns the failure, or the
// hang of processes still waiting.
func (m *Machine) Drain() error {
	m.eng.Run(Never)
	if m.err != nil {
		return m.err
	}
	return m.Hang()
}

// Run runs until every started process has ended, the next event is after until, or a
// failure; it runs the engine in slices of one instant, so that a finished machine stops at
// its last process's end even with stale events pending. Processes still waiting when
// nothing is left to happen are a hang.
func (m *Machine) Run(until Time) error {
	for m.err == nil && m.live > 0 {
		next := m.eng.NextAt()
		if next == Never || next > until {
			break
		}
		m.eng.Run(min(until, next))
	}
	if m.err != nil {
		return m.err
	}
	if m.live > 0 && m.eng.NextAt() == Never {
		return m.Hang()
	}
	return nil
}

// Hang is nil when no started process is waiting; else an error wrapping ErrHang that names
// each waiting process (the first eight, sorted), what it waits for and since when.
func (m *Machine) Hang() error { return Hang(m) }

// Hang is Machine.Hang of the machines of one model, each on its own engine (the parts of a
// Parts): one report, the processes of all of them sorted together, at the latest time any
// of the engines has run to (a serial engine's now).
func Hang(ms ...*Machine) error {
	var waiting []string
	started := 0
	var now Time
	for _, m := range ms {
		now = max(now, m.eng.Now())
		for _, p := range m.procs {
			if p.state == Idle {
				continue
			}
			started++
			if p.state == Waiting {
				waiting = append(waiting, fmt.Sprintf("%s in %s since %v", p.Name, p.Waiting(), p.since))
			}
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	sort.Strings(waiting)
	shown := waiting
	if len(shown) > 8 {
		shown = append(shown[:8:8], fmt.Sprintf("and %d more", len(waiting)-8))
	}
	return fmt.Errorf("%w at %v: %d of %d waiting: %s", ErrHang, now, len(waiting), started, strings.Join(shown, "; "))
}

// Abandon ends the coroutines left waiting (after a run that hung or failed) and makes every
// process idle for the next run.
func (m *Machine) Abandon() {
	for _, p := range m.procs {
		p.Abandon()
	}
}

// Start runs body from at.
func (p *Proc) Start(at Time, body Body) {
	p.begin(at, body, nil)
}

// StartStepper makes s the process's program; the caller arranges its first Step (ResumeAt).
func (p *Proc) StartStepper(s Stepper) {
	p.begin(0, nil, s)
}

func (p *Proc) begin(at Time, body Body, s Stepper) {
	if p.state == Waiting && p.stop != nil {
		p.stop()
	}
	if p.state != Waiting {
		p.m.live++
	}
	p.body, p.step, p.next, p.stop, p.yield = body, s, nil, nil, nil
	p.state, p.err, p.cond, p.sleeping, p.timedOut = Waiting, nil, nil, false, false
	p.why, p.since = Because("its start"), p.m.eng.Now()
	if s != nil {
		return
	}
	p.woken = true
	p.at(at, evResume)
}

// SetKeys makes the process's events keyed (Engine.AtKey) with keys, which it may share with
// the rest of its component (a rank and its NIC): their order among the events of one
// instant is then the component's own, on any part of a Parts.
func (p *Proc) SetKeys(keys *Keys) { p.keys = keys }

// at schedules the process's event arg at t.
func (p *Proc) at(t Time, arg int64) {
	if p.keys != nil {
		p.m.eng.AtKey(t, p.keys.Next(), p, arg)
		return
	}
	p.m.eng.At(t, p, arg)
}

// coroutine makes the body's coroutine. It is made when the body first runs, inside the
// engine's run: a coroutine must be entered with the OS-thread locking it was made with.
func (p *Proc) coroutine() {
	body := p.body
	seq := func(yield func(struct{}) bool) {
		p.yield = yield
		var err error
		defer func() {
			switch x := recover().(type) {
			case nil:
			case abandoned:
				return
			case exit:
				err = x.error
			default:
				panic(x)
			}
			p.finish(err)
		}()
		err = body(p)
	}
	p.next, p.stop = iter.Pull(seq)
}

// finish ends the process with err.
func (p *Proc) finish(err error) {
	p.end, p.cond, p.sleeping = p.m.eng.Now(), nil, false
	p.m.live--
	if err == nil {
		p.state = Done
		return
	}
	p.state, p.err = Failed, err
	if !p.m.ContinueOnError {
		f := p.FailFormat
		if f == "" {
			f = "%w"
		}
		p.m.Fail(fmt.Errorf(f, err))
	}
}

// State is where the process is; End when it ended; Err its program's error.
func (p *Proc) State() State      { return p.state }
func (p *Proc) End() Time         { return p.end }
func (p *Proc) Err() error        { return p.err }
func (p *Proc) Machine() *Machine { return p.m }

// Now is the simulated time.
func (p *Proc) Now() Time { return p.m.eng.Now() }

// Waiting says what the process waits for ("" unless it is waiting).
func (p *Proc) Waiting() string {
	if p.state != Waiting {
		return ""
	}
	return p.why.String()
}

// Since is when its present wait began.
func (p *Proc) Since() Time { return p.since }

// TimedOut reports whether the limit of the present wait has passed (for a Stepper).
func (p *Proc) TimedOut() bool { return p.timedOut }

// Abandon ends a coroutine left waiting and makes the process idle.
func (p *Proc) Abandon() {
	if p.state == Waiting {
		p.m.live--
		if p.stop != nil {
			p.stop()
		}
	}
	p.state, p.next, p.stop, p.yield, p.woken = Idle, nil, nil, nil, false
	p.gen++
}

// Exit ends the coroutine at once with err (a bad call): it unwinds the body.
func (p *Proc) Exit(err error) {
	panic(exit{err})
}

func (p *Proc) ready() bool {
	if p.sleeping {
		return p.m.eng.Now() >= p.until
	}
	return p.cond == nil || p.cond()
}

func (p *Proc) held() bool { return p.Hold != nil && p.Hold() }

// Fire implements Handler.
func (p *Proc) Fire(now Time, arg int64) {
	gen := uint64(arg >> 2)
	switch arg & 3 {
	case evResume:
		p.woken = false
		if p.state != Waiting || p.held() || !p.timedOut && !p.ready() {
			return
		}
	case evCheck:
		p.Wake(now)
		return
	case evLimit:
		if gen != p.gen || p.state != Waiting {
			return
		}
		p.timedOut = true
		if p.step == nil {
			p.Wake(now)
			return
		}
	case evAt:
		if gen != p.gen || p.state != Waiting {
			return
		}
	}
	p.resume()
}

// resume runs the program until it waits again or ends.
func (p *Proc) resume() {
	if p.step != nil {
		done, err := p.step.Step(p)
		if done || err != nil {
			p.gen++
			p.finish(err)
		}
		return
	}
	if p.next == nil {
		p.coroutine()
	}
	p.next()
}

// Wake resumes the process at now if what it waits for has come (or its limit has passed)
// and nothing holds it: the call a system makes when something it may wait for happens.
func (p *Proc) Wake(now Time) {
	if p.woken || p.state != Waiting || p.held() || !p.timedOut && !p.ready() {
		return
	}
	p.woken = true
	p.at(now, evResume)
}

// suspend yields the coroutine; a run that gives up on it unwinds it.
func (p *Proc) suspend() {
	if !p.yield(struct{}{}) {
		panic(abandoned{})
	}
}

// Wait blocks the coroutine until cond holds (rechecked at each Wake) and nothing holds it.
func (p *Proc) Wait(why Why, cond func() bool) {
	if cond() && !p.held() {
		return
	}
	p.why, p.since = why, p.Now()
	for !cond() || p.held() {
		p.cond = cond
		p.suspend()
	}
	p.cond = nil
}

// WaitLimit is Wait for at most limit: it reports false when the limit passed first.
func (p *Proc) WaitLimit(limit Time, why Why, cond func() bool) bool {
	if cond() && !p.held() {
		return true
	}
	p.gen++
	p.timedOut = false
	p.at(p.Now()+limit, int64(p.gen<<2|evLimit))
	p.why, p.since = why, p.Now()
	ok := true
	for !cond() || p.held() {
		if p.timedOut {
			ok = false
			break
		}
		p.cond = cond
		p.suspend()
	}
	p.cond, p.timedOut = nil, false
	p.gen++
	return ok
}

// Sleep blocks the coroutine for d (nothing for d <= 0).
func (p *Proc) Sleep(d Time, why Why) {
	if d <= 0 {
		return
	}
	p.until, p.sleeping = p.Now()+d, true
	p.at(p.until, evCheck)
	p.why, p.since = why, p.Now()
	for p.Now() < p.until {
		p.suspend()
	}
	p.sleeping = false
}

// Suspend blocks the coroutine until a ResumeAt of its generation fires.
func (p *Proc) Suspend(why Why) {
	p.why, p.since, p.cond = why, p.Now(), never
	p.suspend()
	p.cond = nil
}

// WakeAt replaces any earlier plan to resume the process (ResumeAt, LimitAt) by one at t.
func (p *Proc) WakeAt(t Time) {
	p.gen++
	p.ResumeAt(t)
}

// ResumeAt resumes the process at t, unless Rearm (or WakeAt) comes first.
func (p *Proc) ResumeAt(t Time) { p.at(t, int64(p.gen<<2|evAt)) }

// LimitAt ends the present wait at t with its limit passed (TimedOut), unless Rearm comes
// first.
func (p *Proc) LimitAt(t Time) { p.at(t, int64(p.gen<<2|evLimit)) }

// Rearm makes every ResumeAt and LimitAt made so far stale, and clears TimedOut: a Stepper
// calls it when it starts a new wait.
func (p *Proc) Rearm() {
	p.gen++
	p.timedOut = false
}

// Generation is the present generation of ResumeAt and LimitAt.
func (p *Proc) Generation() uint64 { return p.gen }

// Await sets what a Stepper waits for, from now, for reports.
func (p *Proc) Await(why Why) { p.why, p.since = why, p.Now() }

// SetEnded records a Stepper's state restored from a checkpoint: started (or not), ended at
// end (or not).
func (p *Proc) SetEnded(started, done bool, end Time) {
	if p.state == Waiting {
		p.m.live--
	}
	switch {
	case !started:
		p.state = Idle
	case done:
		p.state, p.end = Done, end
	default:
		p.state = Waiting
		p.m.live++
	}
}
