package area

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		family Family
		cells  map[string]int
		want   Resources
	}{
		{"xc2vp logic, carry, block RAM", XC2VP,
			map[string]int{"LUT1": 1, "LUT2": 2, "LUT3": 3, "LUT4": 4, "INV": 5, "MUXCY": 6, "XORCY": 6,
				"MUXF5": 7, "FDRE": 8, "FDSE": 1, "RAMB16_S36_S36": 4, "RAMB16_S9_S9": 2, "MULT18X18S": 1},
			Resources{LUTs: 15, FFs: 9, BRAMs: 6, Carry: 6, Mults: 1}},
		{"xc2vp distributed RAM and shift registers take LUT sites", XC2VP,
			map[string]int{"RAM16X1D": 3, "RAM32X1S": 2, "RAM64X1S": 1, "SRL16E": 2, "LUT4": 1},
			Resources{LUTs: 1 + 6 + 4 + 4 + 2, LUTRAMs: 14, SRLs: 2}},
		{"xc7 logic and block RAM in 18-Kbit units", XC7,
			map[string]int{"LUT6": 10, "LUT5": 2, "CARRY4": 3, "MUXF7": 4, "FDRE": 20, "FDCE": 2,
				"RAMB36E1": 3, "RAMB18E1": 1, "RAM64M": 2, "DSP48E1": 1},
			Resources{LUTs: 20, LUTRAMs: 8, FFs: 22, BRAMs: 7, Carry: 3, Mults: 1}},
		{"unmapped cells are not hidden", XC2VP,
			map[string]int{"$mem_v2": 1, "LUT4": 2, "$_DFF_P_": 3},
			Resources{LUTs: 2, Other: map[string]int{"$mem_v2": 1, "$_DFF_P_": 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Classify(tc.family, tc.cells))
		})
	}
}

func TestEstimate(t *testing.T) {
	tests := []struct {
		name               string
		family             Family
		r                  Resources
		sets               []int // flip-flops per control set; nil: not counted
		slices, upperBound int
	}{
		// Flip-flop bound: 101 FFs, 58 LUTs, 1 pair: lower 51; upper 51 + (58-1-1)/2 = 79.
		{"flip-flop bound", XC2VP, Resources{LUTs: 58, FFs: 101, Pairs: 1}, nil, 51, 79},
		// LUT bound, carry stages without a LUT add sites: 100+7 sites, 40 FFs, 30 pairs.
		{"LUT bound with carry", XC2VP, Resources{LUTs: 100, CarryNoLUT: 7, FFs: 40, Pairs: 30}, nil, 54, 59},
		// Every LUT drives its FF: the upper estimate is the lower bound.
		{"related pairs", XC2VP, Resources{LUTs: 10, FFs: 10, Pairs: 10}, nil, 5, 5},
		// Ten flip-flops in five sets of one and one of five: 5 + 3 slices for the
		// flip-flops alone, where pairing across sets would need 5. The upper estimate:
		// 8 slices of flip-flops, whose 6 free places take the 4 LUTs that drive none.
		{"control sets", XC2VP, Resources{LUTs: 8, FFs: 10, Pairs: 4}, []int{5, 1, 1, 1, 1, 1}, 8, 8},
		// The same with 20 unrelated LUTs: 6 fill free places, 14 take 7 slices more.
		{"control sets and unrelated LUTs", XC2VP, Resources{LUTs: 24, FFs: 10, Pairs: 4}, []int{5, 1, 1, 1, 1, 1}, 12, 15},
		{"xc7", XC7, Resources{LUTs: 41, FFs: 100}, nil, 13, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if tc.sets != nil {
				r.SetControlSets(tc.sets)
			}
			r.Estimate(tc.family)
			require.Equal(t, tc.slices, r.Slices)
			require.Equal(t, tc.upperBound, r.SlicesMax)
		})
	}
}

