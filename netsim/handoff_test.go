package netsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every advance is seen, whether the waiter polls or sleeps, and whether the other side
// advances before the wait, within a poll, or after the poll has run out.
func TestSignalSeesEveryAdvance(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		var s signal
		s.init()
		s.look = func() bool { return crowded }
		w := uint64(0)
		for _, after := range []time.Duration{-1, 0, 20 * time.Microsecond, 200 * time.Microsecond, 3 * spinFor} {
			w++
			if after < 0 {
				s.advance()
			} else {
				go func() {
					time.Sleep(after)
					s.advance()
				}()
			}
			s.wait(w, true)
			require.Equal(t, w, s.n.Load(), "crowded %v, advance after %v", crowded, after)
		}
		// Two advances before a wait leave one token: the next wait still waits for its own.
		s.advance()
		s.advance()
		s.wait(w+2, true)
		go func() {
			time.Sleep(time.Millisecond)
			s.advance()
		}()
		s.wait(w+3, true)
		require.Equal(t, w+3, s.n.Load())
	}
}

// A waiter that finds more threads runnable than cores at two looks in a row sleeps at once,
// leaving its core to them; on free cores it polls, looking every pollCheck, until the bound
// runs out; a crowd seen at one look only (the Go runtime's own threads) does not stop it.
func TestSignalPollsOnlyOnFreeCores(t *testing.T) {
	// The poll's bound is long and the advance comes within it, so that a machine busy with
	// other tests, which takes the poll's thread off its core for milliseconds, still sees
	// many looks.
	wait := func(crowd func(look int) bool) (looks int) {
		var s signal
		s.init()
		s.bound = time.Second
		s.look = func() bool { looks++; return crowd(looks) }
		go func() {
			time.Sleep(100 * pollCheck)
			s.advance()
		}()
		s.wait(1, true)
		require.Equal(t, uint64(1), s.n.Load())
		return looks
	}
	require.Equal(t, 2, wait(func(int) bool { return true }),
		"crowded: a look before the poll, a second one pollCheck into it, then sleep")
	require.Greater(t, wait(func(int) bool { return false }), 10,
		"free cores: a look every pollCheck until the advance")
	require.Greater(t, wait(func(look int) bool { return look == 3 }), 10,
		"a crowd at one look stopped the poll")
}

func TestRunnableFromLoadavg(t *testing.T) {
	for line, want := range map[string]int{
		"1.27 1.28 1.46 3/87 391\n":      3,
		"0.00 0.01 0.05 12/1345 99999\n": 12,
		"1.27 1.28 1.46\n":               0,
		"":                               0,
	} {
		require.Equal(t, want, runnable([]byte(line)), "%q", line)
	}
}
