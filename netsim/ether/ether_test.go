package ether

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
)

// A frame is the packet, zero padding to 60 bytes, and the CRC-32 of all of it, least
// significant byte first; checking it over the whole frame leaves CRC-32's fixed residue.
func TestSealBytes(t *testing.T) {
	pkt := []byte{
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // destination
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, // source
		0x88, 0xb5, // type
		'h', 'i',
	}
	f, err := Seal(pkt)
	require.NoError(t, err)
	require.Len(t, f, 64)
	require.Equal(t, pkt, f[:16])
	require.Equal(t, make([]byte, 44), f[16:60], "padding is zeros")
	want := crc32.ChecksumIEEE(f[:60])
	require.Equal(t, []byte{byte(want), byte(want >> 8), byte(want >> 16), byte(want >> 24)}, f[60:])
	require.Equal(t, uint32(0x2144df1c), crc32.ChecksumIEEE(f), "CRC-32 over a frame and its FCS leaves the standard residue")
	require.Equal(t, uint32(0xcbf43926), crc32.ChecksumIEEE([]byte("123456789")), "the IEEE polynomial's check value")

	got, err := Open(f)
	require.NoError(t, err)
	require.Equal(t, f[:60], got)

	// A frame long enough needs no padding.
	big := make([]byte, 100)
	copy(big, pkt)
	f2, err := Seal(big)
	require.NoError(t, err)
	require.Len(t, f2, 104)
	require.Equal(t, binary.LittleEndian.Uint32(f2[100:]), crc32.ChecksumIEEE(big))
}

// Every single-bit error in a frame fails its FCS; sizes out of range are refused.
func TestOpenRefusesBadFrames(t *testing.T) {
	f, err := Seal(make([]byte, 200))
	require.NoError(t, err)
	for i := range len(f) * 8 {
		bad := slices.Clone(f)
		bad[i/8] ^= 1 << (i % 8)
		_, err := Open(bad)
		require.ErrorIs(t, err, ErrFCS, "bit %d", i)
	}
	_, err = Open(f[:63])
	require.ErrorIs(t, err, ErrRunt)
	_, err = Open(make([]byte, MaxFrame+1))
	require.ErrorIs(t, err, ErrPacketSize)
	_, err = Seal(make([]byte, 13))
	require.ErrorIs(t, err, ErrPacketSize)
	_, err = Seal(make([]byte, MaxPacket+1))
	require.ErrorIs(t, err, ErrPacketSize)
	_, err = Seal(make([]byte, MaxPacket))
	require.NoError(t, err)
}

// Times on the wire from IEEE 802.3's framing and the bit rate.
func TestWireTimes(t *testing.T) {
	fe, e10 := FastEthernet(), Ethernet10()
	require.NoError(t, fe.Validate())
	require.NoError(t, e10.Validate())
	require.Equal(t, 80*netsim.Nanosecond, fe.ByteTime())
	require.Equal(t, 800*netsim.Nanosecond, e10.ByteTime())
	require.Equal(t, 5760*netsim.Nanosecond, fe.WireTime(64)) // 8 + 64 bytes
	require.Equal(t, 122080*netsim.Nanosecond, fe.WireTime(1518))
	require.Equal(t, 57600*netsim.Nanosecond, e10.WireTime(64))
	require.Equal(t, 960*netsim.Nanosecond, fe.Gap())
	require.Equal(t, 9600*netsim.Nanosecond, e10.Gap())
	require.Equal(t, 5120*netsim.Nanosecond, fe.Slot())
	require.Equal(t, 51200*netsim.Nanosecond, e10.Slot())
	require.Equal(t, 64, FrameBytes(1))
	require.Equal(t, 64, FrameBytes(60))
	require.Equal(t, 65, FrameBytes(61))
	require.Equal(t, 1518, FrameBytes(MaxPacket))
	require.Equal(t, 12.5e6, fe.RawRate())
}

func TestMediumValidate(t *testing.T) {
	for name, mod := range map[string]func(*Medium){
		"rate":    func(m *Medium) { m.BitRate = 0 },
		"odd":     func(m *Medium) { m.BitRate = 3 },
		"slot":    func(m *Medium) { m.SlotBits = 0 },
		"gap":     func(m *Medium) { m.GapBits = -1 },
		"attempt": func(m *Medium) { m.AttemptLimit = 0 },
		"backoff": func(m *Medium) { m.BackoffLimit = 31 },
		"latency": func(m *Medium) { m.Latency = -1 },
	} {
		m := FastEthernet()
		mod(&m)
		require.Error(t, m.Validate(), name)
		_, err := NewHub(&netsim.Engine{}, m, 1)
		require.Error(t, err, name)
	}
}

type arrival struct {
	at    netsim.Time
	frame []byte
}

type sink struct{ got []arrival }

func (s *sink) Receive(now netsim.Time, f []byte) { s.got = append(s.got, arrival{now, f}) }

