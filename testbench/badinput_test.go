package testbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Bad input at the receive path's ports (docs/bad-input.md names these tests): each case
// ends the way docs/design.md says, on the Verilated RTL with the golden model in lockstep.

// fill is n bytes of b.
func fill(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// A TAIL_BASE or TAIL_SIZE write that is taken starts the ring over at its base: a write
// pointer left from the old ring would put the next tail outside the new one.
func TestTailRingResizedStartsOver(t *testing.T) {
	cases := []struct {
		name       string
		addr, val  uint32
		base, size uint32 // the ring afterwards
	}{
		{"TAIL_SIZE 256 to 64", hw.RegTailSize, 64, 0x2000, 64},
		{"TAIL_BASE to 0x3000", hw.RegTailBase, 0x3000, 0x3000, 256},
		{"TAIL_SIZE rewritten with its value", hw.RegTailSize, 256, 0x2000, 256},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 3}, drivers.Config{LHS: true, TailBase: 0x2000, TailSize: 256})
			rng := gosim.NewRand(4)
			// A 128-byte message splits at 48: 80 tail bytes, TAIL_WPTR = 80.
			require.NoError(t, d.dev.Inject(message(rng, 128, 128, 12)))
			require.NoError(t, d.dev.RunUntilIdle(10_000))
			require.EqualValues(t, 80, d.reg(t, hw.RegTailWptr))
			require.NoError(t, d.host.Consume(0))
			require.Zero(t, d.reg(t, hw.RegTailUsed))
			d.write(t, c.addr, c.val)
			require.Zero(t, d.reg(t, hw.RegErr), "the write is taken: both rings are empty")
			require.Equal(t, c.val, d.reg(t, c.addr))
			require.Zero(t, d.reg(t, hw.RegTailWptr), "the ring starts over at its base")

			// Memory around the new ring is marked; an 80-byte message's 32 tail bytes must
			// land at its base and nowhere else.
			require.NoError(t, d.dev.MemWrite(uint64(c.base), fill(0xaa, 0x100)))
			m := message(rng, 80, 80, 12)
			require.NoError(t, d.dev.Inject(m))
			require.NoError(t, d.dev.RunUntilIdle(10_000))
			e, err := d.host.ReadEntry(1)
			require.NoError(t, err)
			require.Equal(t, c.base, e.TailPtr)
			got := make([]byte, 0x100)
			require.NoError(t, d.dev.MemRead(uint64(c.base), got))
			require.Equal(t, m[48:], got[:32], "the tail at the ring's base")
			require.Equal(t, fill(0xaa, 0x100-32), got[32:], "nothing written past the tail")
			require.LessOrEqual(t, e.TailPtr+32, c.base+c.size, "inside the ring")
			require.NoError(t, d.host.Consume(1))
			require.Zero(t, d.reg(t, hw.RegTailUsed))
		})
	}
}

// An inline message that stops inside bytes 48..55: the entry's bytes from its end to 56 read
// 0, whatever the wire carried past tkeep (Source noise: never-zero bytes there).
func TestInlineBytesPastMessageReadZero(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 5, WireNoise: true}, drivers.Config{LHS: true})
	rng := gosim.NewRand(6)
	var msgs [][]byte
	for n := 33; n <= 56; n++ {
		msgs = append(msgs, message(rng, n, uint32(n), 12))
		require.NoError(t, d.dev.Inject(msgs[len(msgs)-1]))
	}
	require.NoError(t, d.dev.RunUntilIdle(100_000))
	for i, m := range msgs {
		e, err := d.host.ReadEntry(uint32(i))
		require.NoError(t, err)
		n := len(m)
		require.Equal(t, m, e.Raw[:n], "%d bytes: the message", n)
		end := min((n-1)/16*16+16, hw.InlineMax) // the end of the last word it wrote, or of its data
		require.Equal(t, make([]byte, end-n), e.Raw[n:end], "%d bytes: past its end in its last word", n)
		require.Equal(t, make([]byte, 56-max(n, 48)), e.Raw[max(n, 48):56], "%d bytes: bytes 48..55 it did not reach", n)
		require.Zero(t, e.Flags, "%d bytes", n)
	}
	require.Zero(t, d.reg(t, hw.RegErr))
}

