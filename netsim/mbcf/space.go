package mbcf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Perm is what other tasks' MBCF commands may do in a segment. The owner itself may load and
// store anywhere in its mapped segments.
type Perm uint8

const (
	PermRead      Perm = 1 << 0 // READ, SWAP's read, a FIFO's header
	PermWrite     Perm = 1 << 1 // WRITE, SWAP's write, FIFO appends
	PermReadWrite      = PermRead | PermWrite
)

// Segment is a range of logical addresses mapped in a task's space.
type Segment struct {
	Base, Size uint32
	Perm       Perm
}

type segment struct {
	Segment
	mem []byte
}

// Space is a task's logical address space: its mapped segments. An address outside them is
// "not accessible in the destination task" (§3), and a command that touches one fails.
type Space struct {
	segs []segment
}

// ErrUnmapped is a local access outside the space.
var ErrUnmapped = errors.New("mbcf: address not mapped in the task's space")

// NewSpace maps the segments, zero-filled. They may not overlap, be empty or wrap past 2^32.
func NewSpace(segs ...Segment) (*Space, error) {
	s := &Space{}
	for _, g := range segs {
		if g.Size == 0 {
			return nil, fmt.Errorf("mbcf: empty segment at %#x", g.Base)
		}
		if uint64(g.Base)+uint64(g.Size) > 1<<32 {
			return nil, fmt.Errorf("mbcf: segment %#x+%#x wraps past 2^32", g.Base, g.Size)
		}
		if g.Perm&^PermReadWrite != 0 {
			return nil, fmt.Errorf("mbcf: segment %#x: permission bits %#x", g.Base, g.Perm)
		}
		for _, o := range s.segs {
			if g.Base < o.Base+o.Size && o.Base < g.Base+g.Size {
				return nil, fmt.Errorf("mbcf: segment %#x+%#x overlaps %#x+%#x", g.Base, g.Size, o.Base, o.Size)
			}
		}
		s.segs = append(s.segs, segment{Segment: g, mem: make([]byte, g.Size)})
	}
	slices.SortFunc(s.segs, func(a, b segment) int { return int(int64(a.Base) - int64(b.Base)) })
	return s, nil
}

// find is the memory of [addr, addr+n) if one segment holds all of it with the permission
// need (0 for the owner's own access).
func (s *Space) find(addr uint32, n int, need Perm) ([]byte, bool) {
	if n < 0 {
		return nil, false
	}
	for i := range s.segs {
		g := &s.segs[i]
		if addr >= g.Base && uint64(addr)+uint64(n) <= uint64(g.Base)+uint64(g.Size) {
			if g.Perm&need != need {
				return nil, false
			}
			off := addr - g.Base
			return g.mem[off : off+uint32(n) : off+uint32(n)], true
		}
	}
	return nil, false
}

// Remote reports whether another task may access [addr, addr+n) with perm.
func (s *Space) Remote(addr uint32, n int, perm Perm) bool {
	_, ok := s.find(addr, n, perm)
	return ok
}

// Load is the owner reading n bytes at addr (a copy).
func (s *Space) Load(addr uint32, n int) ([]byte, error) {
	m, ok := s.find(addr, n, 0)
	if !ok {
		return nil, fmt.Errorf("%w: %d bytes at %#x", ErrUnmapped, n, addr)
	}
	return slices.Clone(m), nil
}

// Store is the owner writing data at addr.
func (s *Space) Store(addr uint32, data []byte) error {
	m, ok := s.find(addr, len(data), 0)
	if !ok {
		return fmt.Errorf("%w: %d bytes at %#x", ErrUnmapped, len(data), addr)
	}
	copy(m, data)
	return nil
}

// Word is the owner reading the big-endian word at addr.
func (s *Space) Word(addr uint32) (uint32, error) {
	m, ok := s.find(addr, 4, 0)
	if !ok {
		return 0, fmt.Errorf("%w: word at %#x", ErrUnmapped, addr)
	}
	return binary.BigEndian.Uint32(m), nil
}

// SetWord is the owner writing a big-endian word at addr.
func (s *Space) SetWord(addr, v uint32) error {
	m, ok := s.find(addr, 4, 0)
	if !ok {
		return fmt.Errorf("%w: word at %#x", ErrUnmapped, addr)
	}
	binary.BigEndian.PutUint32(m, v)
	return nil
}

