package testbench

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/verilator"
)

// fuzzBytes hands out a fuzz input's bytes, 0 once they run out.
type fuzzBytes struct{ b []byte }

func (r *fuzzBytes) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzBytes) u16() uint32 { return uint32(r.byte()) | uint32(r.byte())<<8 }
func (r *fuzzBytes) u32() uint32 { return r.u16() | r.u16()<<16 }

// cfgRegs are the configuration registers a fuzz input writes mid-traffic.
var cfgRegs = []uint32{hw.RegCtrl, hw.RegSizePos, hw.RegSplitPos, hw.RegMaxMsg, hw.RegTailBase, hw.RegTailSize}

// FuzzRTLLockstep drives the Verilated RTL and the golden model in lockstep (every output
// compared every cycle) with a fuzz-chosen mix of messages (size fields that lie, bytes past
// tkeep), configuration writes mid-traffic, releases good and bad, register, window and LH
// reads, vector commands, and a memory port with delays and long not-ready stretches. At the
// end a host releases everything: every message must have been taken (nothing jammed) and
// counted (nothing lost). Replay a failure with go test ./testbench -run 'FuzzRTLLockstep/<file>'.
func FuzzRTLLockstep(f *testing.F) {
	f.Add([]byte{0x11, 0, 0, 40, 0, 100, 1, 0, 5, 200, 0, 3, 0x18, 0x40, 0, 0, 0, 9, 120, 2, 4, 1, 0, 1, 50, 3, 2})
	f.Add([]byte{0x7e, 3, 0, 20, 0, 1, 2, 0x14, 0x00, 0x20, 0, 0, 0, 9, 30, 4, 0x10, 0, 0, 1, 2, 0, 9, 200})
	f.Add([]byte{0x25, 1, 0, 56, 0, 3, 10, 0, 0x82, 1, 0, 1, 2, 0x30, 0x00, 0x08, 0x11, 0, 5, 60, 5, 0x10, 0x40, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runLockstepFuzz(data); err != nil {
			t.Fatal(err)
		}
	})
}

