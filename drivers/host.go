package drivers

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/hw"
)

// Config is how the host programs the receive path. Zero values take the defaults of
// docs/design.md.
type Config struct {
	LHS      bool   // LHS on: heads in the LH buffer; off: every message whole in the tail ring
	SizePos  uint32 // byte offset of the size field: 4, 8, 12 or SizeAtZero (0 means the default, hw.SizePosReset)
	SplitPos uint32 // 16, 32 or 48 (default hw.SplitPosReset)
	MaxMsg   uint32 // largest accepted message (default hw.MaxMsgReset)
	TailBase uint32 // tail ring base in large memory (default hw.TailBaseReset)
	TailSize uint32 // tail ring bytes (default hw.TailSizeReset)
}

// SizeAtZero asks for the size field at byte 0 (a zero SizePos means the default).
const SizeAtZero = 1 << 31

// withDefaults fills in the registers' reset values (docs/design.md).
func (c Config) withDefaults() Config {
	switch c.SizePos {
	case 0:
		c.SizePos = hw.SizePosReset
	case SizeAtZero:
		c.SizePos = 0
	}
	if c.SplitPos == 0 {
		c.SplitPos = hw.SplitPosReset
	}
	if c.MaxMsg == 0 {
		c.MaxMsg = hw.MaxMsgReset
	}
	if c.TailSize == 0 {
		c.TailSize = hw.TailSizeReset
	}
	return c
}

// Entry is one LH entry as the host read it (docs/design.md, "LH entry format").
type Entry struct {
	Seq      uint32   // free-running entry number
	Raw      [64]byte // the cache line
	Len      int      // bytes delivered on the wire
	Flags    uint8    // hw.Flag*
	TailPtr  uint32   // large-memory address of message byte SplitPos, when Split
	splitPos int
	sizePos  int
}

// Split reports whether the tail is in large memory.
func (e Entry) Split() bool { return e.Flags&hw.FlagSplit != 0 }

// Size is the message's size field.
func (e Entry) Size() uint32 { return binary.LittleEndian.Uint32(e.Raw[e.sizePos:]) }

// Head is the part of the message stored in the entry.
func (e Entry) Head() []byte {
	if e.Split() || e.Flags&hw.FlagTooLong != 0 {
		return e.Raw[:min(e.splitPos, e.Len)]
	}
	return e.Raw[:min(e.Len, hw.InlineMax)]
}

// TailLen is the number of tail bytes stored in large memory.
func (e Entry) TailLen() int {
	if !e.Split() {
		return 0
	}
	return max(0, min(e.Len, int(e.Size()))-e.splitPos)
}

// tailUnits is the tail space the entry reserved, in 16-byte units.
func (e Entry) tailUnits() uint32 {
	if !e.Split() {
		return 0
	}
	return hw.TailUnits(e.Size(), uint32(e.splitPos))
}

// Host is the host driver: it programs the NIC, reads entries by PIO, fetches tails through
// the vector engine and releases what the host has consumed. The MPI layer consumes out of
// order; Host keeps the consumed set and releases the oldest run, as the hardware wants.
type Host struct {
	dev      Bus
	cfg      Config
	entries  uint32
	winBytes uint32
	cons     uint32            // oldest unreleased entry (mirrors LH_CONS)
	consumed map[uint32]uint32 // consumed, unreleased entries -> their tail units
	ringRd   uint32            // LHS off: ring offset of the next message to walk
	seen     uint32            // LHS off: messages walked
}

// ErrHardware is wrapped by errors the NIC itself reported.
var ErrHardware = errors.New("nic reported an error")