func TestControlSets(t *testing.T) {
	// Three flip-flops on clock 2: two share enable 5 and reset 0, one has enable 6; one
	// with an asynchronous clear on net 7, one set (S) on the same net as a reset (R): the
	// set/reset line is shared, set or reset is per flip-flop.
	netlist := `{"modules": {"FDRE": {"attributes": {"blackbox": "1"}, "cells": {}},
		"top": {"attributes": {"top": "1"}, "cells": {
		"a": {"type": "FDRE", "connections": {"C": [2], "CE": [5], "R": ["0"], "D": [10], "Q": [11]}},
		"b": {"type": "FDRE", "connections": {"C": [2], "CE": [5], "R": ["0"], "D": [12], "Q": [13]}},
		"c": {"type": "FDRE", "connections": {"C": [2], "CE": [6], "R": ["0"], "D": [14], "Q": [15]}},
		"d": {"type": "FDCE", "connections": {"C": [2], "CE": [5], "CLR": [7], "D": [16], "Q": [17]}},
		"e": {"type": "FDRE", "connections": {"C": [2], "CE": [5], "R": [7], "D": [18], "Q": [19]}},
		"f": {"type": "FDSE", "connections": {"C": [2], "CE": [5], "S": [7], "D": [20], "Q": [21]}}}}}}`
	sizes, err := ControlSets([]byte(netlist))
	require.NoError(t, err)
	require.Equal(t, []int{2, 2, 1, 1}, sizes)
	_, err = ControlSets([]byte(`{"modules": {"top": {"cells": {"l": {"type": "LUT4", "connections": {}}}}}}`))
	require.ErrorContains(t, err, "LUT4")
	_, err = ControlSets([]byte(`{"modules": {"a": {"cells": {}}, "b": {"cells": {}}}}`))
	require.ErrorContains(t, err, "2 modules")
}

func TestParseStat(t *testing.T) {
	hier := `{"creator": "Yosys 0.23", "modules": {
		"\\top": {"num_memories": 0, "num_cells": 3, "num_cells_by_type": {"$paramod\\sub": 2, "FDRE": 1}},
		"$paramod\\sub": {"num_memories": 0, "num_cells": 1, "num_cells_by_type": {"LUT4": 1}}},
		"design": {"num_memories": 1, "num_cells": 3, "num_cells_by_type": {"FDRE": 1, "LUT4": 2}}}`
	flat := `{"creator": "Yosys 0.23", "modules": {"\\top": {"num_memories": 0, "num_cells": 2,
		"num_cells_by_type": {"FDRE": 1, "LUT4": 2}}}}`
	s, err := ParseStat([]byte(hier))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"FDRE": 1, "LUT4": 2}, s.Cells)
	require.Equal(t, 1, s.Memories)
	require.Equal(t, map[string]int{"LUT4": 1}, s.Modules[`$paramod\sub`])
	s, err = ParseStat([]byte(flat))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"FDRE": 1, "LUT4": 2}, s.Cells)
	require.Equal(t, "Yosys 0.23", s.Creator)

	_, err = ParseStat([]byte(`{"modules": {"\\a": {}, "\\b": {}}}`))
	require.ErrorContains(t, err, "no design totals")
	// Yosys 0.23 prints the hierarchy tree inside `stat -json -top` for nested modules.
	_, err = ParseStat([]byte("{\"modules\": {}},\n   top   1\n"))
	require.Error(t, err)
}

func TestParseCounts(t *testing.T) {
	c, err := ParseCounts([]byte("carry_with_lut\n355 objects.\npair_drivers\n248 objects.\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]int{countCarryLUT: 355, countPairs: 248}, c)
	_, err = ParseCounts([]byte("12 objects.\n"))
	require.Error(t, err)
}

func TestBlockRAMs(t *testing.T) {
	// The paper's BRAM column is the data-bit packing of 4 words of 128 bits per entry;
	// Yosys also stores data in the parity bits, which saves one block at 512 entries.
	for _, n := range Entries {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			require.Equal(t, Paper[n].LHSBRAMs, BlockRAMs(4*n, LHWordBits, false), "data bits only, %d entries", n)
		})
	}
	require.Equal(t, []int{4, 4, 8, 15, 30}, []int{
		BlockRAMs(256, 128, true), BlockRAMs(512, 128, true), BlockRAMs(1024, 128, true),
		BlockRAMs(2048, 128, true), BlockRAMs(4096, 128, true)})
}

