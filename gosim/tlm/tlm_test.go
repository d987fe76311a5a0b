package tlm_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/tlm"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/internal/testseed"
)

// msg is a message of n bytes with size field size at SIZE_POS 12 (the reset value) and
// bytes i+1 elsewhere.
func msg(n int, size uint32) []byte {
	m := make([]byte, n)
	for i := range m {
		m[i] = byte(i + 1)
	}
	if n >= 16 {
		binary.LittleEndian.PutUint32(m[12:], size)
	}
	return m
}

func newNIC(t *testing.T, edit func(*tlm.Config)) *tlm.NIC {
	t.Helper()
	cfg := tlm.DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	n, err := tlm.New(cfg)
	require.NoError(t, err)
	return n
}

// Every configuration value the hardware refuses is refused, with the field named.
func TestConfigValidate(t *testing.T) {
	require.NoError(t, tlm.DefaultConfig().Validate())
	for _, tc := range []struct {
		edit func(*tlm.Config)
		want string
	}{
		{func(c *tlm.Config) { c.SizePos = 2 }, "SizePos"},
		{func(c *tlm.Config) { c.SizePos = 16 }, "SizePos"},
		{func(c *tlm.Config) { c.SplitPos = 64 }, "SplitPos"},
		{func(c *tlm.Config) { c.SplitPos = 0 }, "SplitPos"},
		{func(c *tlm.Config) { c.MaxMsg = 0x10000 }, "MaxMsg"},
		{func(c *tlm.Config) { c.TailBase = 8 }, "TailBase"},
		{func(c *tlm.Config) { c.TailSize = 0 }, "TailSize"},
		{func(c *tlm.Config) { c.TailSize = hw.TailSizeMax + 16 }, "TailSize"},
		{func(c *tlm.Config) { c.TailBase = hw.MemBytes - 16 }, "tail ring"},
		{func(c *tlm.Config) { c.Entries = 48 }, "Entries"},
		{func(c *tlm.Config) { c.Entries = 2 }, "Entries"},
		{func(c *tlm.Config) { *c = tlm.Config{} }, "SplitPos"},
	} {
		cfg := tlm.DefaultConfig()
		tc.edit(&cfg)
		_, err := tlm.New(cfg)
		require.ErrorContains(t, err, tc.want)
	}
}

// A message's beats, commit and entry, by hand, for the three kinds of message.
func TestOfferTiming(t *testing.T) {
	n := newNIC(t, nil)
	// 40 bytes, inline: 3 beats from cycle 10, committed the cycle after the last.
	a, err := n.Offer(10, msg(40, 40))
	require.NoError(t, err)
	require.Equal(t, tlm.Accepted{Seq: 0, Present: 10, First: 10, Last: 12, Commit: 13, Ready: 14, Beats: 3, Size: 40, Len: 40}, a)
	e := n.Entry(0)
	require.Equal(t, msg(40, 40), e[:40])
	require.Equal(t, make([]byte, 16), e[48-8:56], "bytes 40..47 the last beat's zeros, 48..55 zero")
	require.EqualValues(t, 40, binary.LittleEndian.Uint16(e[56:]))

	// Offered at once: shown the cycle after the last beat, taken the cycle after the commit.
	a, err = n.Offer(0, msg(100, 100))
	require.NoError(t, err)
	require.Equal(t, tlm.Accepted{Seq: 1, Present: 13, First: 14, Last: 20, Commit: 21, Ready: 22, Stalls: 1, Beats: 7, Size: 100, Len: 100,
		Flags: hw.FlagSplit, TailUnits: 4, TailAddr: 0}, a)
	e = n.Entry(1)
	require.Equal(t, msg(100, 100)[:48], e[:48])
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0, 100, 0, hw.FlagSplit, 0, 0, 0, 0, 0}, e[48:])

	// Too long: head only, no ring space, and the next split message's tail follows the first.
	a, err = n.Offer(30, msg(70, 0x10000))
	require.NoError(t, err)
	require.Equal(t, uint8(hw.FlagTooLong|hw.FlagMismatch), a.Flags)
	require.Zero(t, a.TailUnits)
	a, err = n.Offer(0, msg(64, 64))
	require.NoError(t, err)
	require.Equal(t, uint32(64), a.TailAddr, "after the first split message's 4 units")
	st := n.Status()
	require.Equal(t, tlm.Status{LHProd: 4, TailWptr: 80, TailUsed: 80, Counters: tlm.Counters{Messages: 4, Commits: 4, Stalls: 2,
		Mismatches: 1, TooLong: 1, Beats: 3 + 7 + 5 + 4}}, st)

	// With LHS off a message finishes on its last beat and the next may start the cycle after.
	off := newNIC(t, func(c *tlm.Config) { c.LHSOn = false })
	a, err = off.Offer(0, msg(20, 20))
	require.NoError(t, err)
	require.Equal(t, tlm.Accepted{First: 0, Last: 1, Commit: 1, Ready: 2, Beats: 2, Size: 20, Len: 20, TailUnits: 2}, a)
	a, err = off.Offer(0, msg(20, 20))
	require.NoError(t, err)
	require.Equal(t, uint64(2), a.First)
	require.Equal(t, uint32(32), a.TailAddr)
}

