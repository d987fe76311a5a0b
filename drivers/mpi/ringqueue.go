package mpi

import (
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/hw"
)

// RingQueue is the unexpected queue with LHS off (DIMMnet-2 before LHS): every message is
// stored whole in the SO-DIMM tail ring, one after another. The host cannot map the SO-DIMM,
// so every envelope costs a 16-byte VL into the read window; where message k+1 starts is known
// only from message k's size field, so the queue learns positions in arrival order.
type RingQueue struct {
	h     *drivers.Host
	m     *HostModel
	first uint32     // stored-message count when the queue was made
	base  uint64     // id of msgs[0]: released messages are dropped from the front
	start uint32     // ring offset (bytes) of message base
	msgs  []ringSlot // messages base, base+1, ...
	rel   uint64     // oldest message whose space is not yet released
}

type ringSlot struct {
	off      uint32 // byte offset in the ring, once the previous message's size is known
	size     uint32 // size field, once read
	read     bool
	consumed bool
}

// NewRingQueue starts the queue at the next message the device will store: it must be made
// while the ring holds nothing unreleased.
func NewRingQueue(h *drivers.Host, m *HostModel) (*RingQueue, error) {
	if h.Config().LHS {
		return nil, fmt.Errorf("mpi: RingQueue needs a host with LHS off")
	}
	n, err := stored(m)
	if err != nil {
		return nil, err
	}
	used, err := m.ReadReg(hw.RegTailUsed)
	if err != nil {
		return nil, err
	}
	if used != 0 {
		return nil, fmt.Errorf("mpi: tail ring holds %d unreleased bytes", used)
	}
	wptr, err := m.ReadReg(hw.RegTailWptr)
	if err != nil {
		return nil, err
	}
	return &RingQueue{h: h, m: m, first: n, start: wptr}, nil
}

// stored is the number of messages the ring has taken: MSG_COUNT less the ones dropped whole.
func stored(m *HostModel) (uint32, error) {
	n, err := m.ReadReg(hw.RegMsgCount)
	if err != nil {
		return 0, err
	}
	d, err := m.ReadReg(hw.RegDropCount)
	return n - d, err
}

func (q *RingQueue) ringUnits() uint32 { return q.h.Config().TailSize / 16 }

// Arrived reads MSG_COUNT and DROP_COUNT (two uncached reads).
func (q *RingQueue) Arrived() (uint64, error) {
	n, err := stored(q.m)
	if err != nil {
		return 0, err
	}
	for q.base+uint64(len(q.msgs)) < uint64(n-q.first) {
		q.msgs = append(q.msgs, ringSlot{})
	}
	return uint64(n - q.first), nil
}

func (q *RingQueue) memAddr(off uint32) uint32 { return q.h.Config().TailBase + off }

func (q *RingQueue) slot(id uint64) *ringSlot { return &q.msgs[id-q.base] }

// after is the ring offset of the message that follows s (whose envelope has been read).
func (q *RingQueue) after(s *ringSlot) uint32 {
	return (s.off/16 + hw.RingUnits(s.size)) % q.ringUnits() * 16
}

// locate makes sure message id's ring offset is known, reading earlier envelopes if needed.
func (q *RingQueue) locate(id uint64) error {
	if id >= q.base+uint64(len(q.msgs)) {
		return fmt.Errorf("mpi: message %d has not arrived", id)
	}
	if id < q.base {
		return fmt.Errorf("mpi: message %d was consumed", id)
	}
	k := id
	for k > q.base && !q.slot(k-1).read {
		k--
	}
	for ; k < id; k++ {
		if _, err := q.envelope(k); err != nil && !isMessageError(err) {
			return err
		}
	}
	return nil
}

func (q *RingQueue) envelope(id uint64) (Envelope, error) {
	s := q.slot(id)
	s.off = q.start
	if id > q.base {
		s.off = q.after(q.slot(id - 1))
	}
	var raw [EnvelopeBytes]byte
	if err := q.m.VL(q.memAddr(s.off), 0, raw[:], EnvelopeBytes, len(matchFieldOffsets)); err != nil {
		return Envelope{}, err
	}
	env, err := ParseEnvelope(raw[:])
	if err != nil {
		return Envelope{}, err
	}
	s.size, s.read = env.Size, true
	if env.Size < EnvelopeBytes {
		// With LHS off the host knows a message only by its size field: under 16, the
		// envelope is not whole (the NIC still reserved one 16-byte unit for it).
		return Envelope{}, badMessage(id, ErrShort, "size field %d at ring offset %#x", env.Size, s.off)
	}
	return env, nil
}

// Envelope fetches message id's envelope with a 16-byte VL (the paper's step 1 without LHS).
func (q *RingQueue) Envelope(id uint64) (Envelope, error) {
	if err := q.locate(id); err != nil {
		return Envelope{}, err
	}
	if q.slot(id).consumed {
		return Envelope{}, fmt.Errorf("mpi: message %d was consumed", id)
	}
	return q.envelope(id)
}

// Body fetches the bytes after the envelope by VL (the paper's step 3).
func (q *RingQueue) Body(id uint64) ([]byte, error) {
	if err := q.locate(id); err != nil {
		return nil, err
	}
	s := q.slot(id)
	if !s.read {
		if _, err := q.envelope(id); err != nil {
			return nil, err
		}
	}
	if s.size < EnvelopeBytes {
		return nil, badMessage(id, ErrShort, "size field %d", s.size)
	}
	if s.size == EnvelopeBytes {
		return []byte{}, nil
	}
	off := (s.off + EnvelopeBytes) % q.h.Config().TailSize
	return q.m.FetchRing(q.h.Config(), q.h.WindowBytes(), q.memAddr(off), int(s.size)-EnvelopeBytes)
}

// Consume marks message id received and gives back the ring space of the oldest consumed run
// (TAIL_RELEASE must be oldest first).
func (q *RingQueue) Consume(id uint64) error {
	if id < q.base || id >= q.base+uint64(len(q.msgs)) || q.slot(id).consumed {
		return fmt.Errorf("mpi: message %d cannot be consumed", id)
	}
	if !q.slot(id).read {
		if err := q.locate(id); err != nil {
			return err
		}
		if _, err := q.envelope(id); err != nil && !isMessageError(err) {
			return err
		}
	}
	q.slot(id).consumed = true
	var bytes uint32
	for q.rel < q.base+uint64(len(q.msgs)) && q.slot(q.rel).consumed {
		bytes += hw.RingUnits(q.slot(q.rel).size) * 16
		q.rel++
	}
	if n := q.rel - q.base; n > 0 {
		q.start = q.after(q.slot(q.rel - 1))
		q.msgs = append(q.msgs[:0], q.msgs[n:]...)
		q.base = q.rel
	}
	if bytes == 0 {
		return nil
	}
	if err := q.m.WriteReg(hw.RegTailRelease, bytes); err != nil {
		return err
	}
	e, err := q.m.ReadReg(hw.RegErr)
	if err != nil {
		return err
	}
	if e&hw.ErrRelease != 0 {
		return fmt.Errorf("mpi: tail release of %d bytes refused (ERR %#x): %w", bytes, e, drivers.ErrHardware)
	}
	return nil
}