// The last 16-byte unit of a tail (or of a whole message with LHS off) holds 0 past the
// message's end, not what the wire carried past tkeep; reserved units the message did not reach
// keep what they held.
func TestTailLastUnitPastMessageReadsZero(t *testing.T) {
	cases := []struct {
		name       string
		lhs        bool
		n          int    // bytes delivered
		field      uint32 // size field
		start, end int    // the written bytes in the ring: [start, end) of message bytes
		units      int    // units reserved
	}{
		{"split, 100 bytes", true, 100, 100, 48, 100, 4},
		{"split, 100 of 300 bytes", true, 100, 300, 48, 100, 16},
		{"LHS off, 37 bytes", false, 37, 37, 0, 37, 3},
		{"LHS off, 37 of 200 bytes", false, 37, 200, 0, 37, 13},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 7, WireNoise: true}, drivers.Config{LHS: c.lhs, TailBase: 0x8000, TailSize: 4096})
			require.NoError(t, d.dev.MemWrite(0x8000, fill(0xaa, 4096)))
			m := message(gosim.NewRand(8), c.n, c.field, 12)
			require.NoError(t, d.dev.Inject(m))
			require.NoError(t, d.dev.RunUntilIdle(10_000))
			require.EqualValues(t, 16*c.units, d.reg(t, hw.RegTailUsed))
			got := make([]byte, 16*c.units)
			require.NoError(t, d.dev.MemRead(0x8000, got))
			written := c.end - c.start
			lastUnit := (written + 15) / 16 * 16
			require.Equal(t, m[c.start:c.end], got[:written], "the message's bytes")
			require.Equal(t, make([]byte, lastUnit-written), got[written:lastUnit], "past its end in its last unit")
			require.Equal(t, fill(0xaa, 16*c.units-lastUnit), got[lastUnit:], "reserved units it did not reach")
		})
	}
}

// A message that ends before byte SIZE_POS+4: the size bytes it lacks read as 0 (not the
// wire's bytes past tkeep) and it is flagged MISMATCH, even when the bytes it has happen to
// equal its length.
func TestShortSizeFieldReadsZero(t *testing.T) {
	cases := []struct {
		name    string
		lhs     bool
		sizePos uint32
		msg     []byte
		size    uint32 // the size field as read
	}{
		{"1 byte at SIZE_POS 0 says 1", true, drivers.SizeAtZero, []byte{1}, 1},
		{"14 bytes at SIZE_POS 12 say 14", true, 12, append(make([]byte, 12), 14, 0), 14},
		{"14 bytes at SIZE_POS 12 say 14, LHS off", false, 12, append(make([]byte, 12), 14, 0), 14},
		{"6 bytes at SIZE_POS 8 (none of the field)", true, 8, make([]byte, 6), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 9, WireNoise: true}, drivers.Config{LHS: c.lhs, SizePos: c.sizePos})
			next := message(gosim.NewRand(10), 80, 80, d.host.Config().SizePos)
			require.NoError(t, d.dev.Inject(c.msg))
			require.NoError(t, d.dev.Inject(next))
			require.NoError(t, d.dev.RunUntilIdle(10_000))
			require.EqualValues(t, 2, d.reg(t, hw.RegMsgCount))
			require.EqualValues(t, 2, d.reg(t, hw.RegStoredCount), "neither is dropped")
			require.EqualValues(t, 1, d.reg(t, hw.RegMismatchCount))
			require.Equal(t, uint32(hw.ErrMismatch), d.reg(t, hw.RegErr))
			if !c.lhs {
				rm, ok, err := d.host.NextRingMessage()
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, c.size, rm.Size)
				require.Equal(t, c.msg, rm.Bytes[:len(c.msg)])
				require.Equal(t, make([]byte, 16-len(c.msg)), rm.Bytes[len(c.msg):16], "0 past its end")
				require.NoError(t, d.host.ReleaseRing(rm))
				rm, ok, err = d.host.NextRingMessage()
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, next, rm.Bytes, "the next message is untouched")
				return
			}
			e, err := d.host.ReadEntry(0)
			require.NoError(t, err)
			require.Equal(t, uint8(hw.FlagMismatch), e.Flags, "inline, MISMATCH")
			require.Equal(t, len(c.msg), e.Len)
			require.Equal(t, c.msg, e.Raw[:len(c.msg)])
			require.Equal(t, make([]byte, 16-len(c.msg)), e.Raw[len(c.msg):16], "0 past its end")
			e2, err := d.host.ReadEntry(1)
			require.NoError(t, err)
			got, err := d.host.Message(e2)
			require.NoError(t, err)
			require.Equal(t, next, got, "the next message is untouched")
		})
	}
}

