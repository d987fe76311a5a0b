package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
)

// PostSend makes a message's packets as they go: a 4 MiB message leaves one event pending,
// not 4,229; and it lands when the same message by Rank.Send lands, to the picosecond.
func TestPostSendPacedAsSend(t *testing.T) {
	const size = 4 << 20
	c := newCluster(t, "crossbar:4", DefaultConfig())
	var viaSend netsim.Time
	_, err := c.Run(2, func(r *Rank) {
		if r.ID() == 0 {
			r.Send(1, 3, size)
		} else {
			r.Recv(0, 3)
			viaSend = r.Now()
		}
	})
	require.NoError(t, err)

	c = newCluster(t, "crossbar:4", DefaultConfig())
	eng := c.Engine()
	start := eng.Now() + c.Config().NodeLatency // Send posts after the node latency
	var landed netsim.Time
	calls := 0
	require.NoError(t, c.PostSend(start, 0, 1, size, 3, func(t netsim.Time) { landed, calls = t, calls+1 }))
	require.Equal(t, 1, eng.Pending(), "one packet event at a time")
	eng.Run(netsim.Never)
	require.NoError(t, c.Err())
	require.Equal(t, 1, calls)
	require.Equal(t, viaSend, landed)

	// A 0-byte message is a header alone, and arrives.
	calls = 0
	require.NoError(t, c.PostSend(eng.Now(), 1, 0, 0, 0, func(netsim.Time) { calls++ }))
	eng.Run(netsim.Never)
	require.Equal(t, 1, calls)
	require.Error(t, c.PostSend(eng.Now(), 1, 1, 8, 0, func(netsim.Time) {}), "a node does not send to itself")
}

// A sender whose DMA reads faster than its link drains waits for its NIC instead of
// queueing packets (issue 37, class 3): a 1 TiB message holds at most txQueuePackets packets
// at the NIC however long it runs (before, the queue grew by a packet every few hundred ns,
// 12 MB per GiB sent), and the link stays as busy as before: the packets arrive at the
// link's pace.
func TestPostSendDMAWaitsForTheNIC(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DMABandwidth = 40 // ten times the 4 GB/s link
	c := newCluster(t, "crossbar:2", cfg)
	eng := c.Engine()
	require.NoError(t, c.PostSend(0, 0, 1, 1<<40, 3, func(netsim.Time) {}))
	var told []netsim.Time
	c.OnProgress(func(now netsim.Time) { told = append(told, now) })
	var delivered []uint64
	for i := 1; i <= 4; i++ {
		eng.Run(netsim.Time(i) * 100 * netsim.Microsecond)
		require.NoError(t, c.Err())
		require.LessOrEqual(t, c.net.Queued(0), txQueuePackets, "at %d00 µs", i)
		require.LessOrEqual(t, eng.Pending(), 8, "at %d00 µs", i)
		delivered = append(delivered, c.net.Stats().Delivered)
	}
	// The link's pace: 1024-byte packets at 4 GB/s are 256 ns each, 390 per 100 µs; the
	// credit round trip of a one-packet buffer slows it, never the DMA.
	for i := 1; i < len(delivered); i++ {
		got := delivered[i] - delivered[i-1]
		require.InDelta(t, float64(delivered[1]-delivered[0]), float64(got), 2, "steady pace")
		require.LessOrEqual(t, got, uint64(391))
	}
	// A long run tells how far it has gone in simulated time: every 65,536 packets.
	fired := eng.Fired()
	eng.Run(40 * netsim.Millisecond)
	require.NoError(t, c.Err())
	require.Len(t, told, int(c.packetsRead()/progressPackets))
	require.NotEmpty(t, told)
	for i := 1; i < len(told); i++ {
		require.Greater(t, told[i], told[i-1])
	}
	require.LessOrEqual(t, c.net.Queued(0), txQueuePackets)
	require.Greater(t, eng.Fired(), fired)
}

// The read engine is one FIFO: a message posted behind one whose DMA waits for the NIC is
// read after it, not at the time the first was booked to end at the DMA's full rate (which
// read two messages at once while the first waited).
func TestPostSendReadsInTurnWhileWaiting(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DMABandwidth = 40
	c := newCluster(t, "crossbar:3", cfg)
	eng := c.Engine()
	var big, small netsim.Time
	require.NoError(t, c.PostSend(0, 0, 1, 4<<20, 1, func(t netsim.Time) { big = t }))
	require.NoError(t, c.PostSend(0, 0, 2, 1024, 2, func(t netsim.Time) { small = t }))
	eng.Run(netsim.Never)
	require.NoError(t, c.Err())
	require.Positive(t, big)
	// The 4 MiB leave at the link's pace (over a millisecond), and the small message's read
	// starts after their last read, a few packets before the last of them leaves.
	require.Greater(t, big, netsim.Millisecond)
	require.Greater(t, small, big-5*netsim.Microsecond, "big lands at %v, small at %v", big, small)
}
