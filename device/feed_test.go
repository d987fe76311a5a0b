package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim/tlm"
	"github.com/lhsim/lhsim/hw"
)

// Feed's host gives back each split message's tail units with the write after its entry's
// release, so the benchmark workload runs through a tail ring far smaller than its tails:
// 4 KiB, wrapped dozens of times, and 256 bytes, where messages wait for the releases. The
// RTL and the Go model, on both bridges, take the cycles the transaction-level model's Feed
// takes and end with the ring empty.
func TestFeedReleasesTail(t *testing.T) {
	const nmsgs, batch = 3000, 500
	msgs := rx.WorkloadMessages(nmsgs, 1)
	for _, ring := range []uint32{4096, 256} {
		cfg := tlm.DefaultConfig()
		cfg.TailSize = ring
		n, err := tlm.New(cfg)
		require.NoError(t, err)
		want, err := n.Feed(0, msgs)
		require.NoError(t, err)
		st := n.Status()
		require.Zero(t, st.TailUsed)
		var units uint64
		for _, m := range msgs {
			if size := uint32(len(m)); size > hw.InlineMax {
				units += uint64(hw.TailUnits(size, cfg.SplitPos))
			}
		}
		require.Greater(t, units, uint64(8*ring/16), "the tails fill the ring many times over")
		if ring == 256 {
			require.Positive(t, st.RingWaits, "messages wait for the tail releases")
		}

		for _, dc := range []device.Config{
			{Model: device.RTL, Bridge: device.Cgo},
			{Model: device.Go, Bridge: device.Cgo},
			{Model: device.RTL, Bridge: device.Plugin},
		} {
			dev, err := device.Open(dc)
			require.NoError(t, err)
			require.NoError(t, dev.WriteReg(hw.RegTailSize, ring))
			require.NoError(t, dev.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn))
			require.NoError(t, dev.Feed(nil, false, 1))
			start := dev.Cycle()
			require.NoError(t, dev.FeedAll(nmsgs/batch, func(k int) [][]byte {
				return msgs[k*batch : (k+1)*batch]
			}, 100_000), "ring %d, %s/%s", ring, dc.Model, dc.Bridge)
			require.Equal(t, want, dev.Cycle()-start, "ring %d, %s/%s", ring, dc.Model, dc.Bridge)
			for reg, v := range map[uint32]uint32{hw.RegTailUsed: 0, hw.RegTailWptr: st.TailWptr, hw.RegErr: 0,
				hw.RegLHCons: nmsgs} {
				got, err := dev.ReadReg(reg)
				require.NoError(t, err)
				require.Equal(t, v, got, "register %#x, ring %d, %s/%s", reg, ring, dc.Model, dc.Bridge)
			}
			require.NoError(t, dev.Close())
		}
	}
}