// NewHost checks the device, programs cfg and enables the receive path.
func NewHost(dev Bus, cfg Config) (*Host, error) {
	cfg = cfg.withDefaults()
	id, err := dev.ReadReg(hw.RegID)
	if err != nil {
		return nil, err
	}
	if id != hw.ID {
		return nil, fmt.Errorf("drivers: device ID %#x, want %#x", id, hw.ID)
	}
	params, err := dev.ReadReg(hw.RegParams)
	if err != nil {
		return nil, err
	}
	h := &Host{dev: dev, cfg: cfg, entries: 1 << (params >> hw.ParamsLog2EntriesShift & hw.ParamsLog2EntriesMask),
		winBytes: (params >> hw.ParamsWinUnitsShift & hw.ParamsWinUnitsMask) * 16,
		consumed: map[uint32]uint32{}}
	ctrl := uint32(0)
	if cfg.LHS {
		ctrl = hw.CtrlLHSOn
	}
	writes := []struct{ addr, val uint32 }{
		{hw.RegCtrl, ctrl},
		{hw.RegSizePos, cfg.SizePos},
		{hw.RegSplitPos, cfg.SplitPos},
		{hw.RegMaxMsg, cfg.MaxMsg},
		{hw.RegTailBase, 0},
		{hw.RegTailSize, cfg.TailSize},
		{hw.RegTailBase, cfg.TailBase},
		{hw.RegErr, hw.ErrAll},
	}
	for _, w := range writes {
		if err := dev.WriteReg(w.addr, w.val); err != nil {
			return nil, err
		}
		if e, err := dev.ReadReg(hw.RegErr); err != nil {
			return nil, err
		} else if e&(hw.ErrCfgBusy|hw.ErrCfgValue) != 0 {
			return nil, fmt.Errorf("drivers: register %#x refused %#x (ERR %#x): %w", w.addr, w.val, e, ErrHardware)
		}
	}
	if err := dev.WriteReg(hw.RegCtrl, ctrl|hw.CtrlEnable); err != nil {
		return nil, err
	}
	return h, nil
}

// Released is LH_CONS as the host has written it: the oldest entry it still holds.
func (h *Host) Released() uint32 { return h.cons }

// Bus returns the host bus the driver drives.
func (h *Host) Bus() Bus { return h.dev }

// Config returns the configuration in force.
func (h *Host) Config() Config { return h.cfg }

// Entries is the LH buffer's entry count.
func (h *Host) Entries() int { return int(h.entries) }

// WindowBytes is the size of each window.
func (h *Host) WindowBytes() int { return int(h.winBytes) }

// Produced reads LH_PROD: entries committed since reset.
func (h *Host) Produced() (uint32, error) { return h.dev.ReadReg(hw.RegLHProd) }

// MsgCount reads MSG_COUNT: messages fully received since reset.
func (h *Host) MsgCount() (uint32, error) { return h.dev.ReadReg(hw.RegMsgCount) }

// EntryAddr is the host bus address of entry seq.
func (h *Host) EntryAddr(seq uint32) uint32 { return hw.LHBase + hw.EntryBytes*(seq%h.entries) }

// ReadEntry reads entry seq by PIO.
func (h *Host) ReadEntry(seq uint32) (Entry, error) {
	e := Entry{Seq: seq, splitPos: int(h.cfg.SplitPos), sizePos: int(h.cfg.SizePos)}
	if err := h.dev.ReadBlock(h.EntryAddr(seq), e.Raw[:]); err != nil {
		return e, err
	}
	e.Len = int(binary.LittleEndian.Uint16(e.Raw[hw.EntryLenOffset:]))
	e.Flags = e.Raw[hw.EntryFlagsOffset]
	e.TailPtr = binary.LittleEndian.Uint32(e.Raw[hw.EntryTailPtrOffset:])
	return e, nil
}

// Message returns the whole stored message of entry e: its head, and its tail fetched by VL.
func (h *Host) Message(e Entry) ([]byte, error) {
	msg := append([]byte(nil), e.Head()...)
	if n := e.TailLen(); n > 0 {
		tail, err := h.FetchRing(e.TailPtr, n)
		if err != nil {
			return nil, err
		}
		msg = append(msg, tail...)
	}
	return msg, nil
}

