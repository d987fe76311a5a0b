package gosim_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// fuzzReader hands out a fuzz input's bytes as small numbers, 0 once they run out.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) u16() int { return int(r.byte()) | int(r.byte())<<8 }

// streamConfig is the receive path's configuration a fuzz input chose.
type streamConfig struct {
	lhsOn                bool
	sizePos, splitPos    uint32
	maxMsg               uint32
	tailBase, tailSize   uint32
	idle, busy, latency  int
	jitter, stall, noise int
}

// refMessage is what docs/design.md says one message leaves behind, written from the contract
// alone: the entry's defined bytes (LHS on) and the bytes the tail ring must hold.
type refMessage struct {
	size, units uint32 // size field; 16-byte units reserved at the first beat
	flags       uint8  // entry flags (LHS on); with LHS off FlagTooLong means dropped
	mismatch    bool   // the size field lied (MISMATCH_COUNT)
	entry       [64]byte
	defined     [64]bool // entry bytes the contract defines
	ring        []byte   // bytes from the first reserved unit on that must read back
}

// lhsReference applies the LHS rule (docs/design.md, "LHS rule", "Size field that lies", "LH
// entry format", "Tail ring") to message m, whose ring space starts wptr units into the ring.
func lhsReference(m []byte, c *streamConfig, wptr uint32) refMessage {
	n := uint32(len(m))
	var first [16]byte // bytes past the message's end read as 0
	copy(first[:], m)
	r := refMessage{size: binary.LittleEndian.Uint32(first[c.sizePos:])}
	mismatch := n != r.size || n < c.sizePos+4
	r.mismatch = mismatch
	ringUnits := c.tailSize / 16
	// lastUnit is the ring's bytes from message byte from on: the message's bytes up to its end
	// or the reserved space, then zeros to the end of the unit of its last byte.
	lastUnit := func(from uint32) []byte {
		end := min(n, from+16*r.units)
		if end <= from {
			return nil
		}
		out := make([]byte, (end-from+15)/16*16)
		copy(out, m[from:end])
		return out
	}
	if !c.lhsOn {
		r.units = max(1, (r.size+15)/16)
		if r.size > c.maxMsg || r.units > ringUnits {
			r.units, r.flags = 0, hw.FlagTooLong
			return r
		}
		r.ring = lastUnit(0)
		return r
	}
	if mismatch {
		r.flags |= hw.FlagMismatch
	}
	head := uint32(hw.InlineMax)
	if r.size > hw.InlineMax {
		head = c.splitPos
		r.units = (r.size - c.splitPos + 15) / 16
		if r.size > c.maxMsg || r.units > ringUnits {
			r.units = 0
			r.flags |= hw.FlagTooLong
		} else {
			r.flags |= hw.FlagSplit
			r.ring = lastUnit(c.splitPos)
			binary.LittleEndian.PutUint32(r.entry[60:], c.tailBase+16*wptr)
		}
	}
	// Message bytes, then zeros to the end of the word of the last one (within the head).
	for i := uint32(0); i < min(head, (n+15)/16*16); i++ {
		r.defined[i] = true
		if i < n {
			r.entry[i] = m[i]
		}
	}
	for i := 48; i < 56; i++ { // 48..55 the message did not reach read 0
		if !r.defined[i] {
			r.defined[i] = r.size > hw.InlineMax || uint32(i) >= n
		}
	}
	binary.LittleEndian.PutUint16(r.entry[56:], uint16(min(n, 0xffff)))
	r.entry[58] = r.flags
	for i := 56; i < 64; i++ {
		r.defined[i] = true
	}
	return r
}

