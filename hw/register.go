package hw

// Register is one row of the register map (Registers, generated from contract.json).
type Register struct {
	Name   string // as in docs/design.md; the RTL's offset is REG_<Name>
	Offset uint32 // byte offset in the register region
	Access string // R, RW, RW* (configuration), W (reads return 0) or R/W1C
	Reset  uint32 // the value a read returns after reset (0 when write-only or Params)
	Params bool   // the value is set by the build's parameters (PARAMS), not fixed
	Doc    string // the meaning column of docs/design.md
}
