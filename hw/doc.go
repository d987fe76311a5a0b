// Package hw is the receive path's hardware contract as Go constants, generated from contract.json.
package hw

// hw is the hardware contract of the receive path (lhs_top): register offsets, bits,
// values and reset values, the host bus regions and the LH entry layout, as Go constants.
// The RTL (rtl/lhs_regs.vh), the C bridge (verilator/lhs_regs.h), the register tables of
// docs/design.md and contract_gen.go here are all generated from one file, contract.json;
// edit it and run go generate ./hw (make generate). hw imports nothing of this module, so
// every package may use it.

//go:generate go run ./gen