// decodeStream turns a fuzz input into a configuration and the messages to send.
func decodeStream(data []byte) (streamConfig, [][]byte) {
	r := &fuzzReader{b: data}
	b := r.byte()
	c := streamConfig{
		lhsOn:    b&1 == 0,
		sizePos:  uint32(b>>1&3) * 4,
		splitPos: 16 * (1 + uint32(b>>3&3)%3),
		maxMsg:   0xffff,
		tailBase: 16 * uint32(r.u16()),
		tailSize: 16 * (1 + uint32(r.u16())%1024),
	}
	if b&0x20 != 0 {
		c.maxMsg = uint32(r.u16())
	}
	k := r.byte()
	c.idle, c.busy, c.latency = int(k&3)*20, int(k>>2&3)*15, 1+int(r.byte()%64)
	c.jitter, c.stall, c.noise = int(k>>4&1)*40, int(k>>5&1)*2, int(k>>6&1)
	var msgs [][]byte
	for len(r.b) > 0 && len(msgs) < 48 {
		h := r.byte()
		n := 1 + int(r.byte())
		if h&0x80 != 0 {
			n = 1 + r.u16()%2048
		}
		m := make([]byte, max(n, 16))
		seed := r.byte()
		for i := range m {
			m[i] = byte(i*31) ^ seed
		}
		var field uint32
		switch h & 3 {
		case 0: // the truth
			field = uint32(n)
		case 1: // a small lie
			field = uint32(max(0, n+int(int8(r.byte()))))
		case 2: // anything
			field = uint32(r.u16()) | uint32(r.byte())<<16
		case 3: // past MAX_MSG
			field = c.maxMsg + 1 + uint32(r.byte())
		}
		binary.LittleEndian.PutUint32(m[c.sizePos:], field)
		msgs = append(msgs, m[:n])
	}
	return c, msgs
}

// FuzzModelStream sends a fuzz-chosen message stream (lengths, size fields, bytes past tkeep,
// idle cycles, memory back-pressure, read delays) through the golden model with a host that
// checks every entry and every tail against lhsReference, written from docs/design.md alone,
// and releases them; at the end nothing may be lost or held. Replay a failure with
// go test ./gosim -run 'FuzzModelStream/<file>' (the fuzzer writes the input under testdata).
func FuzzModelStream(f *testing.F) {
	f.Add([]byte{0x00, 0, 0, 0, 1, 0x00, 0x00, 39, 1, 0x00, 99, 2, 0x01, 60, 3, 9, 0x80, 200, 1, 4})
	f.Add([]byte{0x01, 0x10, 0, 15, 0, 0x35, 7, 0x00, 14, 0, 0x02, 5, 1, 1, 0, 0x81, 0x10, 2, 5})
	f.Add([]byte{0x3a, 0, 1, 3, 0, 0x40, 0x00, 200, 0, 0xff, 0x03, 100, 3, 2, 0x00, 54, 7, 0x00, 50, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, msgs := decodeStream(data)
		if err := runStream(c, msgs); err != nil {
			t.Fatalf("%v\nconfig %+v, %d messages", err, c, len(msgs))
		}
	})
}

