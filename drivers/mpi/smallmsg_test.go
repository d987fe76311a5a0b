package mpi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/hw"
)

// Every message Send accepts is delivered whole, or Send refuses it with ErrSendTooLong and
// puts nothing on the wire: for every MAX_MSG around the envelope (16 bytes) and the inline
// limit (56), LHS on and off, and every body length from 0 to past the limit. With MAX_MSG
// under 16, no message fits (LHS off: the NIC would drop even an empty body's 16 bytes); with
// LHS on, a message of at most 56 bytes is stored whole in its LH entry whatever MAX_MSG says,
// so Send takes it.
func TestSendSmallMaxMsg(t *testing.T) {
	for _, lhs := range []bool{false, true} {
		for _, maxMsg := range []uint32{1, 8, 15, 16, 17, 40, 55, 56, 57, 64, 100} {
			t.Run(fmt.Sprintf("lhs=%v/max=%d", lhs, maxMsg), func(t *testing.T) {
				p := newPathCfg(t, drivers.Config{LHS: lhs, SizePos: 12, MaxMsg: maxMsg})
				limit := MaxMessage(p.h.Config())
				if lhs {
					require.GreaterOrEqual(t, limit, uint32(hw.InlineMax), "inline messages are stored whole")
				}
				s := Sender{Rank: 1, Net: p.dev, MaxMsg: limit}
				for n := 0; n <= int(max(limit, maxMsg))+8; n++ {
					msg := body(n, byte(n))
					if err := s.Send(int32(n), 0, msg); err != nil {
						require.ErrorIs(t, err, ErrSendTooLong, "%d-byte body", n)
						require.Greater(t, n+EnvelopeBytes, int(limit), "%d-byte body refused under the limit %d", n, limit)
						continue
					}
					p.settle(t)
					r, err := p.e.Irecv(Pattern{1, int32(n), 0})
					require.NoError(t, err, "%d-byte body", n)
					require.True(t, r.Done(), "%d-byte body accepted by Send and never delivered", n)
					require.NoError(t, r.Status().Err, "%d-byte body", n)
					require.Equal(t, msg, r.Data(), "%d-byte body", n)
				}
				require.Zero(t, p.e.Skipped(), "the receive path dropped a message Send accepted")
			})
		}
	}
}

// Envelope.Put on a buffer shorter than an envelope is an error and writes nothing.
func TestEnvelopePutShortBuffer(t *testing.T) {
	for n := range EnvelopeBytes {
		b := make([]byte, n)
		require.Error(t, Envelope{Source: 1, Tag: 2, Comm: 3, Size: 4}.Put(b), "%d bytes", n)
		require.Equal(t, make([]byte, n), b)
	}
	b := make([]byte, EnvelopeBytes)
	require.NoError(t, Envelope{Source: 1, Tag: 2, Comm: 3, Size: 16}.Put(b))
	e, err := ParseEnvelope(b)
	require.NoError(t, err)
	require.Equal(t, Envelope{Source: 1, Tag: 2, Comm: 3, Size: 16}, e)
}