// Messages that cannot be on the wire are refused and change nothing.
func TestOfferErrors(t *testing.T) {
	n := newNIC(t, nil)
	for _, m := range []tlm.Message{
		{},
		{Bytes: make([]byte, gosim.MaxMessage+1)},
		{Bytes: msg(40, 40), Idle: []uint32{1}},
		{Bytes: msg(20, 200), Len: 200},
		{Bytes: msg(60, 60), Len: 50},
	} {
		_, err := n.OfferMessage(0, m)
		require.ErrorIs(t, err, tlm.ErrMessage)
	}
	require.Zero(t, n.Status().Messages)

	// A head is enough without memory, and the entry is the same.
	full := msg(300, 300)
	a, err := n.OfferMessage(0, tlm.Message{Bytes: full[:56], Len: 300})
	require.NoError(t, err)
	require.Equal(t, uint32(19), a.Beats)
	b := newNIC(t, nil)
	_, err = b.Offer(0, full)
	require.NoError(t, err)
	require.Equal(t, b.Entry(0), n.Entry(0))
	n.SetMemory(gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0)))
	_, err = n.OfferMessage(0, tlm.Message{Bytes: full[:56], Len: 300})
	require.ErrorIs(t, err, tlm.ErrMessage, "tails in memory need the whole message")
}

// A full LH buffer holds the next message until a release; a release is checked against what
// is held before its cycle, as the hardware checks it.
func TestBlockedAndRelease(t *testing.T) {
	n := newNIC(t, func(c *tlm.Config) { c.Entries = 4 })
	var last tlm.Accepted
	for range 4 {
		a, err := n.Offer(0, msg(16, 16))
		require.NoError(t, err)
		last = a
	}
	require.Equal(t, uint64(7), last.Commit) // 2 cycles each, from 0

	_, err := n.Offer(0, msg(16, 16))
	var be *tlm.BlockedError
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, tlm.ErrBlocked)
	require.Equal(t, tlm.BlockedError{Seq: 4, At: 7, LHFull: true, FreeUnits: hw.TailSizeReset / 16}, *be)
	require.EqualError(t, err, "tlm: message 4 waits from cycle 7: LH buffer full after every release reported")

	// The entry that commits at cycle 7 is not held during cycle 7.
	require.ErrorIs(t, n.Release(7, 4, 0), tlm.ErrRelease)
	require.NoError(t, n.Release(8, 4, 0))
	require.ErrorIs(t, n.Release(8, 1, 0), tlm.ErrRelease, "all released")
	require.ErrorIs(t, n.Release(6, 0, 0), tlm.ErrOrder)
	require.ErrorIs(t, n.Release(9, 0, 8), tlm.ErrRelease, "not a 16-byte multiple")
	require.ErrorIs(t, n.Release(9, 0, 16), tlm.ErrRelease, "no tail in use")
	off := newNIC(t, func(c *tlm.Config) { c.LHSOn = false })
	_, err = off.Offer(0, msg(16, 16))
	require.NoError(t, err)
	require.ErrorIs(t, off.Release(10, 1, 0), tlm.ErrRelease, "no entries with LHS off")
	require.NoError(t, off.Release(10, 0, 16))

	a, err := n.Offer(0, msg(16, 16))
	require.NoError(t, err)
	require.Equal(t, uint64(9), a.First, "taken the cycle after the release")
	require.Equal(t, uint64(9-7), a.Stalls)
	require.Equal(t, uint64(1), n.Counters().LHWaits)

	// A release reported ahead lets a message in when it comes; an earlier one reported
	// afterwards would have let it in sooner, and is refused.
	for range 3 {
		_, err := n.Offer(0, msg(16, 16))
		require.NoError(t, err)
	}
	require.NoError(t, n.Release(30, 2, 0))
	a, err = n.Offer(0, msg(16, 16))
	require.NoError(t, err)
	require.Equal(t, uint64(31), a.First)
	require.ErrorIs(t, n.Release(25, 1, 0), tlm.ErrOrder)
	require.NoError(t, n.Release(30, 1, 0), "the same cycle adds up")
	require.Equal(t, tlm.Status{LHProd: 9, LHCons: 7, Counters: tlm.Counters{Messages: 9, Commits: 9, Stalls: 3 + 2 + 3 + 15, Beats: 9, LHWaits: 2}},
		n.Status())
}

