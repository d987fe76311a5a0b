package gosim

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/hw"
)

// SODIMMParams describe the large memory on the NIC board.
type SODIMMParams struct {
	// ReadLatency is the cycles from a read request being taken to its data coming back.
	// The paper measured a VL at about 600 ns as the host sees it (5.1.4: next to the 100 ns
	// of a main-memory access, both from the host). The default, 33, is the largest latency
	// for which the host model (gosim/hostcpu: command writes, status polls, the window read)
	// sees a 16-byte VL take no more than that: 35 cycles (350 ns) inside the NIC, from the
	// VEC_CMD write to DONE in VEC_STATUS, and 566 ns at the host. It is set from the VL
	// figure alone, never from a search result.
	ReadLatency int
	// MaxOutstanding reads in flight; the port is not ready beyond it.
	MaxOutstanding int
	// BusyPercent makes the port randomly not ready on this share of cycles (tests use it
	// for back-pressure); 0 in normal runs.
	BusyPercent int

	// Fault injection (tests; 0 in normal runs). ReadJitter delays each read's data by a
	// further random 0..ReadJitter cycles, still in request order. On StallPercent of the
	// cycles the port would be ready it instead goes not ready for a stretch of 1..StallMax
	// cycles (StallMax 0: 1000).
	ReadJitter   int
	StallPercent int
	StallMax     int
}

// DefaultSODIMM is DIMMnet-2's SO-DIMM as seen from the FPGA. Enough reads may be in flight
// to cover the latency, so a long VL streams a 16-byte beat per cycle: 1.6 GB/s at 100 MHz,
// the peak of the PC1600-class SO-DIMM.
var DefaultSODIMM = SODIMMParams{ReadLatency: 33, MaxOutstanding: 64}

const chunkBytes = 1 << 20

type pendingRead struct {
	due  uint64
	data word
}

// SODIMM is the large, slow memory outside the RTL. It serves the receive path's memory port
// every cycle: requests are taken when ready, writes land at once, reads return in order
// after ReadLatency cycles. Storage is allocated a megabyte at a time, on first touch.
type SODIMM struct {
	p      SODIMMParams
	chunks [hw.MemBytes / chunkBytes]*[chunkBytes]byte
	reads  []pendingRead
	rng    *Rand
	stall  int    // cycles left in a not-ready stretch (StallPercent)
	Writes uint64 // 16-byte writes taken
	ReadsN uint64 // 16-byte reads taken
}

// NewSODIMM builds an empty (all-zero) memory.
func NewSODIMM(p SODIMMParams, rng *Rand) *SODIMM {
	if p.MaxOutstanding <= 0 {
		p.MaxOutstanding = DefaultSODIMM.MaxOutstanding
	}
	return &SODIMM{p: p, rng: rng}
}

func (s *SODIMM) chunk(addr uint64) *[chunkBytes]byte {
	c := s.chunks[addr/chunkBytes]
	if c == nil {
		c = new([chunkBytes]byte)
		s.chunks[addr/chunkBytes] = c
	}
	return c
}

// Drive sets the memory's inputs to the receive path for this cycle.
func (s *SODIMM) Drive(p *Pins, cycle uint64) {
	p.MemReady = 0
	if len(s.reads) < s.p.MaxOutstanding && (s.p.BusyPercent == 0 || s.rng.Intn(100) >= s.p.BusyPercent) {
		p.MemReady = 1
	}
	if s.p.StallPercent > 0 {
		if s.stall == 0 && p.MemReady != 0 && s.rng.Intn(100) < s.p.StallPercent {
			n := s.p.StallMax
			if n <= 0 {
				n = 1000
			}
			s.stall = 1 + s.rng.Intn(n)
		}
		if s.stall > 0 {
			s.stall--
			p.MemReady = 0
		}
	}
	p.MemRValid = 0
	if len(s.reads) > 0 && s.reads[0].due <= cycle {
		p.MemRValid = 1
		p.MemRData = s.reads[0].data
		s.reads = s.reads[1:]
	}
}

// Observe takes the request the receive path made this cycle, if the port was ready.
func (s *SODIMM) Observe(p *Pins, cycle uint64) {
	if p.MemValid == 0 || p.MemReady == 0 {
		return
	}
	if p.MemWrite != 0 {
		s.land(p.MemAddr, p.MemWData)
		return
	}
	addr := uint64(p.MemAddr) % hw.MemBytes
	c := s.chunk(addr)
	off := addr % chunkBytes
	due := cycle + uint64(s.p.ReadLatency)
	if s.p.ReadJitter > 0 {
		due += uint64(s.rng.Intn(s.p.ReadJitter + 1))
		if n := len(s.reads); n > 0 && s.reads[n-1].due > due {
			due = s.reads[n-1].due // in request order
		}
	}
	s.reads = append(s.reads, pendingRead{due: due, data: getWord(c[off : off+16])})
	s.ReadsN++
}

// land stores a write the receive path made.
func (s *SODIMM) land(a uint32, w word) {
	addr := uint64(a) % hw.MemBytes
	off := addr % chunkBytes
	putWord(s.chunk(addr)[off:off+16], w)
	s.Writes++
}

// Busy reports reads still in flight.
func (s *SODIMM) Busy() bool { return len(s.reads) > 0 }

// Read copies memory into dst (backdoor, zero time).
func (s *SODIMM) Read(addr uint64, dst []byte) error {
	if addr+uint64(len(dst)) > hw.MemBytes {
		return fmt.Errorf("sodimm: read [%#x, %#x) outside %d bytes", addr, addr+uint64(len(dst)), hw.MemBytes)
	}
	for len(dst) > 0 {
		c := s.chunk(addr)
		n := copy(dst, c[addr%chunkBytes:])
		dst, addr = dst[n:], addr+uint64(n)
	}
	return nil
}

// Write copies src into memory (backdoor, zero time).
func (s *SODIMM) Write(addr uint64, src []byte) error {
	if addr+uint64(len(src)) > hw.MemBytes {
		return fmt.Errorf("sodimm: write [%#x, %#x) outside %d bytes", addr, addr+uint64(len(src)), hw.MemBytes)
	}
	for len(src) > 0 {
		c := s.chunk(addr)
		n := copy(c[addr%chunkBytes:], src)
		src, addr = src[n:], addr+uint64(n)
	}
	return nil
}

func putWord(b []byte, w word) {
	binary.LittleEndian.PutUint64(b, w[0])
	binary.LittleEndian.PutUint64(b[8:], w[1])
}

func getWord(b []byte) word {
	return word{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}