// A Memory-Based FIFO (the MBCF paper's §4 names it among SSS-CORE's MBCF functions; its format is
// this package's): a queue in the destination task's space, at the address a FIFO command
// names. The header is four words: capacity (bytes of the ring, a multiple of 4), head (the
// consumer's read offset, free-running), tail (the kernel's write offset, free-running) and a
// zero word; the ring follows. A record is a length word and the data, padded to 4 bytes; it
// may wrap around the ring's end. The kernel appends a record whole or not at all.
const (
	FIFOHeaderBytes = 16
	fifoCap         = 0
	fifoHead        = 4
	fifoTail        = 8
)

// fifoAppend appends a record to the queue at q in s, as the kernel does for a remote task.
func fifoAppend(s *Space, q uint32, data []byte) Reason {
	hdr, ok := s.find(q, FIFOHeaderBytes, PermReadWrite)
	if !ok {
		return ReasonRange
	}
	be := binary.BigEndian
	capacity, head, tail := be.Uint32(hdr[fifoCap:]), be.Uint32(hdr[fifoHead:]), be.Uint32(hdr[fifoTail:])
	if capacity == 0 || capacity%4 != 0 || head%4 != 0 || tail%4 != 0 || tail-head > capacity {
		return ReasonFIFOBad
	}
	ring, ok := s.find(q+FIFOHeaderBytes, int(capacity), PermReadWrite)
	if !ok {
		return ReasonRange
	}
	need := uint32(4 + pad4(len(data)))
	if capacity-(tail-head) < need {
		return ReasonFIFOFull
	}
	rec := make([]byte, need)
	be.PutUint32(rec, uint32(len(data)))
	copy(rec[4:], data)
	for i, b := range rec {
		ring[(tail+uint32(i))%capacity] = b
	}
	be.PutUint32(hdr[fifoTail:], tail+need)
	return ReasonNone
}

// InitFIFO makes an empty queue of capacity ring bytes at q (the owner's local set-up).
func (s *Space) InitFIFO(q, capacity uint32) error {
	if capacity == 0 || capacity%4 != 0 {
		return fmt.Errorf("mbcf: FIFO capacity %d: want a positive multiple of 4", capacity)
	}
	if _, ok := s.find(q, int(FIFOHeaderBytes+capacity), 0); !ok {
		return fmt.Errorf("%w: FIFO of %d bytes at %#x", ErrUnmapped, capacity, q)
	}
	hdr := make([]byte, FIFOHeaderBytes)
	binary.BigEndian.PutUint32(hdr[fifoCap:], capacity)
	return s.Store(q, hdr)
}

// TakeFIFO is the owner taking the oldest record from the queue at q: ok is false when it is
// empty.
func (s *Space) TakeFIFO(q uint32) (rec []byte, ok bool, err error) {
	hdr, found := s.find(q, FIFOHeaderBytes, 0)
	if !found {
		return nil, false, fmt.Errorf("%w: FIFO at %#x", ErrUnmapped, q)
	}
	be := binary.BigEndian
	capacity, head, tail := be.Uint32(hdr[fifoCap:]), be.Uint32(hdr[fifoHead:]), be.Uint32(hdr[fifoTail:])
	if capacity == 0 || capacity%4 != 0 || tail-head > capacity || (tail-head)%4 != 0 {
		return nil, false, fmt.Errorf("mbcf: FIFO at %#x: header %d/%d/%d is not a queue's", q, capacity, head, tail)
	}
	if head == tail {
		return nil, false, nil
	}
	ring, found := s.find(q+FIFOHeaderBytes, int(capacity), 0)
	if !found {
		return nil, false, fmt.Errorf("%w: FIFO ring at %#x", ErrUnmapped, q+FIFOHeaderBytes)
	}
	at := func(i uint32) byte { return ring[(head+i)%capacity] }
	n := uint32(at(0))<<24 | uint32(at(1))<<16 | uint32(at(2))<<8 | uint32(at(3))
	if 4+uint32(pad4(int(n))) > tail-head {
		return nil, false, fmt.Errorf("mbcf: FIFO at %#x: record of %d bytes runs past the tail", q, n)
	}
	rec = make([]byte, n)
	for i := range rec {
		rec[i] = at(4 + uint32(i))
	}
	be.PutUint32(hdr[fifoHead:], head+4+uint32(pad4(int(n))))
	return rec, true, nil
}
