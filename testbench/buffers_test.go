package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/stretchr/testify/require"
)

// The LH buffer full for a long time: the splitter holds the network off, never overwrites an
// unreleased entry, and loses nothing once the host catches up.
func TestLHBufferFullForALongTime(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 7}, drivers.Config{LHS: true})
	entries := d.host.Entries()
	rng := gosim.NewRand(11)
	msgs := make([][]byte, entries+100)
	for i := range msgs {
		msgs[i] = message(rng, 16+rng.Intn(41), 0, 12)
		msgs[i] = message(rng, len(msgs[i]), uint32(len(msgs[i])), 12)
		require.NoError(t, d.dev.Inject(msgs[i]))
	}
	err := d.dev.RunUntilIdle(200_000)
	require.ErrorIs(t, err, gosim.ErrNotIdle, "the input must still be held off")
	require.EqualValues(t, entries, d.reg(t, hw.RegLHProd), "exactly a full buffer")
	stallBefore := d.reg(t, hw.RegStallCycles)
	require.Greater(t, stallBefore, uint32(100_000), "back-pressure counted")
	for i := 0; i < entries; i++ {
		e, err := d.host.ReadEntry(uint32(i))
		require.NoError(t, err)
		require.Equal(t, msgs[i], e.Head(), "entry %d intact after the long wait", i)
	}
	// Release in reverse order: nothing moves until the oldest is released.
	for i := 99; i >= 1; i-- {
		require.NoError(t, d.host.Consume(uint32(i)))
	}
	require.NoError(t, d.dev.Run(200))
	require.EqualValues(t, entries, d.reg(t, hw.RegLHProd), "no room until the oldest entry is released")
	require.NoError(t, d.host.Consume(0))
	require.NoError(t, d.dev.RunUntilIdle(100_000))
	require.EqualValues(t, entries+100, d.reg(t, hw.RegLHProd))
	for i := entries; i < entries+100; i++ {
		e, err := d.host.ReadEntry(uint32(i))
		require.NoError(t, err)
		require.Equal(t, msgs[i], e.Head(), "entry %d after the wait", i)
	}
}

// The tail ring full: back-pressure until the host releases, and a tail that wraps past the
// ring's end reads back whole.
func TestTailRingFullAndWrap(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 8}, drivers.Config{LHS: true, TailBase: 0x4000, TailSize: 2048})
	rng := gosim.NewRand(12)
	var msgs [][]byte
	for i := 0; i < 6; i++ {
		msgs = append(msgs, message(rng, 700, 700, 12))
		require.NoError(t, d.dev.Inject(msgs[i]))
	}
	// 700-byte messages reserve 41 units (656 bytes): three fit in 2048 bytes, the fourth waits.
	require.ErrorIs(t, d.dev.RunUntilIdle(20_000), gosim.ErrNotIdle)
	require.EqualValues(t, 3, d.reg(t, hw.RegLHProd))
	require.EqualValues(t, 3*656, d.reg(t, hw.RegTailUsed))
	for seq := uint32(0); seq < 6; seq++ {
		// Wait for the entry, check it, release it.
		for i := 0; ; i++ {
			prod, err := d.host.Produced()
			require.NoError(t, err)
			if prod > seq {
				break
			}
			require.Less(t, i, 1000, "entry %d never came", seq)
			require.NoError(t, d.dev.Run(50))
		}
		e, err := d.host.ReadEntry(seq)
		require.NoError(t, err)
		got, err := d.host.Message(e)
		require.NoError(t, err)
		require.Equal(t, msgs[seq], got, "message %d", seq)
		if seq == 3 {
			// 3 * 656 = 1968: the fourth tail starts 80 bytes before the end and wraps.
			require.EqualValues(t, 0x4000+1968, e.TailPtr)
		}
		require.NoError(t, d.host.Consume(seq))
	}
	require.Zero(t, d.reg(t, hw.RegTailUsed))
}

// Releases beyond what is held are refused and change nothing.
func TestReleaseRefused(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 9}, drivers.Config{LHS: true})
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(1), 100, 100, 12)))
	require.NoError(t, d.dev.RunUntilIdle(10_000))
	cases := []struct {
		name       string
		addr, val  uint32
		cons, used uint32
	}{
		{"two entries when one is held", hw.RegLHRelease, 2, 0, 64},
		{"more tail than used", hw.RegTailRelease, 128, 0, 64},
		{"tail not a 16-byte multiple", hw.RegTailRelease, 8, 0, 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d.write(t, hw.RegErr, hw.ErrAll)
			d.write(t, c.addr, c.val)
			require.Equal(t, uint32(hw.ErrRelease), d.reg(t, hw.RegErr))
			require.Equal(t, c.cons, d.reg(t, hw.RegLHCons))
			require.Equal(t, c.used, d.reg(t, hw.RegTailUsed))
		})
	}
	d.write(t, hw.RegErr, hw.ErrAll)
	require.NoError(t, d.host.Consume(0))
	require.EqualValues(t, 1, d.reg(t, hw.RegLHCons))
	require.Zero(t, d.reg(t, hw.RegTailUsed))
}
