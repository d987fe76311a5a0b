package mpi

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/hw"
)

// matchFieldOffsets are the envelope fields the search loop loads, in the order Pattern.Match
// compares them: communicator, source, tag. The -O0 loop loads each one separately.
var matchFieldOffsets = [3]uint64{8, 0, 4}

// LHSQueue is the unexpected queue with LHS on: message id is LH entry first+id. Envelopes
// (and bodies of up to 40 bytes) are read by PIO from the entry, a write-back cacheable line;
// a split message's tail comes by VL from the entry's pointer.
type LHSQueue struct {
	h     *drivers.Host
	m     *HostModel
	first uint32 // LH_PROD when the queue was made: entry of message 0
	known uint32 // entries the host has learned of (LH_PROD at the last Arrived)
	// checked holds, per LH slot, whether the entry's length has been read since the slot
	// last took a message: checkUnknown, checkWhole or checkShort.
	checked []uint8
}

const (
	checkUnknown uint8 = iota
	checkWhole
	checkShort
)

// NewLHSQueue starts the queue at the device's current LH_PROD: earlier entries are not its.
func NewLHSQueue(h *drivers.Host, m *HostModel) (*LHSQueue, error) {
	if !h.Config().LHS {
		return nil, fmt.Errorf("mpi: LHSQueue needs a host with LHS on")
	}
	p, err := m.ReadReg(hw.RegLHProd)
	if err != nil {
		return nil, err
	}
	return &LHSQueue{h: h, m: m, first: p, known: p, checked: make([]uint8, h.Entries())}, nil
}

func (q *LHSQueue) seq(id uint64) uint32 { return q.first + uint32(id) }

func (q *LHSQueue) line(seq uint32) uint64 { return q.m.Addr(q.h.EntryAddr(seq)) }

func (q *LHSQueue) slot(seq uint32) int { return int(seq % uint32(len(q.checked))) }

// Arrived reads LH_PROD (one uncached read). It flushes the lines of entries it learns of for
// the first time: the slot may hold a stale copy (an earlier message in the same slot, or a
// line the stream prefetcher fetched past the last valid entry before the NIC wrote it), and
// paper 4.2's rule is to flush before an address is reused.
func (q *LHSQueue) Arrived() (uint64, error) {
	p, err := q.m.ReadReg(hw.RegLHProd)
	if err != nil {
		return 0, err
	}
	for ; q.known != p; q.known++ {
		q.m.CPU.Flush(q.line(q.known))
		q.checked[q.slot(q.known)] = checkUnknown
	}
	return uint64(p - q.first), nil
}

// Envelope reads the entry by PIO: three 4-byte loads of the match fields from the cache line.
// (The simulation reads the envelope's 16 bytes from the device each time; the timing is the
// host model's, which knows whether the line was in a cache.) The first time it reads an
// entry it also loads the entry's length (bytes 56..57, the same line): a message shorter
// than the envelope leaves stale bytes where the fields are, which must not be matched
// (ErrShort).
func (q *LHSQueue) Envelope(id uint64) (Envelope, error) {
	s := q.seq(id)
	if s-q.first >= q.known-q.first {
		return Envelope{}, fmt.Errorf("mpi: message %d has not arrived", id)
	}
	var raw [EnvelopeBytes]byte
	if err := q.h.Device().ReadBlock(q.h.EntryAddr(s), raw[:]); err != nil {
		return Envelope{}, err
	}
	for _, off := range matchFieldOffsets {
		q.m.CPU.Load(q.line(s)+off, 4)
	}
	switch q.checked[q.slot(s)] {
	case checkShort:
		return Envelope{}, badMessage(id, ErrShort, "LH entry %d", s)
	case checkUnknown:
		var desc [4]byte
		if err := q.h.Device().ReadBlock(q.h.EntryAddr(s)+hw.EntryLenOffset, desc[:]); err != nil {
			return Envelope{}, err
		}
		q.m.CPU.Load(q.line(s)+hw.EntryLenOffset, 2)
		if n := binary.LittleEndian.Uint16(desc[:]); n < EnvelopeBytes {
			q.checked[q.slot(s)] = checkShort
			return Envelope{}, badMessage(id, ErrShort, "LH entry %d holds %d bytes", s, n)
		}
		q.checked[q.slot(s)] = checkWhole
	}
	return ParseEnvelope(raw[:])
}

// Body returns the message after its envelope: from the entry for an inline message, and for
// a split one the head's remaining bytes from the entry plus the tail by VL.
func (q *LHSQueue) Body(id uint64) ([]byte, error) {
	s := q.seq(id)
	e, err := q.h.ReadEntry(s)
	if err != nil {
		return nil, err
	}
	head := e.Head()
	if len(head) < EnvelopeBytes {
		return nil, badMessage(id, ErrShort, "LH entry %d holds %d bytes", s, len(head))
	}
	body := make([]byte, len(head)-EnvelopeBytes)
	copy(body, head[EnvelopeBytes:])
	q.m.CPU.Load(q.line(s)+EnvelopeBytes, len(body))
	if e.Flags&hw.FlagTooLong != 0 {
		// The NIC kept the head (up to SPLIT_POS) and dropped the tail: the receive gets the
		// head's body bytes and ErrTooLong.
		return body, badMessage(id, ErrTooLong, "size field %d, %d bytes delivered, %d kept", e.Size(), e.Len, len(head))
	}
	if n := e.TailLen(); n > 0 {
		tail, err := q.m.FetchRing(q.h.Config(), q.h.WindowBytes(), e.TailPtr, n)
		if err != nil {
			return nil, err
		}
		body = append(body, tail...)
	}
	if size := int(e.Size()); size >= EnvelopeBytes && len(body) > size-EnvelopeBytes {
		body = body[:size-EnvelopeBytes]
	}
	if e.Flags&hw.FlagMismatch != 0 {
		return body, badMessage(id, ErrMismatch, "size field %d, %d bytes delivered", e.Size(), e.Len)
	}
	return body, nil
}

// Consume hands the entry back to the driver, which releases the oldest consumed run (an
// uncached LH_RELEASE write, and TAIL_RELEASE for split entries).
func (q *LHSQueue) Consume(id uint64) error {
	q.m.CPU.Store(q.m.Addr(hw.RegLHRelease), 4)
	return q.h.Consume(q.seq(id))
}