// Consume marks entry seq consumed and releases the oldest run of consumed entries, with the
// tail space they hold.
func (h *Host) Consume(seq uint32) error {
	if seq-h.cons >= h.entries {
		return fmt.Errorf("drivers: entry %d is not held (oldest held is %d)", seq, h.cons)
	}
	if _, dup := h.consumed[seq]; dup {
		return fmt.Errorf("drivers: entry %d consumed twice", seq)
	}
	units := uint32(0)
	if e, err := h.ReadEntry(seq); err != nil {
		return err
	} else {
		units = e.tailUnits()
	}
	h.consumed[seq] = units
	var n, tail uint32
	for {
		u, ok := h.consumed[h.cons+n]
		if !ok {
			break
		}
		delete(h.consumed, h.cons+n)
		tail += u
		n++
	}
	if n == 0 {
		return nil
	}
	h.cons += n
	if err := h.dev.WriteReg(hw.RegLHRelease, n); err != nil {
		return err
	}
	if tail > 0 {
		if err := h.dev.WriteReg(hw.RegTailRelease, tail*16); err != nil {
			return err
		}
	}
	return h.checkErr()
}

func (h *Host) checkErr() error {
	e, err := h.dev.ReadReg(hw.RegErr)
	if err != nil {
		return err
	}
	if e&hw.ErrRelease != 0 {
		return fmt.Errorf("drivers: release refused (ERR %#x): %w", e, ErrHardware)
	}
	return nil
}

// VecError is a vector command the engine refused.
type VecError struct{ Cause uint32 }

func (e *VecError) Error() string {
	names := map[uint32]string{hw.CauseLen: "zero length", hw.CauseWindow: "window range",
		hw.CauseMemory: "memory range", hw.CauseAlign: "alignment", hw.CauseOpcode: "opcode"}
	return fmt.Sprintf("vector command refused: %s (cause %d)", names[e.Cause], e.Cause)
}

func (e *VecError) Unwrap() error { return ErrHardware }

// vecLimit bounds the status polls of one command: far beyond any memory latency.
const vecLimit = 100000

func (h *Host) vector(op, memAddr, winOff, n uint32) error {
	for _, w := range [][2]uint32{{hw.RegVecMemAddr, memAddr}, {hw.RegVecWinOff, winOff},
		{hw.RegVecLen, n}, {hw.RegVecCmd, op}} {
		if err := h.dev.WriteReg(w[0], w[1]); err != nil {
			return err
		}
	}
	for i := 0; i < vecLimit; i++ {
		st, err := h.dev.ReadReg(hw.RegVecStatus)
		if err != nil {
			return err
		}
		if st&hw.VecBusy == 0 && st&hw.VecDone != 0 {
			if st&hw.VecError != 0 {
				return &VecError{Cause: st >> hw.VecCauseShift & hw.VecCauseMask}
			}
			return nil
		}
	}
	return fmt.Errorf("drivers: vector command still busy after %d polls", vecLimit)
}

// VL loads n bytes from large memory at memAddr into the read window at winOff and waits.
func (h *Host) VL(memAddr, winOff, n uint32) error {
	return h.vector(hw.VecOpVL, memAddr, winOff, n)
}

// VS stores n bytes from the write window at winOff to large memory at memAddr and waits.
func (h *Host) VS(memAddr, winOff, n uint32) error {
	return h.vector(hw.VecOpVS, memAddr, winOff, n)
}

// Fetch reads n bytes of large memory at addr through the read window, a window at a time.
func (h *Host) Fetch(addr uint32, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for n > 0 {
		k := min(n, int(h.winBytes))
		if err := h.VL(addr, 0, uint32(k)); err != nil {
			return nil, err
		}
		buf := make([]byte, (k+3)&^3)
		if err := h.dev.ReadBlock(hw.ReadWindowBase, buf); err != nil {
			return nil, err
		}
		out = append(out, buf[:k]...)
		addr += uint32(k)
		n -= k
	}
	return out, nil
}

