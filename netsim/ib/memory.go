package ib

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Memory is one host's memory as the HCA and the host program see it: a byte-addressed space
// of 4 KiB pages made on first write (a node may register gigabytes of receive buffers and
// touch a few). Reads of pages never written return zeros.
type Memory struct {
	pages map[uint64]*[pageSize]byte
	next  uint64 // the allocator's next free address
}

const pageSize = 4096

// memBase is the first address the allocator hands out (0 stays unmapped, so a zero address
// in a WQE is always outside registered memory).
const memBase = 0x10000

func newMemory() *Memory { return &Memory{pages: map[uint64]*[pageSize]byte{}, next: memBase} }

// alloc reserves n bytes aligned to 64 and returns their address.
func (m *Memory) alloc(n uint64) uint64 {
	a := (m.next + 63) &^ 63
	m.next = a + n
	return a
}

// Read copies len(b) bytes at addr into b.
func (m *Memory) Read(addr uint64, b []byte) {
	for len(b) > 0 {
		pg, off := addr/pageSize, addr%pageSize
		n := min(uint64(len(b)), pageSize-off)
		if p := m.pages[pg]; p != nil {
			copy(b[:n], p[off:off+n])
		} else {
			clear(b[:n])
		}
		b, addr = b[n:], addr+n
	}
}

// Write copies b to addr.
func (m *Memory) Write(addr uint64, b []byte) {
	for len(b) > 0 {
		pg, off := addr/pageSize, addr%pageSize
		n := min(uint64(len(b)), pageSize-off)
		p := m.pages[pg]
		if p == nil {
			p = new([pageSize]byte)
			m.pages[pg] = p
		}
		copy(p[off:off+n], b[:n])
		b, addr = b[n:], addr+n
	}
}

// Bytes returns n bytes at addr.
func (m *Memory) Bytes(addr uint64, n int) []byte {
	b := make([]byte, n)
	m.Read(addr, b)
	return b
}

// Digest is the SHA-256 of every page ever written, in address order, with its address.
func (m *Memory) Digest() [32]byte {
	h := sha256.New()
	var a [8]byte
	for _, pg := range m.pageNumbers() {
		binary.LittleEndian.PutUint64(a[:], pg)
		h.Write(a[:])
		h.Write(m.pages[pg][:])
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

func (m *Memory) pageNumbers() []uint64 {
	pgs := make([]uint64, 0, len(m.pages))
	for pg := range m.pages {
		pgs = append(pgs, pg)
	}
	slices.Sort(pgs)
	return pgs
}

// marshal is the memory as bytes: the allocator's mark, then every page with its number.
func (m *Memory) marshal() []byte {
	pgs := m.pageNumbers()
	out := binary.LittleEndian.AppendUint64(nil, m.next)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(pgs)))
	for _, pg := range pgs {
		out = binary.LittleEndian.AppendUint64(out, pg)
		out = append(out, m.pages[pg][:]...)
	}
	return out
}

var errMemoryImage = errors.New("bad host memory image")

func unmarshalMemory(b []byte) (*Memory, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("%w: %d bytes, want at least 16", errMemoryImage, len(b))
	}
	m := newMemory()
	m.next = binary.LittleEndian.Uint64(b)
	n := binary.LittleEndian.Uint64(b[8:])
	b = b[16:]
	if n > uint64(len(b))/(8+pageSize) || uint64(len(b)) != n*(8+pageSize) {
		return nil, fmt.Errorf("%w: %d pages in %d bytes", errMemoryImage, n, len(b))
	}
	last := uint64(0)
	for i := range n {
		pg := binary.LittleEndian.Uint64(b)
		if i > 0 && pg <= last {
			return nil, fmt.Errorf("%w: page %#x out of order", errMemoryImage, pg)
		}
		last = pg
		p := new([pageSize]byte)
		copy(p[:], b[8:8+pageSize])
		m.pages[pg] = p
		b = b[8+pageSize:]
	}
	return m, nil
}

// MR is a registered memory region: the HCA's translation and protection entry for it.
type MR struct {
	Addr, Len   uint64
	LKey, RKey  uint32
	RemoteWrite bool // a remote RDMA write may target it
}

func (r MR) String() string {
	return fmt.Sprintf("[%#x, %#x) lkey %d", r.Addr, r.Addr+r.Len, r.LKey)
}

// contains reports whether [addr, addr+n) lies in r.
func (r MR) contains(addr, n uint64) bool {
	return addr >= r.Addr && n <= r.Len && addr-r.Addr <= r.Len-n
}
