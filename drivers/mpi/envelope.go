// Package mpi is the host's MPI point-to-point layer: eager sends, receives matched on an envelope.
package mpi

// mpi is the MPI-style point-to-point layer of the host driver: eager sends that become
// messages with a 16-byte envelope, and receives that match on (source, tag, communicator)
// against the unexpected-message queue or wait in the posted-receive queue.
//
// The matching core (Engine) is written against Queue, the unexpected queue as the host sees
// it: messages numbered in arrival order, whose envelopes and bodies the host can read and
// which it can consume out of order. That makes its semantics testable without a device
// (MemQueue), and lets the same core run over the two receive paths of the paper (section 4.2):
//
//   - LHSQueue, with LHS: each message has an LH entry in the NIC's block RAM, mapped into the
//     host's address space write-back cacheable. The envelope and a short body are read by PIO
//     from the entry; a long body's tail is fetched by a vector load (VL) from the entry's
//     pointer.
//   - RingQueue, without LHS: every message is stored whole in the NIC's SO-DIMM. The envelope
//     is fetched by a 16-byte VL into the read window, then the body by more VLs.
//
// Both queues charge what they do to a hostcpu.CPU, the host timing model, so a search has a
// simulated duration; the device does the data movement for real.

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/hw"
)

// Wildcards of a receive.
const (
	AnySource int32 = -1
	AnyTag    int32 = -1
)

// EnvelopeBytes is the envelope's length; the size field sits at SizeOffset, the device's
// default size position.
const (
	EnvelopeBytes = 16
	SizeOffset    = 12
)

// Envelope is the head of every message: little-endian int32 source rank (byte 0), tag (4),
// communicator (8), and uint32 size, the whole message length in bytes, envelope included (12).
type Envelope struct {
	Source int32
	Tag    int32
	Comm   int32
	Size   uint32
}

// Put writes the envelope into b[:16]; a shorter b is an error, and nothing is written.
func (e Envelope) Put(b []byte) error {
	if len(b) < EnvelopeBytes {
		return fmt.Errorf("mpi: envelope needs %d bytes, the buffer has %d", EnvelopeBytes, len(b))
	}
	binary.LittleEndian.PutUint32(b[0:], uint32(e.Source))
	binary.LittleEndian.PutUint32(b[4:], uint32(e.Tag))
	binary.LittleEndian.PutUint32(b[8:], uint32(e.Comm))
	binary.LittleEndian.PutUint32(b[SizeOffset:], e.Size)
	return nil
}

// ParseEnvelope reads an envelope from the first 16 bytes of b.
func ParseEnvelope(b []byte) (Envelope, error) {
	if len(b) < EnvelopeBytes {
		return Envelope{}, fmt.Errorf("mpi: envelope needs %d bytes, have %d", EnvelopeBytes, len(b))
	}
	return Envelope{
		Source: int32(binary.LittleEndian.Uint32(b[0:])),
		Tag:    int32(binary.LittleEndian.Uint32(b[4:])),
		Comm:   int32(binary.LittleEndian.Uint32(b[8:])),
		Size:   binary.LittleEndian.Uint32(b[SizeOffset:]),
	}, nil
}

// Eager builds the message an eager send puts on the wire: the envelope, then the body. It
// checks nothing (tests and experiments build bad messages with it); Sender.Send checks.
func Eager(source, tag, comm int32, body []byte) []byte {
	msg := make([]byte, EnvelopeBytes+len(body))
	_ = Envelope{Source: source, Tag: tag, Comm: comm, Size: uint32(len(msg))}.Put(msg) // msg holds it
	copy(msg[EnvelopeBytes:], body)
	return msg
}

// Injector is where sends go: the network input of the receiving NIC (device.Device has it).
type Injector interface {
	Inject(msg []byte) error
}

// Sender is one rank's send side towards one receiver. Sends from one Sender reach the
// receiver in order (the network controller keeps per-pair order), which is what MPI's
// non-overtaking rule builds on.
type Sender struct {
	Rank int32
	Net  Injector
	// MaxMsg is the longest message the receiver takes whole, envelope included: MaxMessage
	// of its driver configuration (0: MAX_MSG's reset value, hw.MaxMsgReset).
	MaxMsg uint32
}

// MaxMessage is the longest message a host configured as cfg (Host.Config) receives whole:
// MAX_MSG, and no more than its tail ring can ever hold (a longer message is treated as too
// long by the NIC, docs/design.md); with LHS on, never less than an inline message
// (hw.InlineMax), which the LH entry stores whole whatever MAX_MSG says.
func MaxMessage(cfg drivers.Config) uint32 {
	maxMsg, ring, split := cfg.MaxMsg, cfg.TailSize, cfg.SplitPos
	if maxMsg == 0 {
		maxMsg = hw.MaxMsgReset
	}
	if ring == 0 {
		ring = hw.TailSizeReset
	}
	if split == 0 {
		split = hw.SplitPosReset
	}
	if cfg.LHS {
		ring += split // the head stays in the LH entry
		return max(hw.InlineMax, min(maxMsg, ring))
	}
	return min(maxMsg, ring)
}

// Send is an eager send: the message goes out at once, whether or not a receive is posted.
// A message the receiver could not take whole is refused here (ErrSendTooLong): there is no
// rendezvous path, and the NIC would drop it (LHS off) or its tail (LHS on). Tags are
// non-negative: the ones below AnyTag are the library's (ReservedTagMax).
func (s Sender) Send(tag, comm int32, body []byte) error {
	if tag < 0 {
		return fmt.Errorf("mpi: send tag %d is negative", tag)
	}
	if comm < 0 || s.Rank < 0 {
		return fmt.Errorf("mpi: send on communicator %d from rank %d: both must be >= 0", comm, s.Rank)
	}
	limit := s.MaxMsg
	if limit == 0 {
		limit = hw.MaxMsgReset
	}
	if limit < EnvelopeBytes {
		return fmt.Errorf("%w: the receiver takes messages of at most %d bytes, less than the %d-byte envelope", ErrSendTooLong, limit, EnvelopeBytes)
	}
	if uint64(len(body)) > uint64(limit)-EnvelopeBytes {
		return fmt.Errorf("%w: a %d-byte body makes a %d-byte message, the receiver takes %d", ErrSendTooLong,
			len(body), uint64(len(body))+EnvelopeBytes, limit)
	}
	return s.Net.Inject(Eager(s.Rank, tag, comm, body))
}

// Pattern is what a receive asks for: a source rank or AnySource, a tag or AnyTag, and a
// communicator (never a wildcard in MPI).
type Pattern struct {
	Source int32
	Tag    int32
	Comm   int32
}

// Match reports whether e satisfies p, and how many fields it compared: the order is
// communicator, source, tag, stopping at the first difference; AnySource costs no compare,
// AnyTag one (the tag's sign: it matches no reserved tag, ReservedTagMax). The count feeds
// the timing model (each compare is a few instructions of the search loop).
func (p Pattern) Match(e Envelope) (ok bool, compared int) {
	compared++
	if e.Comm != p.Comm {
		return false, compared
	}
	if p.Source != AnySource {
		compared++
		if e.Source != p.Source {
			return false, compared
		}
	}
	compared++
	if p.Tag == AnyTag && e.Tag < 0 || p.Tag != AnyTag && e.Tag != p.Tag {
		return false, compared
	}
	return true, compared
}
