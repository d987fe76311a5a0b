package area

import (
	"errors"
	"fmt"
)

// RAMB16 shapes: depth and width (data bits plus parity bits), and the data bits alone.
var ramb16 = []struct{ depth, width, data int }{
	{16384, 1, 1}, {8192, 2, 2}, {4096, 4, 4}, {2048, 9, 8}, {1024, 18, 16}, {512, 36, 32},
}

// BlockRAMs is the fewest RAMB16 that hold words x width bits, each block used in one
// shape. With parity the parity bits carry data too (what Yosys does); without, only the
// data bits do (what the paper's ISE 8.2i netlist did: 4 x 32-bit ports for a 128-bit word).
func BlockRAMs(words, width int, parity bool) int {
	best := 0
	for _, s := range ramb16 {
		w := s.data
		if parity {
			w = s.width
		}
		n := ceilDiv(words, s.depth) * ceilDiv(width, w)
		if best == 0 || n < best {
			best = n
		}
	}
	return best
}

// LHWordBits is the LH buffer's word: four 128-bit words per 64-byte entry.
const LHWordBits = 128

// CheckLHBuffer reports whether the LH buffer of an lhs_rx report sits in block RAM: no
// memory left unmapped, no LUT RAM, no unknown cells, exactly the block RAMs that the
// buffer needs, and fewer flip-flops than an eighth of the buffer's bits (a buffer that fell
// back to flip-flops, even in part, would exceed that by far; lhs_rx's own control logic
// is a few hundred flip-flops at any size).
func CheckLHBuffer(r Report) error {
	if r.Top != TopLHS || r.Family != XC2VP {
		return fmt.Errorf("area: %s: the LH buffer check is for %s on %s", r.Job, TopLHS, XC2VP)
	}
	entries, ok := r.Param("ENTRIES")
	if !ok {
		return fmt.Errorf("area: %s: no ENTRIES override", r.Job)
	}
	words := 4 * entries
	var errs []error
	if r.Memories != 0 {
		errs = append(errs, fmt.Errorf("%d memories left unmapped", r.Memories))
	}
	if r.LUTRAMs != 0 {
		errs = append(errs, fmt.Errorf("%d LUTs used as distributed RAM", r.LUTRAMs))
	}
	if len(r.Other) != 0 {
		errs = append(errs, fmt.Errorf("unknown cells: %s", otherTypes(r.Other)))
	}
	if want := BlockRAMs(words, LHWordBits, true); r.BRAMs != want {
		errs = append(errs, fmt.Errorf("%d RAMB16, want %d for %d x %d bits", r.BRAMs, want, words, LHWordBits))
	}
	if limit := words * LHWordBits / 8; r.FFs >= limit {
		errs = append(errs, fmt.Errorf("%d flip-flops, at least an eighth of the buffer's %d bits", r.FFs, words*LHWordBits))
	}
	if len(errs) > 0 {
		return fmt.Errorf("area: %s: LH buffer not in block RAM: %w", r.Job, errors.Join(errs...))
	}
	return nil
}
