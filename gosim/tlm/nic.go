// Package tlm is a transaction-level model of the NIC's receive path: the RTL's cycles by arithmetic.
package tlm

// tlm is a transaction-level model of the NIC's receive path (rtl/lhs_rx.v inside
// rtl/lhs_top.v): the splitter, the LH buffer and the tail ring, without a clock. Given a
// message offered at the 128-bit network input and the host's releases, it works out by
// arithmetic on the message's beats when the input takes the message's first and last beats
// and when its LH entry commits, and what the entry holds: the cycles and bytes the RTL
// produces, with no per-cycle work. It is meant to be a node's receive path in the network
// simulator, where stepping the RTL for every node costs too much.
//
// The rules it implements, and what it leaves out, are in docs/tlm.md; the tests hold it to
// the Verilated RTL (and to the golden model, for LH buffers the RTL build does not have)
// message by message.

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Errors a caller may test for with errors.Is.
var (
	// ErrBlocked: the message cannot be taken with the releases reported so far (the LH
	// buffer is full or the tail ring has too little room). The input holds it: offer it
	// again, with the same cycle, once a release has been reported. The error is a
	// *BlockedError.
	ErrBlocked = errors.New("tlm: input blocked")
	// ErrMessage: the message cannot be on the wire (no bytes, longer than
	// gosim.MaxMessage, idle cycles or head bytes that do not match its length).
	ErrMessage = errors.New("tlm: bad message")
	// ErrRelease: the hardware would refuse the release and set ERR.RELEASE: more LH
	// entries than are held, more tail bytes than are in use, or a byte count that is not a
	// 16-byte multiple. Nothing changes.
	ErrRelease = errors.New("tlm: release refused")
	// ErrOrder: releases must be reported in cycle order. That is what keeps every answer
	// exact: a message that waits for room is let in by the first reported release that
	// makes room, so a release before it, reported later, would have let it in earlier.
	ErrOrder = errors.New("tlm: release out of order")
)

// headBytes is how many leading bytes of a message an LH entry can hold: the most a
// head-only Message must carry.
const headBytes = hw.InlineMax

// Message is a message at the network input.
type Message struct {
	// Bytes are the message's bytes; with Len set, only its first min(Len, 56) bytes (all an
	// LH entry can hold), when the caller does not carry payloads.
	Bytes []byte
	// Len is the message's length on the wire when Bytes holds only its head; 0 means
	// len(Bytes).
	Len uint32
	// Idle, if not nil, has one count per beat after the first: Idle[j-1] is the cycles the
	// source leaves the input idle after beat j-1 is taken before it shows beat j (as
	// gosim.Source does with IdlePercent). nil: the beats follow back to back.
	Idle []uint32
}

// Accepted is what happened to one message.
type Accepted struct {
	Seq     uint64 // messages taken before this one; with LHS on its entry is Seq mod Entries
	Present uint64 // cycle its first beat was first shown: at, or the cycle after the last message's last beat
	First   uint64 // cycle the input took its first beat
	Last    uint64 // cycle the input took its last beat
	// Commit is the cycle ev_commit pulses for its entry (LHS on: Last+1), or with LHS off
	// the cycle ev_msg_done pulses (Last).
	Commit uint64
	// Ready is the first cycle the input can take the next message's first beat: Commit+1
	// with LHS on, Last+1 with LHS off.
	Ready  uint64
	Stalls uint64 // cycles its beats were shown and not taken (its share of STALL_CYCLES)
	Beats  uint32
	Size   uint32 // the size field
	Len    uint32 // bytes delivered
	// Flags are the entry's flags (hw.FlagSplit, hw.FlagMismatch, hw.FlagTooLong); with LHS
	// off, FlagMismatch and FlagTooLong (dropped whole) the same way.
	Flags uint8
	// TailUnits are the 16-byte units it reserved in the tail ring at its first beat, and
	// TailAddr the large-memory byte address of the first one (0 when none).
	TailUnits uint32
	TailAddr  uint32
}

