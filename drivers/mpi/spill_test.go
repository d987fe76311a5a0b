package mpi

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
)

// A full LH buffer holds the input off; the message a receive waits for comes in only once
// the host spills the oldest held messages to host memory. Those are then received whole
// (tails included) from host memory, in the order MPI's matching requires, and the spilled
// entries never go back to the NIC twice.
func TestSpillMakesRoomForTheWantedMessage(t *testing.T) {
	dev, err := device.Open(device.Config{Model: device.Go, Entries: 4})
	require.NoError(t, err)
	defer dev.Close()
	cpu, err := hostcpu.New(hostcpu.Pentium4())
	require.NoError(t, err)
	st, err := OpenStack(dev, cpu, drivers.Config{LHS: true, SizePos: 12})
	require.NoError(t, err)
	q, e := st.LHS, testEngine(st.Engine)

	sizes := []int{8, 200, 24, 900, 0, 60} // tags 0..5; 200 and 900 are split
	for tag, n := range sizes {
		require.NoError(t, Sender{Rank: 2, Net: dev}.Send(int32(tag), 0, body(n, byte(tag))))
	}
	require.ErrorIs(t, dev.RunUntilIdle(5000), gosim.ErrNotIdle, "four entries: the fifth message waits")
	r, err := e.Irecv(Pattern{2, 5, 0})
	require.NoError(t, err)
	require.False(t, r.Done())
	require.Equal(t, 4, q.Held())

	for !r.Done() {
		ok, err := q.Spill()
		require.NoError(t, err)
		require.True(t, ok, "the buffer holds messages to spill while the receive waits")
		require.NoError(t, dev.Run(200))
		require.NoError(t, e.Progress())
	}
	require.Equal(t, 2, q.Spilled, "the two oldest made room for tags 4 and 5")
	require.Equal(t, body(60, 5), r.Data())
	cons, err := dev.ReadReg(hw.RegLHCons)
	require.NoError(t, err)
	require.Equal(t, uint32(2), cons, "the spilled entries were released, and nothing else")

	// The rest, newest first: the spilled ones come from host memory, whole.
	for tag := 4; tag >= 0; tag-- {
		r, err := e.Irecv(Pattern{2, int32(tag), 0})
		require.NoError(t, err)
		require.True(t, r.Done(), "tag %d", tag)
		require.Equal(t, body(sizes[tag], byte(tag)), r.Data(), "tag %d", tag)
	}
	cons, err = dev.ReadReg(hw.RegLHCons)
	require.NoError(t, err)
	require.Equal(t, uint32(6), cons)
	used, err := dev.ReadReg(hw.RegTailUsed)
	require.NoError(t, err)
	require.Zero(t, used, "every tail released once")
	ok, err := q.Spill()
	require.NoError(t, err)
	require.False(t, ok, "nothing left to spill")
}
