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
	// checked holds, per LH slot, whether the entry has been read since the slot last took a
	// message: checkUnknown, checkWhole or checkShort; env its envelope bytes once read.
	checked []uint8
	env     [][EnvelopeBytes]byte
	// spilled holds the messages moved off the LH buffer to host memory (Spill), by id.
	spilled   map[uint64]*spilledMsg
	spillNext uint64 // host memory offset for the next one
	// Spilled counts the messages moved to host memory.
	Spilled int
}

// spilledMsg is a message copied to host memory: what the queue read of it, errors included.
type spilledMsg struct {
	addr    uint64 // where it sits in host memory
	env     Envelope
	envErr  error
	body    []byte
	bodyErr error
}

// spillBase is where spilled messages sit in the host's main memory (a 64 MiB area, reused
// in turn), apart from anything else the model maps.
const spillBase, spillBytes = 0x1000_0000, 64 << 20

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
	return &LHSQueue{h: h, m: m, first: p, known: p, checked: make([]uint8, h.Entries()),
		env: make([][EnvelopeBytes]byte, h.Entries()), spilled: map[uint64]*spilledMsg{}}, nil
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
// The first time it reads an entry it also loads the entry's length (bytes 56..57, the same
// line): a message shorter than the envelope leaves stale bytes where the fields are, which
// must not be matched (ErrShort). (The simulation takes the envelope's bytes from the device
// the first time only, as the cache line holds them: the NIC does not write an entry again
// until the host releases it. The timing of every read is the host model's, which knows
// whether the line is still in a cache.)
func (q *LHSQueue) Envelope(id uint64) (Envelope, error) {
	if sp := q.spilled[id]; sp != nil {
		for _, off := range matchFieldOffsets {
			q.m.CPU.Load(sp.addr+off, 4)
		}
		return sp.env, sp.envErr
	}
	s := q.seq(id)
	if s-q.first >= q.known-q.first {
		return Envelope{}, fmt.Errorf("mpi: message %d has not arrived", id)
	}
	slot := q.slot(s)
	if q.checked[slot] == checkUnknown {
		var desc [4]byte
		if err := q.h.Bus().ReadBlock(q.h.EntryAddr(s), q.env[slot][:]); err != nil {
			return Envelope{}, err
		}
		if err := q.h.Bus().ReadBlock(q.h.EntryAddr(s)+hw.EntryLenOffset, desc[:]); err != nil {
			return Envelope{}, err
		}
		q.m.CPU.Load(q.line(s)+hw.EntryLenOffset, 2)
		q.checked[slot] = checkWhole
		if binary.LittleEndian.Uint16(desc[:]) < EnvelopeBytes {
			q.checked[slot] = checkShort
		}
	}
	for _, off := range matchFieldOffsets {
		q.m.CPU.Load(q.line(s)+off, 4)
	}
	if q.checked[slot] == checkShort {
		return Envelope{}, badMessage(id, ErrShort, "LH entry %d holds fewer than %d bytes", s, EnvelopeBytes)
	}
	return ParseEnvelope(q.env[slot][:])
}

// Body returns the message after its envelope: from the entry for an inline message, and for
// a split one the head's remaining bytes from the entry plus the tail by VL.
func (q *LHSQueue) Body(id uint64) ([]byte, error) {
	if sp := q.spilled[id]; sp != nil {
		q.m.CPU.Load(sp.addr+EnvelopeBytes, len(sp.body))
		return sp.body, sp.bodyErr
	}
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
	if _, ok := q.spilled[id]; ok {
		delete(q.spilled, id) // its entry went back when it was spilled
		return nil
	}
	q.m.CPU.Store(q.m.Addr(hw.RegLHRelease), 4)
	return q.h.Consume(q.seq(id))
}

// Held is the number of LH entries the host holds: arrived (as of the last Arrived) and not
// yet released. When it reaches the buffer's entry count, the NIC holds its input off.
func (q *LHSQueue) Held() int { return int(q.known - q.h.Released()) }

// Spill moves the oldest message the LH buffer holds to host memory (its entry by PIO, its
// tail by VL) and releases its entry, as an MPI library moves unexpected messages off a NIC
// whose buffer is full so that the one a receive waits for can come in. The queue then
// serves the message from host memory. It reports false when the buffer holds nothing the
// queue can move (every held entry is older than the queue, or none has arrived).
func (q *LHSQueue) Spill() (bool, error) {
	s := q.h.Released() // the oldest entry held: not consumed, or it would be released
	if s == q.known || s-q.first >= q.known-q.first {
		return false, nil
	}
	id := uint64(s - q.first)
	sp := &spilledMsg{addr: spillBase + q.spillNext}
	sp.env, sp.envErr = q.Envelope(id)
	if sp.envErr != nil && !isMessageError(sp.envErr) {
		return false, sp.envErr
	}
	if sp.envErr == nil {
		sp.body, sp.bodyErr = q.Body(id)
		if sp.bodyErr != nil && !isMessageError(sp.bodyErr) {
			return false, sp.bodyErr
		}
	}
	q.m.CPU.Store(q.m.Addr(hw.RegLHRelease), 4)
	if err := q.h.Consume(s); err != nil {
		return false, err
	}
	q.spilled[id] = sp
	q.spillNext = (q.spillNext + uint64(EnvelopeBytes+len(sp.body)+63)&^63) % spillBytes
	q.Spilled++
	return true, nil
}
