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

// expect is where the LHS rule (docs/design.md) puts one message.
type expect struct {
	size    uint32 // the size field as the splitter read it
	head    []byte // LHS on: bytes in the entry
	tail    []byte // LHS on: bytes in large memory
	flags   uint8
	dropped bool // LHS off: too long, not stored
	stored  []byte
}

func sizeField(m []byte, sizePos uint32) uint32 {
	var beat [16]byte
	copy(beat[:], m)
	return binary.LittleEndian.Uint32(beat[sizePos:])
}

// lhsRule is the reference model of the splitter, written from the contract alone.
func lhsRule(m []byte, cfg drivers.Config) expect {
	n := len(m)
	s := sizeField(m, cfg.SizePos)
	ringUnits := cfg.TailSize / 16
	e := expect{size: s}
	if uint32(n) != s || n < int(cfg.SizePos)+4 { // a message that ends inside its size field lies
		e.flags |= hw.FlagMismatch
	}
	if !cfg.LHS {
		units := max(uint64(1), (uint64(s)+15)/16)
		e.dropped = s > cfg.MaxMsg || units > uint64(ringUnits)
		if !e.dropped {
			e.stored = m[:min(n, int(s))]
		}
		return e
	}
	split := int(cfg.SplitPos)
	switch {
	case s <= hw.InlineMax:
		e.head = m[:min(n, hw.InlineMax)]
	case s > cfg.MaxMsg || (uint64(s)-uint64(split)+15)/16 > uint64(ringUnits):
		e.flags |= hw.FlagTooLong
		e.head = m[:min(n, split)]
	default:
		e.flags |= hw.FlagSplit
		e.head = m[:min(n, split)]
		if end := min(n, int(s)); end > split {
			e.tail = m[split:end]
		}
	}
	return e
}

// boundaries are the sizes around every edge of the rule and of the beats.
var boundaries = []int{1, 2, 12, 15, 16, 17, 31, 32, 33, 47, 48, 49, 55, 56, 57, 63, 64, 65,
	79, 80, 81, 127, 128, 129, 255, 256, 1023, 1024, 1025, 4095, 4096, 4097, 8192}

// message builds a message of n bytes whose size field says size.
func message(rng *gosim.Rand, n int, size uint32, sizePos uint32) []byte {
	b := make([]byte, max(n, 16))
	for i := range b {
		b[i] = byte(rng.Uint64())
	}
	binary.LittleEndian.PutUint32(b[sizePos:], size)
	return b[:n]
}

// randomMessages draws n messages: sizes on the boundaries and at random, some whose size
// field lies, some too long.
func randomMessages(rng *gosim.Rand, n int, sizePos uint32, maxLen int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var size int
		if rng.Intn(100) < 60 {
			size = boundaries[rng.Intn(len(boundaries))]
		} else {
			size = 1 + rng.Intn(maxLen)
		}
		size = min(size, maxLen)
		field := uint32(size)
		switch r := rng.Intn(100); {
		case r < 5: // the size field lies, either way
			field = uint32(max(0, size+rng.Intn(81)-40))
		case r < 7: // over MAX_MSG
			field = 70000 + uint32(rng.Intn(1000))
		}
		out[i] = message(rng, size, field, sizePos)
	}
	return out
}

