// Package ether models the MBCF paper's shared Ethernet: frames on a half-duplex repeater hub.
package ether

// ether models the shared Ethernet of the MBCF paper's machine (Matsumoto and Hiraki, MBCF
// over 100BASE-TX and 10BASE-T): frames with their preamble, padding to the minimum size and
// CRC-32 frame check sequence, and a repeater hub that all stations share, half duplex, with
// carrier sense, collisions, jam and truncated binary exponential backoff (CSMA/CD). Time on
// the wire comes from the frame's size and the bit rate; nothing else is charged here.
//
// A frame moves whole: a station asks the hub to send it (Hub.Send); when the medium is free
// (and the inter-frame gap has passed) its bits go out, and once its last bit has crossed
// the hub (Medium.Latency later) the station with the destination address gets it
// (Station.Receive). Two stations that start within Medium.Latency of each other cannot hear
// each other and collide; both jam, back off and try again, up to the attempt limit.
//
// A lossy mode (Faults) drops, duplicates, delays past later frames (reorders) or corrupts
// frames at a given rate, drawn from a seeded generator, so that protocols above can be tested
// against loss deterministically.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// IEEE 802.3 framing, the same at 10 and 100 Mb/s (IEEE Std 802.3 clause 3.1 and 4.4.2).
const (
	PreambleBytes = 8    // 7 preamble bytes and the start frame delimiter
	HeaderBytes   = 14   // destination, source, type
	FCSBytes      = 4    // CRC-32 frame check sequence
	MinFrame      = 64   // smallest frame, header to FCS: shorter ones are padded
	MaxFrame      = 1518 // largest untagged frame, header to FCS
	// MinPacket and MaxPacket bound what a station hands over: a frame less its FCS.
	MinPacket = MinFrame - FCSBytes
	MaxPacket = MaxFrame - FCSBytes
)

// Medium is one kind of Ethernet and the hub that joins the stations. The defaults
// (FastEthernet, Ethernet10) cite their sources.
type Medium struct {
	Name    string
	BitRate int64 // bits per second; a byte takes 8e12/BitRate picoseconds, which must be whole
	// GapBits is the inter-frame gap a station leaves after the medium goes idle (96 bit times,
	// IEEE 802.3 4.4.2).
	GapBits int
	// SlotBits is the backoff unit (512 bit times, 4.4.2); JamBits the jam sent on a collision
	// (32 bit times); AttemptLimit the transmissions of one frame before it is dropped (16);
	// BackoffLimit the exponent's cap (10).
	SlotBits, JamBits, AttemptLimit, BackoffLimit int
	// Latency is one way, from a bit leaving the sender's MAC to it reaching the receiver's:
	// both stations' PHYs, the hub and the cables. It is also the collision window: a station
	// that starts within Latency of another has not heard it yet.
	Latency netsim.Time
}

// FastEthernet is 100BASE-TX on a Class II repeater hub, as the MBCF paper's five workstations were
// joined (§4: "100baseTX のハブで Fast Ethernet 接続"). Latency is the one-way share of IEEE
// 802.3's round-trip delay budget (clause 29.3, as summarised by hub vendors' manuals): a
// Class II TX repeater 92 bit times round trip (46 one way), two TX DTEs 100 (50 one way),
// and Category 5 cable at 1.112 bit times per metre round trip over two 10 m runs (an
// assumption: the seed gives no cable lengths): 0.46 + 0.50 + 0.11 µs.
func FastEthernet() Medium {
	return Medium{Name: "100basetx", BitRate: 100_000_000, GapBits: 96, SlotBits: 512, JamBits: 32,
		AttemptLimit: 16, BackoffLimit: 10, Latency: 1071 * netsim.Nanosecond}
}

// Ethernet10 is 10BASE-T on a repeater hub (the MBCF paper's §4: all eight workstations "10baseT のハブで
// 接続"). Latency is an assumption, 2 µs for the PHYs, the repeater and the cables: the seed
// gives none, and at 0.8 µs a byte the frames dwarf it (1 µs more or less moves a 4-byte
// round trip by under 1 %).
func Ethernet10() Medium {
	return Medium{Name: "10baset", BitRate: 10_000_000, GapBits: 96, SlotBits: 512, JamBits: 32,
		AttemptLimit: 16, BackoffLimit: 10, Latency: 2 * netsim.Microsecond}
}

// Validate reports the first parameter that cannot work.
func (m Medium) Validate() error {
	switch {
	case m.BitRate <= 0 || 8_000_000_000_000%m.BitRate != 0:
		return fmt.Errorf("ether: %s: bit rate %d b/s: want one that makes a byte a whole number of picoseconds", m.Name, m.BitRate)
	case m.GapBits < 0 || m.JamBits < 0:
		return fmt.Errorf("ether: %s: gap %d and jam %d bits: want >= 0", m.Name, m.GapBits, m.JamBits)
	case m.SlotBits < 1:
		return fmt.Errorf("ether: %s: slot of %d bits: want >= 1", m.Name, m.SlotBits)
	case m.AttemptLimit < 1 || m.BackoffLimit < 0 || m.BackoffLimit > 30:
		return fmt.Errorf("ether: %s: attempt limit %d, backoff limit %d: want >= 1 and 0..30", m.Name, m.AttemptLimit, m.BackoffLimit)
	case m.Latency < 0:
		return fmt.Errorf("ether: %s: latency %v: want >= 0", m.Name, m.Latency)
	}
	return nil
}

// ByteTime is how long one byte takes on the wire.
func (m Medium) ByteTime() netsim.Time { return netsim.Time(8_000_000_000_000 / m.BitRate) }

func (m Medium) bits(n int) netsim.Time { return netsim.Time(n) * m.ByteTime() / 8 }

// Gap is the inter-frame gap; Slot the backoff unit; Jam the jam's length.
func (m Medium) Gap() netsim.Time  { return m.bits(m.GapBits) }
func (m Medium) Slot() netsim.Time { return m.bits(m.SlotBits) }
func (m Medium) Jam() netsim.Time  { return m.bits(m.JamBits) }

// FrameBytes is the size of the frame that carries a packet of n bytes (header included, FCS
// not): padded to the minimum, plus the FCS.
func FrameBytes(n int) int { return max(n, MinPacket) + FCSBytes }

// WireTime is how long a frame of frameBytes (header to FCS) occupies the wire: preamble and
// start delimiter included, the gap after it not.
func (m Medium) WireTime(frameBytes int) netsim.Time {
	return netsim.Time(PreambleBytes+frameBytes) * m.ByteTime()
}

// RawRate is the medium's rate in bytes per second (12.5 MB/s for 100BASE-TX, the "生の
// ハードウェア性能" the MBCF paper's §4.1 compares its peak bandwidth with).
func (m Medium) RawRate() float64 { return float64(m.BitRate) / 8 }