// BlockedError says why the input holds a message.
type BlockedError struct {
	Seq       uint64 // the message's place in the order
	At        uint64 // the cycle from which it waits: offer it again with this cycle
	LHFull    bool   // the LH buffer is full after every release reported so far
	NeedUnits uint32 // tail units it must reserve
	FreeUnits uint32 // tail units free after every release reported so far
}

func (e *BlockedError) Error() string {
	if e.LHFull {
		return fmt.Sprintf("tlm: message %d waits from cycle %d: LH buffer full after every release reported", e.Seq, e.At)
	}
	return fmt.Sprintf("tlm: message %d waits from cycle %d: it needs %d tail units, %d free after every release reported",
		e.Seq, e.At, e.NeedUnits, e.FreeUnits)
}

// Is makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }

// Memory is where tail beats land (gosim.SODIMM's backdoor Write is one).
type Memory interface {
	Write(addr uint64, src []byte) error
}

// Port says when the large-memory port takes a write: the first cycle at or after c on which
// m_mem_ready is high. Without one the port takes every write at once, as gosim.SODIMM does
// (docs/tlm.md).
type Port interface {
	NextReady(c uint64) uint64
}

// Counters are the receive path's statistics registers and the model's own counts.
type Counters struct {
	Messages   uint64 // MSG_COUNT: messages finished
	Commits    uint64 // LH_PROD: entries committed
	Stalls     uint64 // STALL_CYCLES: cycles a beat was shown and not taken
	Mismatches uint64 // MISMATCH_COUNT
	TooLong    uint64 // messages over MAX_MSG or the ring (ERR.TOO_LONG)
	Drops      uint64 // DROP_COUNT: dropped whole (LHS off, too long)
	Beats      uint64 // beats taken
	LHWaits    uint64 // messages whose first beat found the LH buffer full
	RingWaits  uint64 // messages whose first beat found too little tail ring room
}

// Stored is STORED_COUNT: the messages stored (LHS on: every message; LHS off: those not
// dropped whole), MSG_COUNT - DROP_COUNT.
func (c Counters) Stored() uint64 { return c.Messages - c.Drops }

// Status is the receive block's registers once every message offered has finished and every
// release reported has been taken.
type Status struct {
	LHProd, LHCons     uint32 // LH_PROD, LH_CONS
	TailWptr, TailUsed uint32 // TAIL_WPTR, TAIL_USED (bytes)
	Counters
}

// release is one host write (or two, LH and tail, in the same cycle) taking effect at the
// clock edge that ends cycle at.
type release struct {
	at      uint64
	entries uint64
	units   uint64
}

// record is a message that later releases may need: its first beat, its commit and the tail
// units allocated up to and including it.
type record struct {
	first, commit, cum uint64
}

// NIC is one receive path. Its configuration is fixed at New; the rest is state.
type NIC struct {
	cfg        Config
	entries    uint64 // cfg.Entries
	ringUnits  uint64 // TAIL_SIZE / 16
	splitBeats uint32 // SPLIT_POS / 16
	baseUnit   uint32 // TAIL_BASE / 16
	mem        Memory
	port       Port

	seq       uint64 // messages taken
	prod      uint64 // entries committed (or to commit) by the messages taken
	started   bool
	lastTaken uint64 // the last message's last beat
	ready     uint64 // first cycle the input can take a first beat
	cons      uint64 // entries released, as of the last first beat
	used      uint64 // tail units in use, as of the last first beat and after its allocation
	wptr      uint32 // TAIL_WPTR in units
	cum       uint64 // tail units allocated since New

	rel     []release // reported releases, in cycle order; rel[relHead:] not yet taken by a first beat
	relHead int
	consRep uint64 // entries released, every release reported
	tailRep uint64 // tail units released, every release reported
	anyRel  bool
	lastRel uint64 // cycle of the last release reported

	hist     []record // messages a release may still need, oldest first: hist[histHead:]
	histHead int
	histBase uint64 // tail units allocated by the messages before hist[histHead]

	ram     []byte // the LH buffer: Entries entries of 64 bytes
	count   Counters
	scratch []byte // tail beats on their way to Memory
}

