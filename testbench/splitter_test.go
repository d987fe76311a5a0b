package testbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/stretchr/testify/require"
)

// sendBoundarySizes sends one truthful message of each boundary size and waits for them.
func sendBoundarySizes(t *testing.T, d *dut, seed uint64) [][]byte {
	t.Helper()
	rng := gosim.NewRand(seed)
	var msgs [][]byte
	for _, n := range boundaries {
		msgs = append(msgs, message(rng, n, uint32(n), 12))
		require.NoError(t, d.dev.Inject(msgs[len(msgs)-1]))
	}
	require.NoError(t, d.dev.RunUntilIdle(1_000_000))
	return msgs
}

// Directed tests of the splitter: every size on and around a boundary, every split position,
// both modes, and the entry format byte by byte.
func TestSplitterBoundarySizes(t *testing.T) {
	for _, split := range []uint32{16, 32, 48} {
		t.Run(fmt.Sprintf("lhs/split%d", split), func(t *testing.T) {
			cfg := drivers.Config{LHS: true, SplitPos: split, TailBase: 0x1000, TailSize: 1 << 20}
			d := newDUT(t, gosim.BoardConfig{Seed: 1}, cfg)
			msgs := sendBoundarySizes(t, d, uint64(split))
			tailOff := uint32(0)
			for i, m := range msgs {
				e, err := d.host.ReadEntry(uint32(i))
				require.NoError(t, err)
				w := lhsRule(m, d.host.Config())
				n := len(m)
				// Descriptor: bytes 56..63.
				require.Equal(t, uint16(n), binary.LittleEndian.Uint16(e.Raw[hw.EntryLenOffset:]), "size %d: len field", n)
				require.Equal(t, w.flags, e.Raw[hw.EntryFlagsOffset], "size %d: flags", n)
				require.Zero(t, e.Raw[hw.EntryReservedOffset], "size %d: byte 59", n)
				if n <= hw.InlineMax {
					require.Zero(t, e.Flags&hw.FlagSplit, "size %d must be inline", n)
					require.Equal(t, m, e.Raw[:n], "size %d: inline bytes", n)
					require.Zero(t, binary.LittleEndian.Uint32(e.Raw[hw.EntryTailPtrOffset:]), "size %d: no pointer", n)
					if n <= 48 {
						require.Equal(t, make([]byte, 8), e.Raw[48:56], "size %d: bytes 48..55 read as 0", n)
					}
					continue
				}
				require.NotZero(t, e.Flags&hw.FlagSplit, "size %d must be split", n)
				require.Equal(t, m[:split], e.Raw[:split], "size %d: head", n)
				require.Equal(t, 0x1000+16*tailOff, e.TailPtr, "size %d: tail pointer", n)
				tail := make([]byte, n-int(split))
				require.NoError(t, d.dev.MemRead(uint64(e.TailPtr), tail))
				require.Equal(t, m[split:], tail, "size %d: tail in large memory", n)
				got, err := d.host.Message(e)
				require.NoError(t, err)
				require.Equal(t, m, got, "size %d: head + tail through VL", n)
				tailOff += hw.TailUnits(uint32(n), split)
			}
			require.Equal(t, 16*tailOff, d.reg(t, hw.RegTailUsed))
			require.Equal(t, 16*tailOff, d.reg(t, hw.RegTailWptr))
		})
	}
	t.Run("lhs-off", func(t *testing.T) {
		cfg := drivers.Config{LHS: false, TailBase: 0x2000, TailSize: 1 << 20}
		d := newDUT(t, gosim.BoardConfig{Seed: 2}, cfg)
		msgs := sendBoundarySizes(t, d, 3)
		require.Zero(t, d.reg(t, hw.RegLHProd), "LHS off makes no entries")
		addr := uint32(0x2000)
		for i, m := range msgs {
			rm, ok, err := d.host.NextRingMessage()
			require.NoError(t, err)
			require.True(t, ok, "message %d", i)
			require.Equal(t, addr, rm.Addr, "size %d: placed right after the previous one", len(m))
			want := lhsRule(m, d.host.Config()).stored
			require.True(t, bytes.Equal(want, rm.Bytes[:len(want)]), "size %d", len(m))
			addr += 16 * hw.RingUnits(uint32(len(m)))
		}
		_, ok, err := d.host.NextRingMessage()
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// A size field that lies changes only its own message, in the documented way.
func TestSplitterSizeFieldLies(t *testing.T) {
	cases := []struct {
		name      string
		delivered int
		field     uint32
		lhs       bool
		flags     uint8
		headLen   int
		tailLen   int
		tailUsed  uint32 // TAIL_USED afterwards (reserved from the size field)
		dropCount uint32
		errBits   uint32
	}{
		{"longer than field, inline", 40, 20, true, hw.FlagMismatch, 40, 0, 0, 0, hw.ErrMismatch},
		{"inline field, 100 delivered", 100, 50, true, hw.FlagMismatch, 56, 0, 0, 0, hw.ErrMismatch},
		{"longer than field, split", 200, 100, true, hw.FlagSplit | hw.FlagMismatch, 48, 52, 64, 0, hw.ErrMismatch},
		{"shorter than field, split", 30, 200, true, hw.FlagSplit | hw.FlagMismatch, 30, 0, 160, 0, hw.ErrMismatch},
		{"shorter than field, tail partial", 100, 300, true, hw.FlagSplit | hw.FlagMismatch, 48, 52, 256, 0, hw.ErrMismatch},
		{"over MAX_MSG", 100, 70000, true, hw.FlagTooLong | hw.FlagMismatch, 48, 0, 0, 0, hw.ErrMismatch | hw.ErrTooLong},
		{"over MAX_MSG, LHS off", 100, 70000, false, 0, 0, 0, 0, 1, hw.ErrMismatch | hw.ErrTooLong},
		{"shorter than field, LHS off", 20, 100, false, 0, 0, 0, 112, 0, hw.ErrMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 5}, drivers.Config{LHS: c.lhs})
			rng := gosim.NewRand(9)
			bad := message(rng, c.delivered, c.field, 12)
			good := message(rng, 80, 80, 12)
			require.NoError(t, d.dev.Inject(bad))
			require.NoError(t, d.dev.Inject(good))
			require.NoError(t, d.dev.RunUntilIdle(100000))
			require.EqualValues(t, 2, d.reg(t, hw.RegMsgCount))
			require.EqualValues(t, 1, d.reg(t, hw.RegMismatchCount))
			require.Equal(t, c.errBits, d.reg(t, hw.RegErr))
			require.Equal(t, c.dropCount, d.reg(t, hw.RegDropCount))
			goodUnits := hw.TailUnits(80, hw.SplitPosReset)
			if !c.lhs {
				goodUnits = hw.RingUnits(80)
			}
			require.Equal(t, c.tailUsed+16*goodUnits, d.reg(t, hw.RegTailUsed))
			if c.lhs {
				e, err := d.host.ReadEntry(0)
				require.NoError(t, err)
				require.Equal(t, c.flags, e.Flags)
				require.Equal(t, c.delivered, e.Len)
				require.Equal(t, bad[:c.headLen], e.Head())
				require.Equal(t, c.tailLen, e.TailLen())
				got, err := d.host.Message(e)
				require.NoError(t, err)
				require.Equal(t, bad[:c.headLen+c.tailLen], got[:c.headLen+c.tailLen])
				e2, err := d.host.ReadEntry(1)
				require.NoError(t, err)
				got2, err := d.host.Message(e2)
				require.NoError(t, err)
				require.Equal(t, good, got2, "the next message is untouched")
				require.NoError(t, d.host.Consume(0))
				require.NoError(t, d.host.Consume(1))
				require.Zero(t, d.reg(t, hw.RegTailUsed), "releases follow the reservations")
				return
			}
			var walked [][]byte
			for {
				rm, ok, err := d.host.NextRingMessage()
				require.NoError(t, err)
				if !ok {
					break
				}
				walked = append(walked, rm.Bytes)
				require.NoError(t, d.host.ReleaseRing(rm))
			}
			if c.dropCount == 1 {
				require.Len(t, walked, 1, "the too-long message is dropped whole")
			} else {
				require.Len(t, walked, 2)
				require.Equal(t, bad, walked[0][:c.delivered])
			}
			require.True(t, bytes.Equal(good, walked[len(walked)-1]), "the next message is untouched")
			require.Zero(t, d.reg(t, hw.RegTailUsed))
		})
	}
}
