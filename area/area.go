// Package area synthesizes the RTL with Yosys into Table 1's figures: LUTs, flip-flops, block RAMs, slices.
package area

// area synthesizes the RTL with Yosys and turns the result into the figures of the
// paper's Table 1: LUTs, flip-flops, block RAMs and a Virtex-II Pro slice estimate for the
// LHS receive block (rtl/lhs_rx.v) and for the ALPU baseline (rtl/alpu.v), side by side with
// the paper's ISE 8.2i figures.
//
// A Job is one top module with parameter overrides for one device family. Script writes the
// Yosys script for it (read_verilog, chparam, hierarchy, synth_xilinx, check -assert, stat),
// Runner runs Yosys and parses its `stat -json` output and a few netlist counts into a
// Report. Reports are checked in under synth-reports/ so that `lhsim area --cached` shows the
// table without Yosys. docs/area.md explains the flow and the slice estimate.

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
	// ControlSets counts the flip-flops' distinct control sets (clock, clock enable,
	// set/reset and its mode; xc2vp). FFSlices is the slices the flip-flops need at least,
	// as only flip-flops of one control set share a slice: the sum over the sets of
	// ceil(size / 2). OddSets counts the sets of odd size, whose last slice keeps one
	// flip-flop place free.
	ControlSets int `json:"control_sets,omitempty"`
	FFSlices    int `json:"ff_slices,omitempty"`
	OddSets     int `json:"odd_sets,omitempty"`
	// Slices is the slice estimate's lower bound, SlicesMax its upper estimate, where
	// unrelated LUTs and flip-flops never share a slice half (see Estimate).
	Slices    int `json:"slices"`
	SlicesMax int `json:"slices_max,omitempty"`
	// Other lists cell types the classification does not know, with their counts; unmapped
	// Yosys cells ($...) end up here.
	Other map[string]int `json:"other,omitempty"`
}

// Estimate fills in the slice estimates from the counts.
//
// Virtex-II Pro: a slice holds 2 LUT4 and 2 flip-flops, with a MUXCY/XORCY pair behind each
// LUT, and its two flip-flops share one clock, clock enable and set/reset line. The LUT sites
// a design needs are its LUTs plus the carry stages that have no LUT of their own.
//
// The lower bound packs LUT sites two by two and flip-flops two by two within each control
// set, related or not (a slice's flip-flops can take their data from outside the slice):
// max(ceil(sites / 2), FFSlices). No placement can use fewer slices.
//
// The upper estimate lets a LUT and a flip-flop share a slice half only when the LUT drives
// that flip-flop: every flip-flop takes a half (FFSlices slices, packed by control set), and
// the LUTs that drive no flip-flop fill the free halves of odd control sets, then slices of
// their own: FFSlices + ceil(max(0, sites - pairs - OddSets) / 2). What a mapper that never
// packs unrelated logic would report; one that does so under pressure lands in between. No
// factor is fitted to the paper. Without control-set counts (FFSlices 0), every flip-flop
// is taken to share one set.
//
// 7-series: a slice holds 4 LUT6 and 8 flip-flops: ceil(max(sites/4, FFs/8)), dense only.
func (r *Resources) Estimate(f Family) {
	sites := r.LUTs + r.CarryNoLUT
	switch f {
	case XC2VP:
		ffSlices, odd := r.FFSlices, r.OddSets
		if ffSlices == 0 {
			ffSlices, odd = ceilDiv(r.FFs, 2), r.FFs%2
		}
		r.Slices = max(ceilDiv(sites, 2), ffSlices)
		r.SlicesMax = max(r.Slices, ffSlices+ceilDiv(max(0, sites-r.Pairs-odd), 2))
	default:
		r.Slices = max(ceilDiv(sites, 4), ceilDiv(r.FFs, 8))
		r.SlicesMax = 0
	}
}

// SetControlSets records the flip-flops per control set (the sizes ControlSets returns).
func (r *Resources) SetControlSets(sizes []int) {
	r.ControlSets, r.FFSlices, r.OddSets = len(sizes), 0, 0
	for _, n := range sizes {
		r.FFSlices += ceilDiv(n, 2)
		r.OddSets += n % 2
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