// New builds a receive path fresh from reset with configuration cfg.
func New(cfg Config) (*NIC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &NIC{
		cfg:        cfg,
		entries:    uint64(cfg.Entries),
		ringUnits:  uint64(cfg.TailSize / 16),
		splitBeats: cfg.SplitPos / 16,
		baseUnit:   cfg.TailBase / 16,
		ram:        make([]byte, cfg.Entries*hw.EntryBytes),
	}, nil
}

// Config returns the configuration the NIC was built with.
func (n *NIC) Config() Config { return n.cfg }

// SetMemory makes the NIC write every tail beat to m (nil: tails are not stored). Messages
// must then carry all their bytes.
func (n *NIC) SetMemory(m Memory) { n.mem = m }

// SetPort makes tail beats wait for p (nil: the port takes every write at once).
func (n *NIC) SetPort(p Port) { n.port = p }

// Counters returns the statistics so far.
func (n *NIC) Counters() Counters { return n.count }

// Ready is the first cycle the input can take the next message's first beat, as far as the
// messages before it go (the LH buffer and the ring may hold it longer).
func (n *NIC) Ready() uint64 { return n.ready }

// Status returns the registers once every message offered has finished and every release
// reported has been taken.
func (n *NIC) Status() Status {
	return Status{
		LHProd:   uint32(n.prod),
		LHCons:   uint32(n.consRep),
		TailWptr: n.wptr * 16,
		TailUsed: uint32((n.cum - n.tailRep) * 16),
		Counters: n.count,
	}
}

// Entry returns LH buffer entry i (mod Entries) as the host reads it once every message
// offered has committed: the entry of message Accepted.Seq is Entry(uint32(Seq)) until
// Entries more messages have been offered. Words a message did not write hold what earlier
// messages left there, as the RTL's block RAM does.
func (n *NIC) Entry(i uint32) [hw.EntryBytes]byte {
	var e [hw.EntryBytes]byte
	off := int(uint64(i)%n.entries) * hw.EntryBytes
	copy(e[:], n.ram[off:off+hw.EntryBytes])
	return e
}

// Offer presents msg at the input from cycle at on (Message{Bytes: msg}).
func (n *NIC) Offer(at uint64, msg []byte) (Accepted, error) {
	var a Accepted
	err := n.offer(at, msg, 0, nil, &a)
	return a, err
}

// OfferMessage presents m at the input: its first beat is shown from cycle at, or from the
// cycle after the last message's last beat if that is later, and held until the input takes
// it. It returns what happened to it, or a *BlockedError (ErrBlocked) when the input cannot
// take it with the releases reported so far, and then nothing changes.
//
// The answer is exact if every release at a cycle before the returned First has been
// reported before the call: a host releases only what it has seen commit, so reporting each
// release as the host makes it, and offering messages in arrival order, is enough. Releases
// at later cycles may be reported ahead.
func (n *NIC) OfferMessage(at uint64, m Message) (Accepted, error) {
	var a Accepted
	err := n.offer(at, m.Bytes, m.Len, m.Idle, &a)
	return a, err
}

// check reports what makes a message impossible on the wire.
func (n *NIC) check(msg []byte, mlen uint32, idle []uint32) (uint64, error) {
	length := uint64(len(msg))
	if mlen != 0 {
		if uint64(mlen) < length {
			return 0, fmt.Errorf("%w: Len %d is shorter than the %d bytes given", ErrMessage, mlen, len(msg))
		}
		length = uint64(mlen)
		if uint64(len(msg)) < min(length, headBytes) {
			return 0, fmt.Errorf("%w: %d head bytes given of a %d-byte message; an entry needs %d",
				ErrMessage, len(msg), length, min(length, headBytes))
		}
		if n.mem != nil && uint64(len(msg)) < length {
			return 0, fmt.Errorf("%w: tails go to memory, so the message needs all its %d bytes, not %d", ErrMessage, length, len(msg))
		}
	}
	if length == 0 {
		return 0, fmt.Errorf("%w: a message has at least one byte", ErrMessage)
	}
	if length > gosim.MaxMessage {
		return 0, fmt.Errorf("%w: %d bytes is longer than the source carries (%d)", ErrMessage, length, gosim.MaxMessage)
	}
	if beats := (length + 15) / 16; idle != nil && uint64(len(idle)) != beats-1 {
		return 0, fmt.Errorf("%w: %d idle counts for a message of %d beats (want one per beat after the first)", ErrMessage, len(idle), beats)
	}
	return length, nil
}

