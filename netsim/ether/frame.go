package ether

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// MAC is an Ethernet address.
type MAC [6]byte

// Broadcast is the all-stations address.
var Broadcast = MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func (m MAC) String() string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// StationMAC is a locally administered unicast address for station n (02:00:xx:xx:xx:xx).
func StationMAC(n uint32) MAC {
	return MAC{0x02, 0x00, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// Errors of Seal and Open.
var (
	ErrPacketSize = errors.New("ether: packet size out of range")
	ErrFCS        = errors.New("ether: frame check sequence does not match")
	ErrRunt       = errors.New("ether: frame shorter than the minimum")
)

// Seal makes the frame for a packet (destination, source, type and payload: a frame less its
// FCS): zero padding up to the minimum frame, then the CRC-32 frame check sequence, sent
// least significant byte first (IEEE 802.3 3.2.9). The packet is not changed.
func Seal(packet []byte) ([]byte, error) {
	if len(packet) < HeaderBytes || len(packet) > MaxPacket {
		return nil, fmt.Errorf("%w: %d bytes, want %d..%d", ErrPacketSize, len(packet), HeaderBytes, MaxPacket)
	}
	f := make([]byte, FrameBytes(len(packet)))
	copy(f, packet)
	n := len(f) - FCSBytes
	binary.LittleEndian.PutUint32(f[n:], crc32.ChecksumIEEE(f[:n]))
	return f, nil
}

// Open checks a frame's FCS and returns its packet: the frame less its FCS, padding
// included (Ethernet II carries no length; the layer above knows its own).
func Open(frame []byte) ([]byte, error) {
	if len(frame) < MinFrame {
		return nil, fmt.Errorf("%w: %d bytes", ErrRunt, len(frame))
	}
	if len(frame) > MaxFrame {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrPacketSize, len(frame), MaxFrame)
	}
	n := len(frame) - FCSBytes
	if got, want := binary.LittleEndian.Uint32(frame[n:]), crc32.ChecksumIEEE(frame[:n]); got != want {
		return nil, fmt.Errorf("%w: %08x, computed %08x", ErrFCS, got, want)
	}
	return frame[:n], nil
}

// Destination is a frame's destination address.
func Destination(frame []byte) MAC {
	var m MAC
	copy(m[:], frame)
	return m
}