// MAX_MSG 0 is a legal value: it limits only what would go to the tail ring. With LHS on,
// inline messages are stored as ever and every split one is TOO_LONG (head kept, tail
// dropped); with LHS off every message whose size field is not 0 is dropped whole.
func TestMaxMsgZero(t *testing.T) {
	for _, lhs := range []bool{true, false} {
		t.Run(fmt.Sprintf("lhs=%v", lhs), func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 11}, drivers.Config{LHS: lhs})
			d.write(t, hw.RegMaxMsg, 0)
			require.Zero(t, d.reg(t, hw.RegErr), "MAX_MSG 0 is taken")
			require.Zero(t, d.reg(t, hw.RegMaxMsg))
			rng := gosim.NewRand(12)
			inline, split, zero := message(rng, 40, 40, 12), message(rng, 100, 100, 12), message(rng, 16, 0, 12)
			for _, m := range [][]byte{inline, split, zero} {
				require.NoError(t, d.dev.Inject(m))
			}
			require.NoError(t, d.dev.RunUntilIdle(10_000))
			require.EqualValues(t, 3, d.reg(t, hw.RegMsgCount))
			if lhs {
				require.Zero(t, d.reg(t, hw.RegTailUsed), "no tail")
				require.EqualValues(t, 3, d.reg(t, hw.RegStoredCount))
				require.Zero(t, d.reg(t, hw.RegDropCount))
				for i, w := range []struct {
					head  []byte
					flags uint8
				}{{inline, 0}, {split[:48], hw.FlagTooLong}, {zero, hw.FlagMismatch}} {
					e, err := d.host.ReadEntry(uint32(i))
					require.NoError(t, err)
					require.Equal(t, w.flags, e.Flags, "entry %d", i)
					require.Equal(t, w.head, e.Head(), "entry %d", i)
				}
				return
			}
			require.EqualValues(t, 2, d.reg(t, hw.RegDropCount), "40 and 100 are over MAX_MSG 0")
			require.EqualValues(t, 1, d.reg(t, hw.RegStoredCount), "the size-0 message is stored")
			require.EqualValues(t, 16, d.reg(t, hw.RegTailUsed))
			rm, ok, err := d.host.NextRingMessage()
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, zero, rm.Bytes[:16])
		})
	}
}

// Back to back with the memory always ready, a message of b beats costs b cycles with LHS off
// (ev_msg_done at its last beat, the next first beat the cycle after) and b+1 with LHS on (the
// commit cycle).
func TestBackToBackCycles(t *testing.T) {
	for _, lhs := range []bool{true, false} {
		for _, n := range []int{16, 40, 100, 257} {
			t.Run(fmt.Sprintf("lhs=%v/%d", lhs, n), func(t *testing.T) {
				d := newDUT(t, gosim.BoardConfig{Seed: 13}, drivers.Config{LHS: lhs})
				var done []uint64
				d.dev.Watch(func(cycle uint64, ev drivers.Events) {
					if ev&drivers.EvMsgDone != 0 {
						done = append(done, cycle)
					}
				})
				rng := gosim.NewRand(14)
				for i := 0; i < 8; i++ {
					require.NoError(t, d.dev.Inject(message(rng, n, uint32(n), 12)))
				}
				require.NoError(t, d.dev.RunUntilIdle(10_000))
				require.Len(t, done, 8)
				beats := uint64((n + 15) / 16)
				want := beats
				if lhs {
					want++
				}
				for i := 1; i < len(done); i++ {
					require.Equal(t, want, done[i]-done[i-1], "message %d: cycles from the last message's end", i)
				}
			})
		}
	}
}