func newHub(t testing.TB, m Medium, n int, seed uint64) (*netsim.Engine, *Hub, []*sink) {
	t.Helper()
	eng := &netsim.Engine{}
	h, err := NewHub(eng, m, seed)
	require.NoError(t, err)
	var sinks []*sink
	for i := range n {
		s := &sink{}
		p, err := h.Attach(StationMAC(uint32(i)), s)
		require.NoError(t, err)
		require.Equal(t, i, p)
		sinks = append(sinks, s)
	}
	return eng, h, sinks
}

func frameTo(t testing.TB, dst, src uint32, n int, tag byte) []byte {
	t.Helper()
	p := make([]byte, n)
	d, s := StationMAC(dst), StationMAC(src)
	copy(p, d[:])
	copy(p[6:], s[:])
	binary.BigEndian.PutUint16(p[12:], 0x88b5)
	for i := 14; i < n; i++ {
		p[i] = tag
	}
	f, err := Seal(p)
	require.NoError(t, err)
	return f
}

// A lone frame arrives its wire time plus the latency after it is sent; only its destination
// gets it; the sender is told when its last bit has left.
func TestLoneFrame(t *testing.T) {
	for _, m := range []Medium{FastEthernet(), Ethernet10()} {
		eng, h, sinks := newHub(t, m, 3, 1)
		f := frameTo(t, 2, 0, 100, 7)
		var sentAt netsim.Time = -1
		require.NoError(t, h.Send(0, 0, f, func(now netsim.Time, err error) { require.NoError(t, err); sentAt = now }))
		eng.Run(netsim.Never)
		require.Equal(t, m.WireTime(104), sentAt, m.Name)
		require.Len(t, sinks[2].got, 1)
		require.Empty(t, sinks[1].got)
		require.Empty(t, sinks[0].got)
		require.Equal(t, m.WireTime(104)+m.Latency, sinks[2].got[0].at)
		require.Equal(t, f, sinks[2].got[0].frame)
		st := h.Stats()
		require.Equal(t, 1, st.Frames)
		require.Equal(t, int64(112), st.WireBytes)
	}
}

// A broadcast reaches every other station; an address nobody has reaches none, counted.
func TestBroadcastAndUnclaimed(t *testing.T) {
	eng, h, sinks := newHub(t, FastEthernet(), 3, 1)
	b := frameTo(t, 0, 1, 60, 1)
	copy(b, Broadcast[:])
	b, err := Seal(b[:60])
	require.NoError(t, err)
	require.NoError(t, h.Send(0, 1, b, func(netsim.Time, error) {}))
	eng.Run(netsim.Never)
	require.Len(t, sinks[0].got, 1)
	require.Len(t, sinks[2].got, 1)
	require.Empty(t, sinks[1].got)
	require.NoError(t, h.Send(eng.Now(), 0, frameTo(t, 9, 0, 60, 1), func(netsim.Time, error) {}))
	eng.Run(netsim.Never)
	require.Equal(t, 1, h.Stats().Unclaimed)
}

// A station that hears a frame on the medium waits for its end and the inter-frame gap.
func TestDeferral(t *testing.T) {
	m := FastEthernet()
	eng, h, sinks := newHub(t, m, 3, 1)
	a := frameTo(t, 2, 0, 1000, 1)
	b := frameTo(t, 2, 1, 60, 2)
	require.NoError(t, h.Send(0, 0, a, func(netsim.Time, error) {}))
	later := m.Latency + 10*netsim.Microsecond // B hears A by then
	eng.At(later, netsim.Func(func(now netsim.Time, _ int64) {
		require.NoError(t, h.Send(now, 1, b, func(netsim.Time, error) {}))
	}), 0)
	eng.Run(netsim.Never)
	got := sinks[2].got
	require.Len(t, got, 2)
	aEnd := m.WireTime(len(a))
	require.Equal(t, aEnd+m.Latency, got[0].at)
	require.Equal(t, aEnd+m.Latency+m.Gap()+m.WireTime(len(b))+m.Latency, got[1].at, "B starts a gap after A's end reached it")
	require.Equal(t, 1, h.Stats().Deferrals)
	require.Zero(t, h.Stats().Collisions)
}

// Stations that start within the latency of each other collide, back off and get through;
// the frames that arrive never overlapped on the medium, and the same seed gives the same
// times.
func TestCollisions(t *testing.T) {
	for _, seed := range testseed.List(t, 5) {
		run := func() ([]arrival, Stats) {
			m := FastEthernet()
			eng, h, sinks := newHub(t, m, 9, seed)
			for s := range 8 {
				k := 0
				var next func(now netsim.Time, err error)
				next = func(now netsim.Time, err error) {
					if k == 25 {
						return
					}
					k++
					require.NoError(t, h.Send(now, s, frameTo(t, 8, uint32(s), 60+s*40, byte(k)), next))
				}
				next(0, nil)
			}
			eng.Run(netsim.Never)
			return sinks[8].got, h.Stats()
		}
		got, st := run()
		m := FastEthernet()
		require.Equal(t, 8*25, len(got)+st.Dropped, testseed.Replay(t, seed, "./netsim/ether"))
		require.Greater(t, st.Collisions, 10, testseed.Replay(t, seed, "./netsim/ether"))
		for i := 1; i < len(got); i++ {
			// Arrival of frame i's last bit minus its own wire time is when it started
			// arriving: after the previous one's end and the gap.
			startI := got[i].at - m.WireTime(len(got[i].frame))
			require.GreaterOrEqual(t, startI, got[i-1].at+m.Gap(), "frames %d and %d overlap on the medium\n%s", i-1, i, testseed.Replay(t, seed, "./netsim/ether"))
		}
		for _, a := range got {
			_, err := Open(a.frame)
			require.NoError(t, err, testseed.Replay(t, seed, "./netsim/ether"))
		}
		again, st2 := run()
		require.Equal(t, got, again, "same seed, same run\n%s", testseed.Replay(t, seed, "./netsim/ether"))
		require.Equal(t, st, st2)
	}
}