func runLockstepFuzz(data []byte) (err error) {
	r := &fuzzBytes{b: data}
	k := r.byte()
	rtl, err := verilator.New("")
	if err != nil {
		return err
	}
	m, err := gosim.NewModel(gosim.DefaultParams)
	if err != nil {
		return err
	}
	l := &gosim.Lockstep{A: rtl, B: m}
	defer func() {
		if cerr := l.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	b := gosim.NewBoard(l, gosim.BoardConfig{Seed: uint64(k), IdlePercent: int(k&3) * 20, WireNoise: k&4 != 0,
		Memory: gosim.SODIMMParams{ReadLatency: 1 + int(k>>3&3)*20, MaxOutstanding: 1 + int(k>>5), BusyPercent: int(k>>3&1) * 30,
			ReadJitter: int(k>>6&1) * 50, StallPercent: int(k>>7) * 3, StallMax: 400}})
	// A small ring, so that it fills and wraps.
	if err := b.WriteReg(hw.RegTailSize, 1024); err != nil {
		return err
	}
	sizePos := uint32(12)
	injected := 0
	check := func(what string) error {
		if l.Mismatch != nil {
			return fmt.Errorf("after %s at cycle %d: %w", what, b.Cycle(), l.Mismatch)
		}
		return nil
	}
	for steps := 0; len(r.b) > 0 && steps < 64; steps++ {
		op := r.byte()
		var what string
		switch op % 8 {
		case 0, 1: // a message
			n := 1 + int(r.byte())
			if op&0x80 != 0 {
				n = 1 + int(r.u16()%1500)
			}
			msg := make([]byte, max(n, 16))
			for i := range msg {
				msg[i] = byte(i*13) ^ op
			}
			field := uint32(n)
			switch op >> 3 & 3 {
			case 1:
				field = uint32(max(0, n+int(int8(r.byte()))))
			case 2:
				field = r.u32()
			}
			if v, err := b.ReadReg(hw.RegSizePos); err == nil {
				sizePos = v
			}
			binary.LittleEndian.PutUint32(msg[sizePos:], field)
			if err := b.Inject(msg[:n]); err != nil {
				return err
			}
			injected++
			what = fmt.Sprintf("message of %d bytes, size field %d", n, field)
		case 2: // cycles
			n := uint64(r.byte()) * uint64(1+op>>4)
			if err := b.Run(n); err != nil {
				return err
			}
			what = fmt.Sprintf("%d cycles", n)
		case 3: // a configuration write, legal or not, mid-traffic or not
			reg := cfgRegs[int(op>>3)%len(cfgRegs)]
			var v uint32
			switch reg {
			case hw.RegCtrl:
				v = uint32(r.byte() & 3)
			case hw.RegSizePos, hw.RegSplitPos:
				v = uint32(r.byte())
			case hw.RegMaxMsg:
				v = r.u32() >> (r.byte() % 32)
			default:
				v = r.u16() << 4
				if op&0x80 != 0 {
					v = r.u32()
				}
			}
			if err := b.WriteReg(reg, v); err != nil {
				return err
			}
			what = fmt.Sprintf("write %#x to register %#x", v, reg)
		case 4: // releases, good or bad
			if op&8 != 0 {
				v := uint32(r.byte())
				if err := b.WriteReg(hw.RegLHRelease, v); err != nil {
					return err
				}
				what = fmt.Sprintf("LH_RELEASE %d", v)
			} else {
				v := uint32(r.byte()) << 4
				if op&0x10 != 0 {
					v = r.u32()
				}
				if err := b.WriteReg(hw.RegTailRelease, v); err != nil {
					return err
				}
				what = fmt.Sprintf("TAIL_RELEASE %#x", v)
			}
		case 5: // a read anywhere on the host bus
			a := r.u32() & 0xffffc
			if _, err := b.ReadReg(a); err != nil {
				return err
			}
			what = fmt.Sprintf("read %#x", a)
		case 6: // a vector command
			for _, w := range [][2]uint32{{hw.RegVecMemAddr, r.u16() << 4}, {hw.RegVecWinOff, uint32(r.byte()) << 4},
				{hw.RegVecLen, uint32(r.byte())}, {hw.RegVecCmd, uint32(1 + op>>3&1)}} {
				if err := b.WriteReg(w[0], w[1]); err != nil {
					return err
				}
			}
			what = "vector command"
		case 7:
			if err := b.WriteReg(hw.RegErr, hw.ErrAll); err != nil {
				return err
			}
			what = "ERR cleared"
		}
		if err := check(what); err != nil {
			return err
		}
	}
	// The host releases everything until every message is in: nothing may stay jammed.
	ctrl, err := b.ReadReg(hw.RegCtrl)
	if err != nil {
		return err
	}
	if err := b.WriteReg(hw.RegCtrl, ctrl|hw.CtrlEnable); err != nil {
		return err
	}
	for i := 0; b.Busy(); i++ {
		if i > 2000 {
			return fmt.Errorf("jammed: %d messages still at the input at cycle %d", b.Pending(), b.Cycle())
		}
		prod, _ := b.ReadReg(hw.RegLHProd)
		cons, _ := b.ReadReg(hw.RegLHCons)
		used, _ := b.ReadReg(hw.RegTailUsed)
		if prod != cons {
			b.Post(hw.RegLHRelease, prod-cons)
		}
		if used != 0 {
			b.Post(hw.RegTailRelease, used)
		}
		if err := b.Run(200); err != nil {
			return err
		}
		if err := check("draining"); err != nil {
			return err
		}
	}
	if err := b.Run(4); err != nil {
		return err
	}
	count, err := b.ReadReg(hw.RegMsgCount)
	if err != nil {
		return err
	}
	if count != uint32(injected) {
		return fmt.Errorf("MSG_COUNT %d after %d messages", count, injected)
	}
	return check("the end")
}