// The LH window past ENTRIES reads 0: not an alias of a lower entry, never X.
func TestLHWindowPastEntriesReadsZero(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 15}, drivers.Config{LHS: true})
	m := message(gosim.NewRand(16), 56, 56, 12)
	require.NoError(t, d.dev.Inject(m))
	require.NoError(t, d.dev.RunUntilIdle(10_000))
	entries := uint32(d.host.Entries())
	got := make([]byte, 64)
	require.NoError(t, d.dev.ReadBlock(hw.LHBase, got))
	require.Equal(t, m, got[:56], "entry 0")
	for _, addr := range []uint32{hw.LHBase + 64*entries, hw.LHBase + 64*entries + 60, hw.LHBase + 128*entries, 0xfffc0} {
		buf := make([]byte, min(64, 0x100000-addr))
		require.NoError(t, d.dev.ReadBlock(addr, buf))
		require.Equal(t, make([]byte, len(buf)), buf, "address %#x", addr)
	}
}

// A TAIL_RELEASE of 256 MiB or more is refused whole (ERR.RELEASE), not taken modulo 256 MiB.
func TestTailReleaseOver256MiBRefused(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 17}, drivers.Config{LHS: true})
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(18), 112, 112, 12)))
	require.NoError(t, d.dev.RunUntilIdle(10_000))
	require.EqualValues(t, 64, d.reg(t, hw.RegTailUsed))
	for _, v := range []uint32{1<<28 + 64, 1 << 28, 0xfffffff0, 0x80000040} {
		d.write(t, hw.RegErr, hw.ErrAll)
		d.write(t, hw.RegTailRelease, v)
		require.Equal(t, uint32(hw.ErrRelease), d.reg(t, hw.RegErr), "TAIL_RELEASE %#x", v)
		require.EqualValues(t, 64, d.reg(t, hw.RegTailUsed), "TAIL_RELEASE %#x changes nothing", v)
	}
	d.write(t, hw.RegErr, hw.ErrAll)
	d.write(t, hw.RegTailRelease, 64)
	require.Zero(t, d.reg(t, hw.RegErr))
	require.Zero(t, d.reg(t, hw.RegTailUsed))
}

// STORED_COUNT is MSG_COUNT - DROP_COUNT in one read: with LHS off, the messages in the tail
// ring, a count the host can walk the ring by (MSG_COUNT counts the dropped ones too).
func TestStoredCountWalksTheRing(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 19}, drivers.Config{LHS: false, MaxMsg: 300, TailBase: 0x4000, TailSize: 16384})
	rng := gosim.NewRand(20)
	var kept [][]byte
	for i := 0; i < 30; i++ {
		n := 16 + rng.Intn(600)
		m := message(rng, n, uint32(n), 12)
		if n <= 300 {
			kept = append(kept, m)
		}
		require.NoError(t, d.dev.Inject(m))
	}
	require.NoError(t, d.dev.RunUntilIdle(100_000))
	msgs, drops, stored := d.reg(t, hw.RegMsgCount), d.reg(t, hw.RegDropCount), d.reg(t, hw.RegStoredCount)
	require.EqualValues(t, 30, msgs)
	require.NotZero(t, drops)
	require.EqualValues(t, len(kept), stored)
	require.Equal(t, msgs-drops, stored)
	// Walk the ring by STORED_COUNT alone: each message's size field gives the next one.
	off := uint32(0)
	for i := uint32(0); i < stored; i++ {
		hdr := make([]byte, 16)
		require.NoError(t, d.dev.MemRead(uint64(0x4000+off), hdr))
		size := binary.LittleEndian.Uint32(hdr[12:])
		require.Equal(t, kept[i][:16], hdr, "message %d", i)
		off = (off + 16*hw.RingUnits(size)) % 16384
	}
	require.Equal(t, d.reg(t, hw.RegTailWptr), off, "the walk ends at TAIL_WPTR")
}