func TestScript(t *testing.T) {
	j := Job{Top: "lhs_rx", Params: []Param{{"ENTRIES", 64}}, Family: XC2VP}
	s := Script(j, []string{"rtl/a.v", "rtl/b.v"}, "out/x", "logs/x.ffs.json")
	for _, line := range []string{
		"read_verilog -Irtl rtl/a.v rtl/b.v",
		"chparam -set ENTRIES 64 lhs_rx",
		"hierarchy -check -top lhs_rx",
		"synth_xilinx -family xc2vp -top lhs_rx -noiopad -noclkbuf -nowidelut",
		"check -assert",
		"tee -q -o out/x.stat.txt stat -top lhs_rx",
		"flatten",
		"tee -q -o out/x.stat.json stat -json",
		"tee -q -o out/x.counts.txt log carry_with_lut",
		"delete c:* t:FD* %d",
		"write_json logs/x.ffs.json",
	} {
		require.Contains(t, strings.Split(s, "\n"), line)
	}
	s = Script(Job{Top: "alpu", Family: XC7, Prepare: "setattr -set x 1 */a:y"}, []string{"rtl/a.v"}, "o", "n")
	require.Contains(t, s, "hierarchy -check -top alpu\nsetattr -set x 1 */a:y\nsynth_xilinx -family xc7 -top alpu -noiopad -noclkbuf\n")
	require.NotContains(t, s, "chparam")
	require.NotContains(t, s, "counts")
	require.NotContains(t, s, "write_json")
	require.Equal(t, "alpu_CELLS128_CELL_MASK0", Job{Top: "alpu", Params: []Param{{"CELLS", 128}, {"CELL_MASK", 0}}}.Name())
}

// alpuFFs is the flip-flop count the ALPU must have: every cell's field, mask, pointer and
// valid bit, plus the request (key and care mask), the response, the count and two flags.
func alpuFFs(cells, cellMask int) int {
	const field, ptr = 42, 16
	countWidth := 0
	for 1<<countWidth < cells+1 {
		countWidth++
	}
	return cells*(field+cellMask*field+ptr+1) + 2*field + ptr + 5 + countWidth
}

// TestCheckedInReports parses every checked-in Yosys report again and compares it with the
// summary the table is printed from; checks that the sweep is complete, that the LH buffer is
// in block RAM at every size (and absent without LHS), that the ALPU keeps its cells in
// flip-flops, and that every row of Table 1 has what it compares.
func TestCheckedInReports(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	dir := filepath.Join(root, "synth-reports")
	s, err := LoadSummary(dir)
	require.NoError(t, err)
	require.Contains(t, s.Yosys, "Yosys")
	for _, j := range Sweep([]Family{XC2VP, XC7}) {
		t.Run(j.String(), func(t *testing.T) {
			want, ok := s.Find(j.Top, j.Family, j.Params...)
			require.True(t, ok, "%s missing from %s", j, SummaryFile)
			got, err := LoadReport(dir, j)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Zero(t, got.Memories)
			require.Empty(t, got.Other)
			require.Positive(t, got.LUTs)
			if j.Family == XC2VP {
				require.Positive(t, got.ControlSets)
				require.GreaterOrEqual(t, got.SlicesMax, got.Slices)
			}
			switch j.Top {
			case TopLHS:
				n, _ := j.Param(ParamEntries)
				if lhs, ok := j.Param(ParamLHS); ok && lhs == 0 {
					require.Zero(t, got.BRAMs, "without LHS there is no LH buffer")
					return
				}
				if j.Family == XC2VP {
					require.NoError(t, CheckLHBuffer(got))
				}
				require.Equal(t, BlockRAMs(4*n, LHWordBits, true), got.BRAMs)
			case TopALPU:
				n, _ := j.Param(ParamCells)
				mask := 1
				if v, ok := j.Param(ParamCellMask); ok {
					mask = v
				}
				require.Equal(t, alpuFFs(n, mask), got.FFs)
				require.Zero(t, got.BRAMs)
				require.Zero(t, got.LUTRAMs)
			}
		})
	}
	// Table 1 has every row, ours next to the paper's. Without LHS, lhs_rx is the same at
	// every entry count (nothing in it is sized by the entries); with LHS, the paper-like
	// counters save two flip-flops per bit they drop.
	base := Table1(s)[0].Base
	for _, r := range Table1(s) {
		for name, rep := range map[string]*Report{"lhs": r.LHS, "paper-like": r.LHSNarrow, "base": r.Base, "alpu": r.ALPU, "alpu masked": r.ALPUMasked} {
			require.NotNil(t, rep, "%s at %d messages", name, r.Messages)
		}
		require.Equal(t, base.Resources, r.Base.Resources, "the base at %d entries", r.Messages)
		inc, narrow := r.Increment(), r.IncrementNarrow()
		require.Positive(t, inc.Slices)
		require.Equal(t, r.LHS.BRAMs, inc.BRAMs, "the block RAMs are all LHS's")
		require.Equal(t, 2*(32-NarrowCntW(r.Messages)), inc.FFs-narrow.FFs, "two counters, %d bits narrower", 32-NarrowCntW(r.Messages))
		require.Greater(t, r.ALPUPerLHS(false), 1.0)
		require.Greater(t, r.ALPUMasked.Slices, r.ALPU.Slices, "a stored mask makes the cell larger")
	}
}