// The lossy mode drops, corrupts, duplicates and reorders at its rates, repeatably.
func TestFaults(t *testing.T) {
	const frames = 2000
	run := func(f Faults) ([]arrival, Stats) {
		m := FastEthernet()
		eng, h, sinks := newHub(t, m, 2, 1)
		require.NoError(t, h.SetFaults(f))
		k := 0
		var next func(now netsim.Time, err error)
		next = func(now netsim.Time, err error) {
			if k == frames {
				return
			}
			k++
			p := frameTo(t, 1, 0, 60, 0)
			binary.BigEndian.PutUint32(p[14:], uint32(k))
			p, _ = Seal(p[:60])
			require.NoError(t, h.Send(now, 0, p, next))
		}
		next(0, nil)
		eng.Run(netsim.Never)
		return sinks[1].got, h.Stats()
	}
	// Within five standard deviations of the binomial mean: a rate wired wrong fails this.
	near := func(n int, p float64, what string) {
		mean := frames * p
		sd := 5 * sqrt(frames*p*(1-p))
		require.InDelta(t, mean, float64(n), sd, what)
	}
	got, st := run(Faults{Drop: 0.2, Seed: 7})
	near(st.FaultDrops, 0.2, "drops")
	require.Equal(t, frames-st.FaultDrops, len(got))

	got, st = run(Faults{Corrupt: 0.1, Seed: 7})
	near(st.FaultCorrupts, 0.1, "corruptions")
	bad := 0
	for _, a := range got {
		if _, err := Open(a.frame); err != nil {
			bad++
		}
	}
	require.Equal(t, st.FaultCorrupts, bad, "every corrupted frame fails its FCS")

	got, st = run(Faults{Duplicate: 0.1, Seed: 7})
	near(st.FaultDuplicates, 0.1, "duplicates")
	require.Equal(t, frames+st.FaultDuplicates, len(got))

	got, st = run(Faults{Reorder: 0.1, Seed: 7})
	near(st.FaultReorders, 0.1, "reorders")
	require.Len(t, got, frames)
	swapped := 0
	for i := 1; i < len(got); i++ {
		if binary.BigEndian.Uint32(got[i].frame[14:]) < binary.BigEndian.Uint32(got[i-1].frame[14:]) {
			swapped++
		}
	}
	require.Positive(t, swapped, "reordered frames arrive after later ones")

	a, _ := run(Faults{Drop: 0.1, Duplicate: 0.1, Reorder: 0.1, Corrupt: 0.1, Seed: 3})
	b, _ := run(Faults{Drop: 0.1, Duplicate: 0.1, Reorder: 0.1, Corrupt: 0.1, Seed: 3})
	c, _ := run(Faults{Drop: 0.1, Duplicate: 0.1, Reorder: 0.1, Corrupt: 0.1, Seed: 4})
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)

	for _, f := range []Faults{{Drop: 1}, {Drop: -0.1}, {Corrupt: 2}, {Reorder: 0.1, ReorderDelay: -1}} {
		_, h := func() (*netsim.Engine, *Hub) { e, h, _ := newHub(t, FastEthernet(), 2, 1); return e, h }()
		require.Error(t, h.SetFaults(f), "%+v", f)
	}
}

func sqrt(x float64) float64 {
	z := x
	for range 50 {
		z = (z + x/z) / 2
	}
	return z
}

// What a hub refuses: a port that does not exist, a frame out of size, a second frame while
// one is in the MAC, a group or repeated station address.
func TestHubRefuses(t *testing.T) {
	eng, h, _ := newHub(t, FastEthernet(), 2, 1)
	f := frameTo(t, 1, 0, 60, 0)
	require.ErrorIs(t, h.Send(0, 5, f, nil), ErrNoPort)
	require.ErrorIs(t, h.Send(0, -1, f, nil), ErrNoPort)
	require.ErrorIs(t, h.Send(0, 0, f[:63], nil), ErrPacketSize)
	require.NoError(t, h.Send(0, 0, f, func(netsim.Time, error) {}))
	require.ErrorIs(t, h.Send(0, 0, f, nil), ErrBusy)
	eng.Run(netsim.Never)
	_, err := h.Attach(StationMAC(0), &sink{})
	require.Error(t, err)
	_, err = h.Attach(Broadcast, &sink{})
	require.Error(t, err)
	_, err = h.Attach(MAC{0x01, 0, 0x5e, 0, 0, 1}, &sink{})
	require.Error(t, err)
}
