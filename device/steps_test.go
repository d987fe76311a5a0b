package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/hw"
)

// stepper is what both bridges offer a network node.
type stepper interface {
	PostRead(addr uint32) error
	PostWrite(addr, val uint32) error
	Steps(max, settle int) (device.Steps, error)
	Inject(msg []byte) error
	ReadReg(addr uint32) (uint32, error)
	WriteReg(addr, val uint32) error
	Close() error
}

// Posted reads come back in a step's Reads, in the order they were posted, with the values a
// plain ReadReg sees; the step ends after the cycle that answered the last one, two cycles
// after it went out (host_rvalid), whatever else the device is doing. A posted write before a
// read is on the bus first. Same on both bridges.
func TestPostedReads(t *testing.T) {
	for _, dc := range []device.Config{{Model: device.RTL, Bridge: device.Cgo}, {Model: device.RTL, Bridge: device.Plugin}} {
		dev, err := device.Open(dc)
		require.NoError(t, err)
		d := dev.(stepper)
		require.NoError(t, d.PostWrite(hw.RegMaxMsg, 1000))
		for _, reg := range []uint32{hw.RegID, hw.RegMaxMsg, hw.RegLHProd} {
			require.NoError(t, d.PostRead(reg))
		}
		st, err := d.Steps(1000, 0)
		require.NoError(t, err)
		require.Equal(t, []uint32{hw.ID, 1000, 0}, st.Reads, "%s bridge", dc.Bridge)
		require.Equal(t, 6, st.Cycles, "%s bridge: the write, three reads a cycle apart, the last answered two cycles later", dc.Bridge)
		require.False(t, st.HostBusy, "%s bridge", dc.Bridge)

		// With a message streaming in: the answer still ends its step, and later steps
		// report no reads.
		require.NoError(t, d.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn))
		require.NoError(t, d.Inject(make([]byte, 200)))
		require.NoError(t, d.PostRead(hw.RegMsgCount))
		st, err = d.Steps(1000, 3)
		require.NoError(t, err)
		require.Equal(t, []uint32{0}, st.Reads, "%s bridge: MSG_COUNT before the message is in", dc.Bridge)
		require.Equal(t, 3, st.Cycles, "%s bridge", dc.Bridge)
		for st.Busy || st.Settle > 0 {
			st, err = d.Steps(1000, st.Settle)
			require.NoError(t, err)
			require.Empty(t, st.Reads)
		}
		n, err := d.ReadReg(hw.RegMsgCount)
		require.NoError(t, err)
		require.Equal(t, uint32(1), n, "%s bridge", dc.Bridge)
		require.Error(t, d.PostRead(3), "an unaligned address is refused")
		require.NoError(t, d.Close())
	}
}
