package goal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

const pingPong = `
# a ping-pong and a computation
num_ranks 3
rank 0 {
  l1: send 64b to 1 tag 7
  l2: recv 64b from 1 tag 8   // the answer
  l3: calc 250
  l3 requires l2
}
rank 1 {
  a: recv 64b from -1 tag -1
  b: send 64b to 0 tag 8
  b requires a
}
rank 2 {
}
`

func run(t *testing.T, s *Schedule, nl netsim.Time) cluster.Result {
	t.Helper()
	tp, err := fabric.ParseTopology("crossbar:4")
	require.NoError(t, err)
	cfg := cluster.DefaultConfig()
	cfg.NodeLatency = nl
	c, err := cluster.Build(tp, fabric.DefaultConfig(), cfg)
	require.NoError(t, err)
	res, err := c.Run(len(s.Ranks), s.Program())
	require.NoError(t, err)
	return res
}

// A parsed ping-pong runs on the machine: the answer comes back after two one-way trips, and
// the computation follows it.
func TestPingPong(t *testing.T) {
	s, err := Parse(strings.NewReader(pingPong))
	require.NoError(t, err)
	require.Len(t, s.Ranks, 3)
	require.Equal(t, Op{Label: "a", Kind: Recv, Bytes: 64, Peer: -1, Tag: -1, Line: 11}, s.Ranks[1][0])
	res := run(t, s, netsim.Microsecond)
	require.Greater(t, res.Finished[0], 2*netsim.Microsecond, "two node latencies at least")
	require.Equal(t, res.Finished[0], res.End)
	// Without the final calc, rank 0 ends 250 ns earlier.
	s.Ranks[0] = s.Ranks[0][:2]
	require.Equal(t, 250*netsim.Nanosecond, res.End-run(t, s, netsim.Microsecond).End)
}

// What is outside the subset, or wrong, is refused with its line.
func TestParseErrors(t *testing.T) {
	cases := []struct{ text, says string }{
		{"rank 0 {\n}", "rank before num_ranks"},
		{"num_ranks 2\nrank 2 {\n}", "0 <= R < 2"},
		{"num_ranks 2\nrank 0 {\nl1: send 8b to 5 tag 0\n}", "send to rank 5"},
		{"num_ranks 2\nrank 0 {\nl1: send 0b to 1 tag 0\n}", "0 bytes"},
		{"num_ranks 2\nrank 0 {\nl1: put 8b to 1 tag 0\n}", `unknown operation "put"`},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\nl2: calc 6\nl1 requires l2\n}", "comes later"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}", "defined twice"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\n", "not closed"},
		{"num_ranks 2\nrank 0 {\nl1: send 8 to 1 tag 0\n}", "want send SIZEb to RANK tag T"},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.text))
		require.Error(t, err, c.text)
		require.Contains(t, err.Error(), c.says, c.text)
	}
	_, err := Parse(strings.NewReader("num_ranks 2\nrank 0 {\nl1: calc x\n}"))
	require.ErrorContains(t, err, "line 3")
}
