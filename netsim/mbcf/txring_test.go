package mbcf

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/ether"
)

// TestTxRingDepth: a transmit ring lets the adapter take the next frame as soon as the last
// has left, instead of after the transmit-complete interrupt. The preset sends one frame at a
// time (0 and 1 the same); any ring from 2 up is the same on the paper's burst, since the
// kernel hands frames over no faster than the wire takes them; and the ring is faster, by the
// transmit-complete and its interrupt it takes off each frame's cycle. Round trips do not
// change: one frame at a time is all they have.
func TestTxRingDepth(t *testing.T) {
	rate := func(ring, n int) float64 {
		cfg := FastEthernet()
		cfg.Adapter.TxRing = ring
		r, err := Stream(cfg, n, 160, 16, 1, ether.Faults{})
		require.NoError(t, err)
		require.Zero(t, r.Stats.Retransmitted, "a clean link")
		return r.MBps()
	}
	for _, n := range []int{4, 64, 1024} {
		one := rate(0, n)
		require.Equal(t, one, rate(1, n), "%d bytes: a ring of 1 is one at a time", n)
		two := rate(2, n)
		require.Equal(t, two, rate(64, n), "%d bytes: any ring from 2 is the same", n)
		require.Greater(t, two, one, "%d bytes: the ring overlaps the per-frame cost", n)
	}
	// 64 bytes, the paper's 4.03 MB/s: one frame at a time leaves it 18 % short.
	require.InDelta(t, 3.3, rate(1, 64), 0.05)
	require.InDelta(t, 4.13, rate(64, 64), 0.05)

	rtt := func(ring int) float64 {
		cfg := FastEthernet()
		cfg.Adapter.TxRing = ring
		d, err := RoundTrip(cfg, OpWrite, 64, 3, ether.Faults{})
		require.NoError(t, err)
		return d.Microseconds()
	}
	require.Equal(t, rtt(1), rtt(64))
}