// Store writes data to large memory at addr (16-byte aligned) through the write window.
func (h *Host) Store(addr uint32, data []byte) error {
	for len(data) > 0 {
		k := min(len(data), int(h.winBytes))
		buf := make([]byte, (k+3)&^3)
		copy(buf, data[:k])
		if err := h.dev.WriteBlock(hw.WriteWindowBase, buf); err != nil {
			return err
		}
		if err := h.VS(addr, 0, uint32(k)); err != nil {
			return err
		}
		addr += uint32(k)
		data = data[k:]
	}
	return nil
}

// FetchRing reads n bytes starting at addr inside the tail ring, following the wrap.
func (h *Host) FetchRing(addr uint32, n int) ([]byte, error) {
	end := h.cfg.TailBase + h.cfg.TailSize
	first := min(n, int(end-addr))
	out, err := h.Fetch(addr, first)
	if err != nil || first == n {
		return out, err
	}
	rest, err := h.Fetch(h.cfg.TailBase, n-first)
	return append(out, rest...), err
}

// RingMessage is a message walked in the tail ring with LHS off.
type RingMessage struct {
	Addr  uint32 // large-memory address of its first byte
	Size  uint32 // its size field
	Bytes []byte // the stored bytes: min(size, what the ring holds for it)
}

// NextRingMessage (LHS off) walks to the next message in the tail ring: a 16-byte VL for the
// envelope, then one for the rest. It returns false when no further message has arrived.
func (h *Host) NextRingMessage() (RingMessage, bool, error) {
	stored, err := h.storedMessages()
	if err != nil || stored == h.seen {
		return RingMessage{}, false, err
	}
	addr := h.cfg.TailBase + h.ringRd*16
	env, err := h.FetchRing(addr, 16)
	if err != nil {
		return RingMessage{}, false, err
	}
	size := binary.LittleEndian.Uint32(env[h.cfg.SizePos:])
	if size > h.cfg.MaxMsg {
		return RingMessage{}, false, fmt.Errorf("drivers: ring message at %#x has size %d over MAX_MSG", addr, size)
	}
	units := hw.RingUnits(size)
	msg := env[:min(16, int(size))]
	if size > 16 {
		rest, err := h.FetchRing(h.ringAddr(h.ringRd+1), int(size)-16)
		if err != nil {
			return RingMessage{}, false, err
		}
		msg = append(msg, rest...)
	}
	h.ringRd = (h.ringRd + units) % (h.cfg.TailSize / 16)
	h.seen++
	return RingMessage{Addr: addr, Size: size, Bytes: msg}, true, nil
}

// storedMessages is MSG_COUNT - DROP_COUNT (LHS off: the messages in the ring). The two are
// separate bus reads, and a dropped message may finish between them, so DROP_COUNT is read on
// both sides of MSG_COUNT until it did not move.
func (h *Host) storedMessages() (uint32, error) {
	for {
		d0, err := h.dev.ReadReg(hw.RegDropCount)
		if err != nil {
			return 0, err
		}
		count, err := h.MsgCount()
		if err != nil {
			return 0, err
		}
		d1, err := h.dev.ReadReg(hw.RegDropCount)
		if err != nil {
			return 0, err
		}
		if d0 == d1 {
			return count - d1, nil
		}
	}
}

func (h *Host) ringAddr(off uint32) uint32 {
	return h.cfg.TailBase + off%(h.cfg.TailSize/16)*16
}

// ReleaseRing gives back the ring space of a walked message (LHS off), oldest first.
func (h *Host) ReleaseRing(m RingMessage) error {
	if err := h.dev.WriteReg(hw.RegTailRelease, hw.RingUnits(m.Size)*16); err != nil {
		return err
	}
	return h.checkErr()
}