// TestSynthReportsMatchRTL fails when rtl/ has changed since synth-reports/ was made: Table 1
// would describe RTL that is no longer there. `make synth` makes them again.
func TestSynthReportsMatchRTL(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	s, err := LoadSummary(filepath.Join(root, "synth-reports"))
	require.NoError(t, err)
	hash, files, err := HashRTL(root, s.Tops()...)
	require.NoError(t, err)
	require.Equal(t, s.RTLFiles, files, "the RTL files are not the ones synth-reports/ was made from: run make synth")
	require.Equal(t, s.RTLHash, hash, "rtl/ changed since synth-reports/ was made from it: run make synth")
}

// TestHashRTL: the hash follows every byte of the sources and their names, and nothing else.
func TestHashRTL(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "rtl"), 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "rtl", name), []byte(text), 0o644))
	}
	write("a.v", "module a; endmodule\n")
	write("b.vh", "localparam X = 1;\n")
	write("notes.txt", "not read")
	h1, files, err := HashRTL(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"rtl/a.v", "rtl/b.vh"}, files)
	write("notes.txt", "changed")
	h2, _, err := HashRTL(dir)
	require.NoError(t, err)
	require.Equal(t, h1, h2, "files the sweep does not read do not count")
	write("b.vh", "localparam X = 2;\n")
	h3, _, err := HashRTL(dir)
	require.NoError(t, err)
	require.NotEqual(t, h1, h3, "an include counts")
	write("b.vh", "localparam X = 1;\n")
	require.NoError(t, os.Rename(filepath.Join(dir, "rtl", "a.v"), filepath.Join(dir, "rtl", "c.v")))
	h4, _, err := HashRTL(dir)
	require.NoError(t, err)
	require.NotEqual(t, h1, h4, "a name counts")
}

// TestFullSweepReproducesReports runs the whole sweep (about 9 minutes on 2 cores) and
// requires every report to equal the checked-in one: Table 1 is what Yosys gives for the RTL
// of this commit, not only a hash that says so. `make synth-check` runs it (CI does, after
// make test); otherwise it is skipped.
func TestFullSweepReproducesReports(t *testing.T) {
	if os.Getenv("LHSIM_SYNTH_CHECK") == "" {
		t.Skip("the full sweep takes minutes: LHSIM_SYNTH_CHECK=1 (make synth-check) runs it")
	}
	requireYosys(t)
	root, err := FindRoot(".")
	require.NoError(t, err)
	s, err := LoadSummary(filepath.Join(root, "synth-reports"))
	require.NoError(t, err)
	out := t.TempDir()
	r := Runner{Root: root, Out: out, Logs: filepath.Join(out, "logs"), Parallel: 2}
	jobs := Sweep([]Family{XC2VP, XC7})
	reps, err := r.RunAll(context.Background(), jobs, func(rep Report, d time.Duration) {
		t.Logf("%-36s %6.1f s  slices %d", rep.Job.String(), d.Seconds(), rep.Slices)
	})
	require.NoError(t, err)
	require.Len(t, reps, len(s.Reports))
	for _, got := range reps {
		want, ok := s.Find(got.Top, got.Family, got.Params...)
		require.True(t, ok, "%s is not in the checked-in summary", got.Job)
		require.Equal(t, want, got, "%s: Yosys now gives other figures than synth-reports/ (make synth)", got.Job)
	}
}