// runStream runs msgs through a golden model on a board configured as c, checking as it goes.
func runStream(c streamConfig, msgs [][]byte) error {
	if uint64(c.tailBase)+uint64(c.tailSize) > hw.MemBytes {
		c.tailBase = 0
	}
	m, err := gosim.NewModel(gosim.ModelParams{Entries: 16, WinBytes: 4096})
	if err != nil {
		return err
	}
	b := gosim.NewBoard(m, gosim.BoardConfig{Seed: 1, IdlePercent: c.idle, WireNoise: c.noise != 0,
		Memory: gosim.SODIMMParams{ReadLatency: c.latency, MaxOutstanding: 8, BusyPercent: c.busy,
			ReadJitter: c.jitter, StallPercent: c.stall, StallMax: 300}})
	ctrl := uint32(hw.CtrlEnable)
	if c.lhsOn {
		ctrl |= hw.CtrlLHSOn
	}
	for _, w := range [][2]uint32{{hw.RegTailSize, c.tailSize}, {hw.RegTailBase, c.tailBase}, {hw.RegSizePos, c.sizePos},
		{hw.RegSplitPos, c.splitPos}, {hw.RegMaxMsg, c.maxMsg}, {hw.RegCtrl, ctrl}} {
		if err := b.WriteReg(w[0], w[1]); err != nil {
			return err
		}
	}
	if e, _ := b.ReadReg(hw.RegErr); e != 0 {
		return fmt.Errorf("configuration refused: ERR %#x", e)
	}
	// Mark the ring so that bytes the contract leaves alone are not mistaken for written ones.
	if err := b.MemWrite(uint64(c.tailBase), bytes.Repeat([]byte{0xa5}, int(c.tailSize))); err != nil {
		return err
	}
	ringUnits := c.tailSize / 16
	wptr := uint32(0)
	var want []refMessage
	mismatches := 0
	for _, msg := range msgs {
		r := lhsReference(msg, &c, wptr)
		wptr = (wptr + r.units) % ringUnits
		want = append(want, r)
		if r.mismatch {
			mismatches++
		}
		if err := b.Inject(msg); err != nil {
			return err
		}
	}
	next, checked, off := 0, uint32(0), uint32(0) // next message; entries or ring messages checked; its ring offset in units
	for guard := 0; next < len(msgs); guard++ {
		if guard > 20000 || b.Cycle() > 2_000_000 {
			return fmt.Errorf("jammed: %d of %d messages checked at cycle %d", next, len(msgs), b.Cycle())
		}
		if err := b.Run(16); err != nil {
			return err
		}
		reg := uint32(hw.RegStoredCount)
		if c.lhsOn {
			reg = hw.RegLHProd
		}
		have, err := b.ReadReg(reg)
		if err != nil {
			return err
		}
		for ; next < len(msgs); next++ {
			w := &want[next]
			if !c.lhsOn && w.flags&hw.FlagTooLong != 0 {
				continue // dropped whole: not in the ring, not counted by STORED_COUNT
			}
			if checked == have {
				break
			}
			checked++
			if c.lhsOn {
				var e [64]byte
				if err := b.ReadBlock(hw.LHBase+64*uint32(next%16), e[:]); err != nil {
					return err
				}
				for i := range e {
					if w.defined[i] && e[i] != w.entry[i] {
						return fmt.Errorf("message %d (%d bytes, size field %d): entry byte %d is %#x, want %#x\n got %x\nwant %x",
							next, len(msgs[next]), w.size, i, e[i], w.entry[i], e, w.entry)
					}
				}
			}
			for i := range w.ring {
				var got [1]byte
				u := (off + uint32(i)/16) % ringUnits
				if err := b.MemRead(uint64(c.tailBase+16*u+uint32(i%16)), got[:]); err != nil {
					return err
				}
				if got[0] != w.ring[i] {
					return fmt.Errorf("message %d (%d bytes, size field %d): ring byte %d is %#x, want %#x", next, len(msgs[next]), w.size, i, got[0], w.ring[i])
				}
			}
			off = (off + w.units) % ringUnits
			if c.lhsOn {
				b.Post(hw.RegLHRelease, 1)
			}
			if w.units > 0 {
				b.Post(hw.RegTailRelease, 16*w.units)
			}
		}
	}
	if err := b.RunUntilIdle(100_000); err != nil {
		return err
	}
	for _, chk := range []struct {
		name string
		reg  uint32
		want uint32
	}{{"MSG_COUNT", hw.RegMsgCount, uint32(len(msgs))}, {"MISMATCH_COUNT", hw.RegMismatchCount, uint32(mismatches)},
		{"TAIL_USED", hw.RegTailUsed, 0}, {"TAIL_WPTR", hw.RegTailWptr, 16 * wptr}} {
		v, err := b.ReadReg(chk.reg)
		if err != nil {
			return err
		}
		if v != chk.want {
			return fmt.Errorf("%s is %d, want %d", chk.name, v, chk.want)
		}
	}
	if e, _ := b.ReadReg(hw.RegErr); e&hw.ErrRelease != 0 {
		return fmt.Errorf("a release was refused: ERR %#x", e)
	}
	return nil
}
