// Package area synthesizes the RTL with Yosys and turns the result into the figures of the
// paper's Table 1: LUTs, flip-flops, block RAMs and a Virtex-II Pro slice estimate for the
// LHS receive block (rtl/lhs_rx.v) and for the ALPU baseline (rtl/alpu.v), side by side with
// the paper's ISE 8.2i figures.
//
// A Job is one top module with parameter overrides for one device family. Script writes the
// Yosys script for it (read_verilog, chparam, hierarchy, synth_xilinx, check -assert, stat),
// Runner runs Yosys and parses its `stat -json` output and a few netlist counts into a
// Report. Reports are checked in under synth-reports/ so that `lhsim area --cached` shows the
// table without Yosys. docs/area.md explains the flow and the slice estimate.
package area

import (
	"fmt"
	"strings"
)

// Family is a synth_xilinx target.
type Family string

const (
	// XC2VP is Virtex-II Pro, the paper's part (XC2VP70): LUT4, 2 LUT4 + 2 FF per slice,
	// RAMB16 block RAM.
	XC2VP Family = "xc2vp"
	// XC7 is 7-series, a modern part: LUT6, 4 LUT6 + 8 FF per slice, RAMB18/RAMB36.
	XC7 Family = "xc7"
)

// Device figures of the paper's part, XC2VP70, for the percentages of Table 1.
const (
	XC2VP70Slices = 33088
	XC2VP70BRAMs  = 328
)

// Param is one parameter override, applied with chparam.
type Param struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
}

// Job is one synthesis run: a top module, its parameter overrides, a family.
type Job struct {
	Top    string  `json:"top"`
	Params []Param `json:"params,omitempty"`
	Family Family  `json:"family"`
	// Prepare are Yosys commands run before synth_xilinx (not part of the name; tests use
	// it to force a memory out of block RAM).
	Prepare string `json:"prepare,omitempty"`
}

// Name identifies the job in file names: top, then NAMEvalue per override.
func (j Job) Name() string {
	var b strings.Builder
	b.WriteString(j.Top)
	for _, p := range j.Params {
		fmt.Fprintf(&b, "_%s%d", p.Name, p.Value)
	}
	return b.String()
}

// String is the job's name with its family.
func (j Job) String() string { return string(j.Family) + "/" + j.Name() }

// Param returns the value of the named override and whether there is one.
func (j Job) Param(name string) (int, bool) {
	for _, p := range j.Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return 0, false
}

// Resources are the counted figures of one synthesized design.
type Resources struct {
	// LUTs are LUT sites: logic LUTs and inverters, plus LUTs used as distributed RAM or
	// shift registers (LUTRAMs and SRLs, counted again on their own).
	LUTs    int `json:"luts"`
	LUTRAMs int `json:"lutrams"`
	SRLs    int `json:"srls"`
	FFs     int `json:"ffs"`
	// BRAMs counts 18-Kbit block RAMs: RAMB16 on Virtex-II Pro; RAMB18 = 1 and RAMB36 = 2
	// on 7-series.
	BRAMs int `json:"brams"`
	// Mults counts hard multipliers and DSP blocks.
	Mults int `json:"mults"`
	// Carry counts carry-chain cells (MUXCY on xc2vp, CARRY4 on xc7); CarryNoLUT those
	// MUXCY whose select is not driven by a LUT: they still take a LUT's place in a slice.
	Carry      int `json:"carry"`
	CarryNoLUT int `json:"carry_no_lut"`
	// Pairs counts LUT (or XORCY) outputs that drive a flip-flop: such a LUT and flip-flop
	// can share a slice half as related logic.
	Pairs int `json:"pairs"`
	// Slices is the dense slice estimate, SlicesUnpacked the estimate when unrelated LUTs
	// and flip-flops never share a slice half (see Estimate).
	Slices         int `json:"slices"`
	SlicesUnpacked int `json:"slices_unpacked,omitempty"`
	// Other lists cell types the classification does not know, with their counts; unmapped
	// Yosys cells ($...) end up here.
	Other map[string]int `json:"other,omitempty"`
}

// Estimate fills in the slice estimates from the counts.
//
// Virtex-II Pro: a slice holds 2 LUT4 and 2 flip-flops, with a MUXCY/XORCY pair behind each
// LUT. The LUT sites a design needs are its LUTs plus the carry stages that have no LUT of
// their own; the dense estimate packs LUT sites and flip-flops two by two, as the mapper
// does when the flip-flops' data come from unrelated logic (a slice's flip-flops can take
// their data from outside the slice): ceil(max(sites, FFs) / 2). The unpacked estimate lets
// a LUT and a flip-flop share a slice half only when the LUT drives that flip-flop:
// ceil((sites + FFs - pairs) / 2). A mapper that packs unrelated logic only under pressure
// lands in between. No factor is fitted to the paper.
//
// 7-series: a slice holds 4 LUT6 and 8 flip-flops: ceil(max(sites/4, FFs/8)), dense only.
func (r *Resources) Estimate(f Family) {
	sites := r.LUTs + r.CarryNoLUT
	switch f {
	case XC2VP:
		r.Slices = ceilDiv(max(sites, r.FFs), 2)
		r.SlicesUnpacked = max(r.Slices, ceilDiv(sites+r.FFs-r.Pairs, 2))
	default:
		r.Slices = max(ceilDiv(sites, 4), ceilDiv(r.FFs, 8))
		r.SlicesUnpacked = 0
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Report is the record of one synthesis run, as checked in under synth-reports/.
type Report struct {
	Job
	Yosys string `json:"yosys"`
	// Memories counts memories Yosys left unmapped (must be 0).
	Memories int `json:"memories"`
	// Cells are the design's cells by type, all levels of hierarchy counted.
	Cells map[string]int `json:"cells"`
	Resources
}