// The ring: a split message waits for room, a tail wraps at the ring's end, and a message
// that could never fit is too long.
func TestRing(t *testing.T) {
	n := newNIC(t, func(c *tlm.Config) { c.TailSize = 160; c.TailBase = 0x1000 }) // 10 units
	mem := gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0))
	n.SetMemory(mem)
	a, err := n.Offer(0, msg(48+16*6, 48+16*6)) // 6 units
	require.NoError(t, err)
	require.Equal(t, uint32(0x1000), a.TailAddr)
	_, err = n.Offer(0, msg(48+16*6, 48+16*6))
	var be *tlm.BlockedError
	require.ErrorAs(t, err, &be)
	require.Equal(t, tlm.BlockedError{Seq: 1, At: a.Last + 1, NeedUnits: 6, FreeUnits: 4}, *be)
	require.ErrorContains(t, err, "it needs 6 tail units, 4 free")
	require.NoError(t, n.Release(100, 1, 96))
	b, err := n.Offer(0, msg(48+16*6, 48+16*6))
	require.NoError(t, err)
	require.Equal(t, uint64(101), b.First)
	require.Equal(t, uint32(0x1000+96), b.TailAddr)
	got := make([]byte, 160)
	require.NoError(t, mem.Read(0x1000, got))
	m := msg(48+16*6, 48+16*6)
	require.Equal(t, m[48+64:], got[:32], "the tail wrapped: its last two units at the ring's start")
	require.Equal(t, m[48:48+64], got[96:], "its first four at the end")

	c, err := n.Offer(0, msg(48+16*11, 48+16*11))
	require.NoError(t, err)
	require.Equal(t, uint8(hw.FlagTooLong), c.Flags, "11 units never fit in 10")
}

