package netsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A waiter whose other side keeps it waiting past the polling bound (another thread not
// running: a machine with no core free) stops polling within a few waits, so that it burns
// no CPU the other thread needs; every advance is seen, slept through or polled.
func TestSignalBoundFalls(t *testing.T) {
	var s signal
	s.init()
	require.Equal(t, maxSpin, s.spin)
	for w := uint64(1); w <= 8; w++ {
		go func() {
			time.Sleep(3 * time.Millisecond)
			s.advance()
		}()
		s.wait(w, true)
		require.Equal(t, w, s.n.Load())
	}
	require.Zero(t, s.spin, "still polling after 8 waits of 3 ms")
	// An advance made before the wait is seen at once, whatever tokens are left.
	s.advance()
	s.advance()
	s.wait(10, true)
	require.Equal(t, uint64(10), s.n.Load())
}
