package netsim

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two coroutines hand a token over: a wait resumes at the instant its condition is met (by a
// Wake at that time), a sleep at its end, and the machine drains with both done.
func TestProcWaitSleepWake(t *testing.T) {
	m := NewMachine(nil)
	a, b := m.NewProc("a"), m.NewProc("b")
	token := false
	var got Time
	a.Start(0, func(p *Proc) error {
		p.Sleep(5*Nanosecond, Because("warm-up"))
		token = true
		b.Wake(p.Now())
		return nil
	})
	b.Start(0, func(p *Proc) error {
		p.Wait(Because("the token"), func() bool { return token })
		got = p.Now()
		return nil
	})
	require.NoError(t, m.Drain())
	require.Equal(t, 5*Nanosecond, got)
	require.Equal(t, Done, a.State())
	require.Equal(t, 5*Nanosecond, b.End())
	require.Zero(t, m.Live())
}

// A process that waits for what never comes is named in one report, with what it waits for
// (formatted from its Why) and since when; the others' count is the started processes.
func TestProcHangReport(t *testing.T) {
	m := NewMachine(nil)
	for i := range 3 {
		p := m.NewProc("rank " + string(rune('0'+i)))
		p.Start(0, func(p *Proc) error {
			if i == 1 {
				p.Sleep(2*Nanosecond, Because("Comp(%v)", int64(2*Nanosecond)).Time(0))
				p.Wait(Because("Recv(from %d, tag %d)", 0, 7), func() bool { return false })
			}
			return nil
		})
	}
	err := m.Drain()
	require.ErrorIs(t, err, ErrHang)
	require.EqualError(t, err, "programs wait for what never comes at 2.000 ns: 1 of 3 waiting: rank 1 in Recv(from 0, tag 7) since 2.000 ns")
	m.Abandon()
	require.Equal(t, Idle, m.procs[1].State())
	require.Zero(t, m.Live())
}

// A limited wait gives up at its limit; Hold keeps a process from resuming, even past the
// limit, until it is released and woken.
func TestProcLimitAndHold(t *testing.T) {
	m := NewMachine(nil)
	held := false
	p := m.NewProc("task")
	p.Hold = func() bool { return held }
	var ok bool
	var at Time
	p.Start(0, func(p *Proc) error {
		ok = p.WaitLimit(10*Nanosecond, Because("a flag"), func() bool { return false })
		at = p.Now()
		return errors.New("gave up")
	})
	m.ContinueOnError = true
	m.eng.At(3*Nanosecond, Func(func(Time, int64) { held = true }), 0)
	m.eng.At(25*Nanosecond, Func(func(now Time, _ int64) { held = false; p.Wake(now) }), 0)
	require.NoError(t, m.Drain(), "with ContinueOnError a process's error is its own")
	require.False(t, ok)
	require.Equal(t, 25*Nanosecond, at)
	require.Equal(t, Failed, p.State())
	require.EqualError(t, p.Err(), "gave up")
}

// A process's error fails the machine (wrapped by FailFormat) and stops the engine there;
// Exit unwinds a coroutine with an error from deep inside a call.
func TestProcFailStops(t *testing.T) {
	m := NewMachine(nil)
	p := m.NewProc("rank 0")
	p.FailFormat = "cluster: %w"
	p.Start(0, func(p *Proc) error {
		p.Sleep(Nanosecond, Because("a while"))
		p.Exit(errors.New("bad call"))
		return nil
	})
	m.eng.At(5*Nanosecond, Func(func(Time, int64) { t.Fatal("the engine ran past the failure") }), 0)
	require.EqualError(t, m.Drain(), "cluster: bad call")
	require.Equal(t, Nanosecond, m.Now())
}

type steps struct{ n int }

func (s *steps) Step(p *Proc) (bool, error) {
	if p.TimedOut() {
		return false, errors.New("limit")
	}
	s.n++
	if s.n == 3 {
		return true, nil
	}
	p.Rearm()
	p.LimitAt(p.Now() + 100*Nanosecond)
	p.ResumeAt(p.Now() + 10*Nanosecond)
	p.ResumeAt(p.Now() + 20*Nanosecond) // the same generation: the earlier one counts, this one finds the proc stepped on
	return false, nil
}

// A Stepper runs at each ResumeAt of its generation; Rearm makes older ones and their limits
// stale; Run stops at the last process's end.
func TestProcStepper(t *testing.T) {
	m := NewMachine(nil)
	p := m.NewProc("node 0")
	s := &steps{}
	p.StartStepper(s)
	p.ResumeAt(0)
	require.NoError(t, m.Run(Never))
	require.Equal(t, 3, s.n)
	require.Equal(t, 20*Nanosecond, p.End())
	require.Equal(t, Done, p.State())
}
