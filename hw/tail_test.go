package hw_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/hw"
)

// What a message reserves in the tail ring, by the rule of docs/design.md.
func TestReserved(t *testing.T) {
	const ring = hw.TailSizeReset / 16
	cases := []struct {
		size     uint32
		lhs      bool
		maxMsg   uint32
		ring     uint32
		reserved uint32
	}{
		{56, true, hw.MaxMsgReset, ring, 0},     // inline
		{57, true, hw.MaxMsgReset, ring, 1},     // split at 48: 9 tail bytes
		{200, true, hw.MaxMsgReset, ring, 10},   // 152 tail bytes
		{200, true, 199, ring, 0},               // over MAX_MSG
		{200, true, hw.MaxMsgReset, 9, 0},       // could never fit the ring
		{0, false, hw.MaxMsgReset, ring, 1},     // LHS off: a size of 0 still takes a unit
		{200, false, hw.MaxMsgReset, ring, 13},  // the whole message
		{70000, false, hw.MaxMsgReset, ring, 0}, // dropped whole
		{hw.MaxMsgReset, true, hw.MaxMsgReset, ring, 4093},
	}
	for _, c := range cases {
		require.Equal(t, c.reserved, hw.Reserved(c.size, c.lhs, hw.SplitPosReset, c.maxMsg, c.ring), "%+v", c)
	}
}
