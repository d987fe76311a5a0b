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
