package tlm

import (
	"fmt"
	"math/bits"

	"github.com/lhsim/lhsim/hw"
)

// Config is what the user chose: the receive path's configuration registers (docs/design.md,
// register map) and the build's ENTRIES. A NIC never changes it; what a run changes is the
// NIC's state.
type Config struct {
	LHSOn    bool   // CTRL.LHS_ON
	SizePos  uint32 // SIZE_POS: byte offset of the size field, 0, 4, 8 or 12
	SplitPos uint32 // SPLIT_POS: 16, 32 or 48
	MaxMsg   uint32 // MAX_MSG: largest accepted size field, at most 0xFFFF
	TailBase uint32 // TAIL_BASE: tail ring base in large memory, bytes, 16-byte aligned
	TailSize uint32 // TAIL_SIZE: tail ring bytes, a 16-byte multiple, 16 to 128 MiB
	Entries  int    // LH buffer entries: a power of two, 4..65536 (the RTL build has 1024)
}

// DefaultConfig is the receive path after reset: the registers' reset values (LHS on,
// ENABLE set) and the Verilated build's 1024 entries.
func DefaultConfig() Config {
	return Config{
		LHSOn:    hw.CtrlReset&hw.CtrlLHSOn != 0,
		SizePos:  hw.SizePosReset,
		SplitPos: hw.SplitPosReset,
		MaxMsg:   hw.MaxMsgReset,
		TailBase: hw.TailBaseReset,
		TailSize: hw.TailSizeReset,
		Entries:  1024,
	}
}

// maxEntries bounds the LH buffer the model allocates (64 bytes an entry); the hardware
// contract's range is 64..8192.
const maxEntries = 1 << 16

// Validate reports the first value the hardware would not take: the values whose register
// write sets ERR.CFG_VALUE (docs/design.md), and an ENTRIES the RTL cannot be built with.
func (c Config) Validate() error {
	switch {
	case c.SizePos%4 != 0 || c.SizePos > 12:
		return fmt.Errorf("tlm: SizePos %d is not 0, 4, 8 or 12", c.SizePos)
	case c.SplitPos%16 != 0 || c.SplitPos < 16 || c.SplitPos > 48:
		return fmt.Errorf("tlm: SplitPos %d is not 16, 32 or 48", c.SplitPos)
	case c.MaxMsg > 0xffff:
		return fmt.Errorf("tlm: MaxMsg %d is above 65535", c.MaxMsg)
	case c.TailBase%16 != 0:
		return fmt.Errorf("tlm: TailBase %#x is not 16-byte aligned", c.TailBase)
	case c.TailSize%16 != 0 || c.TailSize < 16 || c.TailSize > hw.TailSizeMax:
		return fmt.Errorf("tlm: TailSize %#x is not a 16-byte multiple in 16..%#x", c.TailSize, hw.TailSizeMax)
	case uint64(c.TailBase)+uint64(c.TailSize) > hw.MemBytes:
		return fmt.Errorf("tlm: tail ring [%#x, %#x) is past the %d bytes of large memory",
			c.TailBase, uint64(c.TailBase)+uint64(c.TailSize), uint64(hw.MemBytes))
	case c.Entries < 4 || c.Entries > maxEntries || bits.OnesCount(uint(c.Entries)) != 1:
		return fmt.Errorf("tlm: Entries must be a power of two in 4..%d, got %d", maxEntries, c.Entries)
	}
	return nil
}