// scoreboard drives msgs through the device and checks every byte lands where the LHS rule
// puts it: none lost, duplicated or reordered. The host reads and consumes entries in random
// order and at random times.
func scoreboard(t testing.TB, d *dut, rng *gosim.Rand, msgs [][]byte, limit uint64) {
	t.Helper()
	cfg := d.host.Config()
	// Counters before the first message can arrive.
	base := d.reg(t, hw.RegLHProd)
	msgCount0, mismatch0 := d.reg(t, hw.RegMsgCount), d.reg(t, hw.RegMismatchCount)
	for _, m := range msgs {
		require.NoError(t, d.dev.Inject(m))
	}
	var want []expect
	for _, m := range msgs {
		want = append(want, lhsRule(m, cfg))
	}
	start := d.dev.Cycle()
	next := 0 // next message expected
	var held []uint32
	mismatches := 0
	for _, w := range want {
		if w.flags&hw.FlagMismatch != 0 {
			mismatches++
		}
	}
	for next < len(msgs) || len(held) > 0 {
		require.Less(t, d.dev.Cycle()-start, limit, "no progress: %d of %d messages checked", next, len(msgs))
		require.NoError(t, d.dev.Run(uint64(rng.Intn(64))))
		if cfg.LHS {
			prod, err := d.host.Produced()
			require.NoError(t, err)
			for ; uint32(next) < prod-base; next++ {
				require.Less(t, next, len(msgs), "more entries than messages")
				e, err := d.host.ReadEntry(base + uint32(next))
				require.NoError(t, err)
				w := want[next]
				ctx := fmt.Sprintf("message %d (%d bytes, size field %d)", next, len(msgs[next]), w.size)
				require.Equal(t, min(len(msgs[next]), 65535), e.Len, ctx)
				require.Equal(t, w.flags, e.Flags, ctx)
				require.True(t, bytes.Equal(w.head, e.Head()), "%s: head\n got %x\nwant %x", ctx, e.Head(), w.head)
				if e.Split() {
					got, err := d.host.Message(e)
					require.NoError(t, err)
					require.True(t, bytes.Equal(append(append([]byte{}, w.head...), w.tail...), got), "%s: message through the tail", ctx)
				}
				held = append(held, base+uint32(next))
			}
			// Consume a random share of the held entries, in random order.
			for k := rng.Intn(len(held) + 1); k > 0; k-- {
				i := rng.Intn(len(held))
				require.NoError(t, d.host.Consume(held[i]))
				held = append(held[:i], held[i+1:]...)
			}
			continue
		}
		for {
			rm, ok, err := d.host.NextRingMessage()
			require.NoError(t, err)
			if !ok {
				break
			}
			for next < len(msgs) && want[next].dropped {
				next++
			}
			require.Less(t, next, len(msgs), "more ring messages than messages")
			w := want[next]
			require.Equal(t, w.size, rm.Size, "message %d", next)
			require.True(t, bytes.Equal(w.stored, rm.Bytes[:len(w.stored)]), "message %d: stored bytes", next)
			require.NoError(t, d.host.ReleaseRing(rm))
			next++
		}
		for next < len(msgs) && want[next].dropped {
			next++
		}
	}
	// Messages dropped whole (LHS off) after the last stored one may still be arriving.
	require.NoError(t, d.dev.RunUntilIdle(limit))
	require.EqualValues(t, len(msgs), d.reg(t, hw.RegMsgCount)-msgCount0)
	require.EqualValues(t, mismatches, d.reg(t, hw.RegMismatchCount)-mismatch0)
	require.Zero(t, d.reg(t, hw.RegErr)&hw.ErrRelease, "a release was refused")
	require.Zero(t, d.reg(t, hw.RegTailUsed), "tail ring not empty at the end")
	if cfg.LHS {
		require.Equal(t, d.reg(t, hw.RegLHProd), d.reg(t, hw.RegLHCons))
	}
}

// randomSetup draws a configuration and a board for one seed.
func randomSetup(rng *gosim.Rand, seed uint64) (gosim.BoardConfig, drivers.Config) {
	board := gosim.BoardConfig{
		Seed:        seed,
		IdlePercent: rng.Intn(50),
		Memory: gosim.SODIMMParams{
			ReadLatency:    1 + rng.Intn(60),
			MaxOutstanding: 1 + rng.Intn(16),
			BusyPercent:    rng.Intn(40),
		},
	}
	cfg := drivers.Config{
		LHS:      rng.Intn(4) != 0,
		SizePos:  uint32(4 * rng.Intn(4)),
		SplitPos: uint32(16 * (1 + rng.Intn(3))),
		MaxMsg:   65535,
		TailBase: uint32(16 * rng.Intn(1<<16)),
		TailSize: []uint32{2048, 8192, 65536}[rng.Intn(3)],
	}
	if rng.Intn(4) == 0 {
		cfg.MaxMsg = uint32(100 + rng.Intn(4000))
	}
	if cfg.SizePos == 0 {
		cfg.SizePos = drivers.SizeAtZero
	}
	return board, cfg
}

func TestScoreboardRandom(t *testing.T) {
	forSeeds(t, 12, func(t *testing.T, seed uint64) {
		rng := gosim.NewRand(seed)
		board, cfg := randomSetup(rng, seed)
		t.Logf("seed %d: %+v %+v", seed, board, cfg)
		d := newDUT(t, board, cfg)
		scoreboard(t, d, rng, randomMessages(rng, 150, d.host.Config().SizePos, 5000), 5_000_000)
	})
}