// offer is OfferMessage, the result in *a.
func (n *NIC) offer(at uint64, msg []byte, mlen uint32, idle []uint32, a *Accepted) error {
	length := uint64(len(msg))
	if mlen != 0 || length == 0 || length > gosim.MaxMessage || idle != nil {
		var err error
		if length, err = n.check(msg, mlen, idle); err != nil {
			return err
		}
	}
	beats := (length + 15) / 16

	// First-beat decisions, from the size field (docs/design.md, "LHS rule"); the arithmetic
	// is lhs_rx's, widths included.
	var size uint32
	if sp := n.cfg.SizePos; uint64(sp)+4 <= uint64(len(msg)) {
		size = binary.LittleEndian.Uint32(msg[sp:])
	} else { // a short message: bytes past its end read as 0 (docs/design.md, "Size field that lies")
		var b0 [16]byte
		copy(b0[:], msg)
		size = binary.LittleEndian.Uint32(b0[sp:])
	}
	lhsOn := n.cfg.LHSOn
	isInline := lhsOn && size <= hw.InlineMax
	var span uint32
	switch {
	case lhsOn:
		span = ((size & 0xffff) + 15 - n.cfg.SplitPos) & 0x1ffff
	case size == 0:
		span = 16
	default:
		span = (size & 0xffff) + 15
	}
	units := uint64(span >> 4)
	tooLong := !isInline && (size > n.cfg.MaxMsg || units > n.ringUnits)
	var need uint64
	if !isInline && !tooLong {
		need = units
	}

	// The first beat: shown from present, taken once the splitter is between messages, the
	// LH buffer has a free entry (LHS on) and the ring has room ("Tail ring", "LH buffer").
	// Both only grow as releases are taken, at the edge that ends their cycle.
	present := at
	if n.started && present <= n.lastTaken {
		present = n.lastTaken + 1
	}
	t0 := max(present, n.ready)
	t := t0
	i, cons, used := n.relHead, n.cons, n.used
	for ; i < len(n.rel) && n.rel[i].at < t; i++ {
		cons += n.rel[i].entries
		used -= n.rel[i].units
	}
	lhFull := lhsOn && n.prod-cons >= n.entries
	short := used+need > n.ringUnits
	if lhFull || short {
		for (lhsOn && n.prod-cons >= n.entries) || used+need > n.ringUnits {
			if i == len(n.rel) {
				return &BlockedError{Seq: n.seq, At: present, LHFull: lhsOn && n.prod-cons >= n.entries,
					NeedUnits: uint32(need), FreeUnits: uint32(n.ringUnits - used)}
			}
			t = max(t, n.rel[i].at+1)
			for ; i < len(n.rel) && n.rel[i].at < t; i++ {
				cons += n.rel[i].entries
				used -= n.rel[i].units
			}
		}
	}
	first := t
	if !lhsOn && !tooLong && n.port != nil {
		first = n.port.NextReady(t) // with LHS off the first beat is a memory write
	}

	// Which beats go to the tail ring: with LHS on those from SPLIT_POS on of a split message,
	// with LHS off every beat, in both cases no more than the units reserved.
	var memLo, tailBeats uint64
	if lhsOn {
		memLo = uint64(n.splitBeats)
	}
	if beats > memLo {
		tailBeats = min(need, beats-memLo)
	}

	// The other beats: one a cycle, after the source's idle cycles, each tail beat once the
	// memory port is ready.
	stalls := first - present
	last := first + beats - 1
	if idle != nil || (n.port != nil && tailBeats > 0) {
		last = first
		for j := uint64(1); j < beats; j++ {
			p := last + 1
			if idle != nil {
				p += uint64(idle[j-1])
			}
			if n.port != nil && j >= memLo && j < memLo+tailBeats {
				q := n.port.NextReady(p)
				stalls += q - p
				p = q
			}
			last = p
		}
	}

	// Tail beats to memory, from the first reserved unit on, wrapping at the ring's end.
	tailAddr := uint32(0)
	if need > 0 {
		tailAddr = (n.baseUnit + n.wptr) << 4
	}
	if n.mem != nil && tailBeats > 0 {
		if err := n.writeTail(msg, memLo, tailBeats); err != nil {
			return err
		}
	}

	// The entry (LHS on), written as the message streams in and at the commit. A message
	// that ends before its size field does is a mismatch whatever its bytes say.
	mismatch := length != uint64(size) || length < uint64(n.cfg.SizePos)+4
	flags := uint8(0)
	if mismatch {
		flags |= hw.FlagMismatch
	}
	if tooLong {
		flags |= hw.FlagTooLong
	}
	split := lhsOn && !isInline && !tooLong
	if split {
		flags |= hw.FlagSplit
	}
	if lhsOn {
		ptr := uint64(0)
		if split {
			ptr = uint64(tailAddr)
		}
		writeEntry((*[hw.EntryBytes]byte)(n.ram[(n.prod&(n.entries-1))*hw.EntryBytes:]), msg, beats, length, isInline, uint64(n.splitBeats), flags, ptr)
	}

	// Commit, and the new state.
	commit, ready := last+1, last+2
	if !lhsOn {
		commit, ready = last, last+1
	}
	// Field by field: a composite literal is built on the stack and copied, which costs more
	// than the rest of the model on the benchmark.
	a.Seq, a.Present, a.First, a.Last, a.Commit, a.Ready = n.seq, present, first, last, commit, ready
	a.Stalls, a.Beats, a.Size, a.Len, a.Flags = stalls, uint32(beats), size, uint32(length), flags
	a.TailUnits, a.TailAddr = uint32(need), tailAddr

	n.relHead, n.cons, n.used = i, cons, used+need
	if n.relHead > 64 && 2*n.relHead >= len(n.rel) {
		n.rel = n.rel[:copy(n.rel, n.rel[n.relHead:])]
		n.relHead = 0
	}
	if w := uint64(n.wptr) + need; w >= n.ringUnits {
		n.wptr = uint32(w - n.ringUnits)
	} else {
		n.wptr = uint32(w)
	}
	n.cum += need
	if lhsOn || need > 0 {
		n.hist = append(n.hist, record{first: first, commit: commit, cum: n.cum})
	}
	n.seq++
	if lhsOn {
		n.prod++
	}
	n.started, n.lastTaken, n.ready = true, last, ready

	c := &n.count
	c.Messages++
	c.Stalls += stalls
	c.Beats += beats
	if lhsOn {
		c.Commits++
	}
	if mismatch {
		c.Mismatches++
	}
	if tooLong {
		c.TooLong++
		if !lhsOn {
			c.Drops++
		}
	}
	if lhFull {
		c.LHWaits++
	}
	if short {
		c.RingWaits++
	}
	return nil
}

// writeTail writes count beats of msg from beat lo to the ring from TAIL_WPTR on: whole
// 16-byte beats, zero past the message's end, in at most two pieces (the ring wraps).
func (n *NIC) writeTail(msg []byte, lo, count uint64) error {
	need := 16 * count
	if uint64(cap(n.scratch)) < need {
		n.scratch = make([]byte, need)
	}
	buf := n.scratch[:need]
	c := 0
	if 16*lo < uint64(len(msg)) {
		c = copy(buf, msg[16*lo:])
	}
	clear(buf[c:])
	first := min(count, n.ringUnits-uint64(n.wptr))
	if err := n.mem.Write(uint64(n.baseUnit+n.wptr)<<4, buf[:16*first]); err != nil {
		return fmt.Errorf("tlm: tail write: %w", err)
	}
	if rest := buf[16*first:]; len(rest) > 0 {
		if err := n.mem.Write(uint64(n.baseUnit)<<4, rest); err != nil {
			return fmt.Errorf("tlm: tail write: %w", err)
		}
	}
	return nil
}