// Feed is Offer and Release with the benchmark's host: the same end cycle, state and LH
// buffer, on random messages and configurations that make its fast path give way to Offer
// (short messages, a full ring, releases reported before it), and the same state after it:
// both go on to the same answers when the LH buffer fills.
func TestFeedMatchesOffer(t *testing.T) {
	for _, seed := range testseed.List(t, 40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x66656564))
			cfg := tlm.DefaultConfig()
			cfg.LHSOn = rng.IntN(4) != 0
			cfg.Entries = []int{4, 8, 64}[rng.IntN(3)]
			cfg.SizePos = 4 * uint32(rng.IntN(4))
			cfg.SplitPos = 16 * uint32(1+rng.IntN(3))
			cfg.MaxMsg = []uint32{0xffff, 200}[rng.IntN(2)]
			cfg.TailSize = 16 * uint32(1+rng.IntN(4096))
			msgs := make([][]byte, 300+rng.IntN(1000))
			for i := range msgs {
				msgs[i] = randMessage(rng, cfg, rng.IntN(4) == 0)
			}
			// Two Feeds: the second offers its messages no earlier than a cycle that may be
			// past the first one's end.
			at := uint64(rng.IntN(100))
			cut := rng.IntN(len(msgs))
			at2 := at + uint64(rng.IntN(len(msgs)*20))
			a, err := tlm.New(cfg)
			require.NoError(t, err)
			b, err := tlm.New(cfg)
			require.NoError(t, err)
			if rng.IntN(3) == 0 {
				a.SetMemory(gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0)))
				b.SetMemory(gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0)))
			}

			// The same start for both: up to a buffer's worth of messages offered and not
			// released, or some of them released at a cycle that may come during Feed
			// (entries only).
			var last tlm.Accepted
			for range rng.IntN(cfg.Entries + 1) {
				x, errX := a.Offer(at, msgs[0])
				y, errY := b.Offer(at, msgs[0])
				require.Equal(t, x, y)
				require.Equal(t, errX, errY)
				if errX == nil {
					last = x
				}
			}
			if st := a.Status(); st.LHProd > 0 && rng.IntN(2) == 0 {
				r := last.Commit + 1 + uint64(rng.IntN(40))
				k := 1 + uint32(rng.IntN(int(st.LHProd)))
				require.NoError(t, a.Release(r, k, st.TailUsed))
				require.NoError(t, b.Release(r, k, st.TailUsed))
			}

			end, slowErr := at, error(nil)
			for i, m := range msgs {
				acc, err := a.Offer(map[bool]uint64{true: at, false: at2}[i < cut], m)
				if err == nil && cfg.LHSOn {
					err = a.Release(acc.Commit+1, 1, 0)
				}
				if err == nil && cfg.LHSOn && acc.TailUnits > 0 { // a split message's tail, the next cycle
					err = a.Release(acc.Commit+2, 0, 16*acc.TailUnits)
				}
				if err != nil {
					slowErr = err
					break
				}
				end = acc.Commit + 1
			}
			fend, fastErr := b.Feed(at, msgs[:cut])
			if fastErr == nil {
				fend, fastErr = b.Feed(at2, msgs[cut:]) // cut < len(msgs): not empty
			}
			require.Equal(t, end, fend, testseed.Replay(t, seed, "./gosim/tlm"))
			require.Equal(t, slowErr, fastErr, testseed.Replay(t, seed, "./gosim/tlm"))
			require.Equal(t, a.Status(), b.Status(), testseed.Replay(t, seed, "./gosim/tlm"))
			for i := range uint32(cfg.Entries) {
				require.Equal(t, a.Entry(i), b.Entry(i), "entry %d\n%s", i, testseed.Replay(t, seed, "./gosim/tlm"))
			}

			// Both go on alike: inline messages with no release until the buffer is full,
			// then a release of all of it.
			m := msg(20, 20)
			binary.LittleEndian.PutUint32(m[cfg.SizePos:], 20)
			for i := 0; i <= cfg.Entries+1; i++ {
				x, errX := a.Offer(0, m)
				y, errY := b.Offer(0, m)
				require.Equal(t, x, y, "message %d after Feed\n%s", i, testseed.Replay(t, seed, "./gosim/tlm"))
				require.Equal(t, errX, errY, "message %d after Feed\n%s", i, testseed.Replay(t, seed, "./gosim/tlm"))
			}
			st := a.Status()
			r := a.Ready() + 5
			require.Equal(t, a.Release(r, st.LHProd-st.LHCons, 0), b.Release(r, st.LHProd-st.LHCons, 0))
			x, errX := a.Offer(0, m)
			y, errY := b.Offer(0, m)
			require.Equal(t, x, y, testseed.Replay(t, seed, "./gosim/tlm"))
			require.Equal(t, errX, errY, testseed.Replay(t, seed, "./gosim/tlm"))
		})
	}
}