func TestWriteJSON(t *testing.T) {
	rep := func(j Job, r Resources) Report { return Report{Job: j, Resources: r} }
	reports := []Report{
		rep(lhsJob(64), Resources{LUTs: 300, FFs: 150, BRAMs: 4, Slices: 160, SlicesMax: 170}),
		rep(lhsBaseJob(64), Resources{LUTs: 100, FFs: 50, Slices: 55, SlicesMax: 60}),
		rep(lhsNarrowJob(64), Resources{LUTs: 250, FFs: 100, BRAMs: 4, Slices: 130, SlicesMax: 140}),
		rep(alpuJob(128), Resources{LUTs: 9000, FFs: 7000, Slices: 4500, SlicesMax: 8000}),
		rep(alpuMaskedJob(128), Resources{LUTs: 9000, FFs: 13000, Slices: 6500, SlicesMax: 11000}),
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, NewSummary(reports)))
	require.True(t, strings.Index(b.String(), `"64"`) < strings.Index(b.String(), `"128"`), "ascending keys")
	var got map[string]struct {
		LHS       *Figures          `json:"lhs"`
		Base      *Figures          `json:"lhs_base"`
		Inc       *Figures          `json:"lhs_increment"`
		IncNarrow *Figures          `json:"lhs_increment_paper_like"`
		CntW      int               `json:"paper_like_cnt_w"`
		ALPU      *Figures          `json:"alpu"`
		Masked    *Figures          `json:"alpu_masked"`
		Paper     PaperRow          `json:"paper"`
		Ratio     *float64          `json:"alpu_per_lhs"`
		Sources   map[string]string `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.Len(t, got, 4)
	require.Equal(t, Figures{Slices: 105, SlicesMax: 110, LUTs: 200, FFs: 100, BRAMs: 4}, *got["64"].Inc)
	require.Equal(t, Figures{Slices: 75, SlicesMax: 80, LUTs: 150, FFs: 50, BRAMs: 4}, *got["64"].IncNarrow)
	require.Equal(t, 7, got["64"].CntW)
	require.Equal(t, 55, got["64"].Base.Slices)
	require.Nil(t, got["64"].ALPU)
	require.Nil(t, got["128"].Inc)
	require.Equal(t, 4500, got["128"].ALPU.Slices, "the ALPU is the paper's 58-bit cell")
	require.Equal(t, 6500, got["128"].Masked.Slices)
	require.Equal(t, 5215, got["128"].Paper.ALPUSlices)
	require.Nil(t, got["128"].Ratio)
	// Every figure of a row says where it comes from.
	var raw map[string]map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	for key := range raw["64"] {
		if key == "sources" {
			continue
		}
		require.Contains(t, []string{"input", "synthesized", "derived"}, got["64"].Sources[key], "source of %s", key)
	}

	b.Reset()
	require.NoError(t, WriteText(&b, NewSummary(reports), "test source"))
	require.Contains(t, b.String(), "source: test source")
	require.Contains(t, b.String(), "5,215 (15.8%)")
	require.Contains(t, b.String(), "4,500 (13.6%)")
	require.Contains(t, b.String(), "105 (0.3%)")
	require.Contains(t, b.String(), "200 LUT, 100 FF, 105–110")
}

// requireYosys fails (rather than skips) without Yosys: `make test` installs it.
func requireYosys(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("yosys")
	require.NoError(t, err, "yosys not installed (make setup installs it)")
}

// TestYosysLHBufferInBlockRAM synthesizes lhs_rx at the smallest and largest Table 1 sizes
// and checks that the LH buffer maps to RAMB16; then synthesizes it with every RAM marked
// ram_style "distributed", to show that the check catches a buffer in LUT RAM.
func TestYosysLHBufferInBlockRAM(t *testing.T) {
	requireYosys(t)
	root, err := FindRoot(".")
	require.NoError(t, err)
	tests := []struct {
		name    string
		entries int
		prepare string
		ok      bool
	}{
		{"64 entries", 64, "", true},
		{"512 entries", 512, "", true},
		{"64 entries forced to LUT RAM", 64, `setattr -set ram_style "distributed" */a:ram_style`, false},
	}
	for _, tc := range tests {
		j := Job{Top: TopLHS, Params: []Param{{"ENTRIES", tc.entries}}, Family: XC2VP, Prepare: tc.prepare}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			r := Runner{Root: root, Out: out, Logs: out}
			rep, err := r.Run(context.Background(), j)
			require.NoError(t, err)
			err = CheckLHBuffer(rep)
			if tc.ok {
				require.NoError(t, err)
				require.Equal(t, BlockRAMs(4*tc.entries, LHWordBits, true), rep.BRAMs)
				require.LessOrEqual(t, rep.BRAMs, Paper[tc.entries].LHSBRAMs)
				return
			}
			require.Error(t, err)
			require.Zero(t, rep.BRAMs)
			require.ErrorContains(t, err, "distributed RAM")
		})
	}
}

// TestYosysALPUSmall synthesizes a small ALPU on both families: its storage is all
// flip-flops (no block or LUT RAM), the count the RTL description gives.
func TestYosysALPUSmall(t *testing.T) {
	requireYosys(t)
	root, err := FindRoot(".")
	require.NoError(t, err)
	for _, f := range []Family{XC2VP, XC7} {
		for _, mask := range []int{1, 0} {
			j := Job{Top: TopALPU, Params: []Param{{"CELLS", 8}, {"CELL_MASK", mask}}, Family: f}
			t.Run(j.String(), func(t *testing.T) {
				t.Parallel()
				out := t.TempDir()
				rep, err := Runner{Root: root, Out: out, Logs: out}.Run(context.Background(), j)
				require.NoError(t, err)
				require.Equal(t, alpuFFs(8, mask), rep.FFs)
				require.Zero(t, rep.BRAMs)
				require.Zero(t, rep.LUTRAMs)
				require.Empty(t, rep.Other)
				// A comparator per cell: at least one LUT per compared bit pair.
				require.Greater(t, rep.LUTs, 8*42/3)
				require.Positive(t, rep.Slices)
			})
		}
	}
}

// Without Yosys, `lhsim area` says so once, before starting anything, points at -cached and
// names no log: there is none of this run.
func TestCommandWithoutYosys(t *testing.T) {
	fail, err := exec.LookPath("false")
	require.NoError(t, err)
	t.Setenv("PATH", t.TempDir())
	var out, log bytes.Buffer
	err = Command(context.Background(), Options{Dir: "..", Reports: "synth-reports", Families: []Family{XC2VP, XC7}, Parallel: 2}, &out, &log)
	require.Error(t, err)
	msg := err.Error()
	require.Equal(t, 1, strings.Count(msg, "yosys"), msg)
	require.Contains(t, msg, "no yosys on PATH")
	require.Contains(t, msg, "lhsim area -cached")
	require.NotContains(t, msg, "log")
	require.Empty(t, log.String(), "nothing started")
	require.Empty(t, out.String())

	// A Yosys that starts and fails: its error once, with the log of this run.
	r := Runner{Root: "..", Yosys: fail, Out: t.TempDir(), Logs: t.TempDir(), Parallel: 2}
	require.NoError(t, r.Check())
	_, err = r.RunAll(context.Background(), Sweep([]Family{XC2VP}), nil)
	require.Error(t, err)
	require.Equal(t, 1, strings.Count(err.Error(), "area: yosys on "), err.Error())
	require.Contains(t, err.Error(), "exit status 1 (log ")
}
