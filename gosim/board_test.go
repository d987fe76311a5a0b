package gosim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/hw"
)

// The SO-DIMM returns reads in order, ReadLatency cycles after it took them, and stops being
// ready when MaxOutstanding reads are in flight.
func TestSODIMMLatencyOrderAndLimit(t *testing.T) {
	s := NewSODIMM(SODIMMParams{ReadLatency: 5, MaxOutstanding: 2}, NewRand(1))
	require.NoError(t, s.Write(0x100, []byte("0123456789abcdefFEDCBA9876543210")))
	var got []uint64
	var at []uint64
	for cycle := uint64(0); cycle < 20; cycle++ {
		var p Pins
		s.Drive(&p, cycle)
		if p.MemRValid != 0 {
			got = append(got, p.MemRData[0])
			at = append(at, cycle)
		}
		if cycle < 3 {
			require.Equal(t, cycle < 2, p.MemReady != 0, "cycle %d: ready only below the limit", cycle)
			p.MemValid, p.MemAddr = 1, 0x100+16*uint32(cycle)
			s.Observe(&p, cycle)
		}
	}
	require.Equal(t, []uint64{5, 6}, at, "two reads taken at cycles 0 and 1, back after 5 cycles")
	require.Equal(t, []uint64{getWord([]byte("0123456789abcdef"))[0], getWord([]byte("FEDCBA9876543210"))[0]}, got)
	require.Error(t, s.Read(hw.MemBytes-8, make([]byte, 16)), "backdoor reads stop at the end of memory")
	require.Error(t, s.Write(hw.MemBytes, []byte{1}))
}

// The source holds a beat until it is taken, idles only between beats, and refuses messages
// it cannot carry.
func TestSourceHoldsBeatUntilTaken(t *testing.T) {
	src := NewSource(50, NewRand(3))
	require.Error(t, src.Push(nil))
	require.Error(t, src.Push(make([]byte, MaxMessage+1)))
	msg := make([]byte, 40)
	for i := range msg {
		msg[i] = byte(i)
	}
	require.NoError(t, src.Push(msg))
	var beats [][2]uint64
	shown := false
	var last [2]uint64
	for cycle := 0; cycle < 200 && src.Pending() > 0; cycle++ {
		var p Pins
		src.Drive(&p)
		if shown {
			require.EqualValues(t, 1, p.MsgValid, "a shown beat stays valid until taken")
			require.Equal(t, last, p.MsgData)
		}
		p.MsgReady = uint8(cycle % 3 / 2) // taken every third cycle
		if p.MsgValid != 0 {
			shown, last = p.MsgReady == 0, p.MsgData
			if p.MsgReady != 0 {
				beats = append(beats, p.MsgData)
				if p.MsgLast != 0 {
					require.Equal(t, uint16(0xff), p.MsgKeep, "8 bytes in the last beat")
				}
			}
		}
		src.Observe(&p)
	}
	require.Len(t, beats, 3)
	require.Equal(t, getWord(msg[16:32]), beats[1])
	require.EqualValues(t, 1, src.Messages)
}

// A host read answers exactly two cycles after its request, on both cores.
func TestBoardHostReadLatency(t *testing.T) {
	m, err := NewModel(DefaultParams)
	require.NoError(t, err)
	b := NewBoard(m, BoardConfig{})
	var req, rsp uint64
	b.OnCycle(func(cycle uint64, p *Pins) {
		if p.HostValid != 0 {
			req = cycle
		}
		if p.HostRValid != 0 {
			rsp = cycle
		}
	})
	v, err := b.ReadReg(hw.RegID)
	require.NoError(t, err)
	require.EqualValues(t, hw.ID, v)
	require.EqualValues(t, 2, rsp-req)
	require.Error(t, b.WriteBlock(0xffffc, make([]byte, 8)), "a block past the end of the bus")
}