// Feed's fast path wraps the ring as Offer does: a tail that ends at the ring's end puts
// the next one at its start.
func TestFeedRingWrap(t *testing.T) {
	for _, split := range []uint32{48 + 16*6, 48 + 16*5 + 5} { // 6 units, the last one whole or not
		cfg := tlm.DefaultConfig()
		cfg.TailSize = 160 // 10 units
		a, err := tlm.New(cfg)
		require.NoError(t, err)
		b, err := tlm.New(cfg)
		require.NoError(t, err)
		for _, n := range []*tlm.NIC{a, b} {
			acc, err := n.Offer(0, msg(48+16*4, 48+16*4)) // 4 units
			require.NoError(t, err)
			require.NoError(t, n.Release(acc.Commit+1, 1, 64))
		}
		msgs := [][]byte{msg(int(split), split), msg(48+16*3, 48+16*3)}
		var last tlm.Accepted
		for _, m := range msgs {
			last, err = a.Offer(0, m)
			require.NoError(t, err)
			require.NoError(t, a.Release(last.Commit+1, 1, 0))
			require.NoError(t, a.Release(last.Commit+2, 0, 16*last.TailUnits))
		}
		require.Equal(t, uint32(0), last.TailAddr, "the second tail starts the ring again")
		end, err := b.Feed(0, msgs)
		require.NoError(t, err)
		require.Equal(t, last.Commit+1, end)
		require.Equal(t, a.Status(), b.Status())
		for i := range uint32(3) {
			require.Equal(t, a.Entry(i), b.Entry(i))
		}
	}
}

// A size field that needs the whole ring is split; one byte more could never fit and is too
// long, on either path.
func TestFeedRingLimit(t *testing.T) {
	cfg := tlm.DefaultConfig()
	cfg.TailSize = 160 // 10 units
	for _, tc := range []struct {
		size  uint32
		flags uint8
	}{{48 + 160, hw.FlagSplit}, {48 + 161, hw.FlagTooLong}} {
		m := msg(int(tc.size), tc.size)
		a, err := tlm.New(cfg)
		require.NoError(t, err)
		acc, err := a.Offer(0, m)
		require.NoError(t, err)
		require.Equal(t, tc.flags, acc.Flags)
		b, err := tlm.New(cfg)
		require.NoError(t, err)
		_, err = b.Feed(0, [][]byte{m})
		require.NoError(t, err)
		require.Equal(t, a.Entry(0), b.Entry(0))
	}
}

// The network simulator's way: offer each message when it arrives, report each release
// when it happens and, when the input is blocked, offer the message again after the next
// release. It gives every message the cycles it gets when the releases are known ahead.
func TestBlockedReoffer(t *testing.T) {
	for _, seed := range testseed.List(t, 20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sc := scenario{lhsOn: true, entries: []int{4, 16}[seed%2], ringMin: 16, ringMax: 1024, idle: 30, maxDelay: 80, msgs: 500}
			r := newRun(sc, seed)
			ahead := onModel(t, r, 0)

			n, err := tlm.New(r.cfg)
			require.NoError(t, err)
			h := host{lhsOn: true}
			type op struct {
				at             uint64
				entries, bytes uint32
			}
			var planned []op // host releases not yet reported, in cycle order
			at := uint64(r.gaps[0][0])
			blocked := 0
			for k := 0; k < len(r.msgs); {
				// Every release before the message arrives has happened.
				for len(planned) > 0 && planned[0].at < at {
					require.NoError(t, n.Release(planned[0].at, planned[0].entries, planned[0].bytes))
					planned = planned[1:]
				}
				a, err := n.OfferMessage(at, tlm.Message{Bytes: r.msgs[k], Idle: r.gaps[k][1:]})
				if errors.Is(err, tlm.ErrBlocked) {
					blocked++
					require.NotEmpty(t, planned, "blocked with no release to come\n%s", testseed.Replay(t, seed, "./gosim/tlm"))
					require.NoError(t, n.Release(planned[0].at, planned[0].entries, planned[0].bytes))
					planned = planned[1:]
					continue
				}
				require.NoError(t, err)
				require.Equal(t, ahead.done[k], a.Commit, "message %d\n%s", k, testseed.Replay(t, seed, "./gosim/tlm"))
				e := n.Entry(uint32(a.Seq))
				units := entryUnits(r.cfg, e[:])
				o := h.plan(a.Commit, r.delay[k], units)
				planned = append(planned, op{at: o.relLH, entries: 1})
				if o.tail {
					planned = append(planned, op{at: o.relTail, bytes: units * 16})
				}
				k++
				if k < len(r.msgs) {
					at = a.Last + 1 + uint64(r.gaps[k][0])
				}
			}
			require.Positive(t, blocked, "the run never blocked")
		})
	}
}
