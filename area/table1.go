package area

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/olekukonko/tablewriter"

	synthreports "github.com/lhsim/lhsim/synth-reports"
	"github.com/olekukonko/tablewriter/tw"
)

// Entries are the message counts of Table 1: LH entries of 64 bytes, and ALPU cells.
var Entries = []int{64, 128, 256, 512}

// PaperRow is one row of the paper's Table 1 (ISE 8.2i SP3, XC2VP70-7, speed-optimized).
// Zero means the paper gives no figure.
type PaperRow struct {
	ALPUSlices int `json:"alpu_slices,omitempty"`
	LHSSlices  int `json:"lhs_slices"`
	LHSBRAMs   int `json:"lhs_brams"`
}

// Paper is Table 1 of the paper, by message count.
var Paper = map[int]PaperRow{
	64:  {LHSSlices: 116, LHSBRAMs: 4},
	128: {ALPUSlices: 5215, LHSSlices: 129, LHSBRAMs: 4},
	256: {ALPUSlices: 10350, LHSSlices: 137, LHSBRAMs: 8},
	512: {LHSSlices: 148, LHSBRAMs: 16},
}

// Tops of the designs the sweep synthesizes.
const (
	TopLHS    = "lhs_rx"            // splitter and LH buffer, or without LHS the receive path before it
	TopALPU   = "alpu"              // the ALPU baseline
	TopVector = "lhs_vector_engine" // window memory and vector engine
	TopTop    = "lhs_top"           // the whole receive path
	TopHash   = "hash_match"        // the hashed matcher (one queue)
)

// The hashed matcher's sweep: N entries by K bins, two banks, a one-cycle read (the study's
// hash:K:N, netsim/match).
var (
	HashEntries = []int{4096, 1024, 256}
	HashBins    = []int{256, 64, 16}
)

func hashJob(n, k int, f Family) Job {
	return Job{Top: TopHash, Params: []Param{{"BINS", k}, {ParamEntries, n}}, Family: f}
}

// Parameters of lhs_rx that Table 1 sets besides ENTRIES, and the ALPU's cell mask.
const (
	ParamEntries  = "ENTRIES"
	ParamLHS      = "LHS"       // 0: lhs_rx without LHS, the base of the increment
	ParamCntW     = "CNT_W"     // width of the LH counters (default 32)
	ParamCells    = "CELLS"     // ALPU cells
	ParamCellMask = "CELL_MASK" // 0: the paper's 58-bit ALPU cell (no stored mask)
)

// NarrowCntW is the paper-like width of the LH counters for an entry count: log2(entries)+1
// bits, the fewest that tell a full buffer from an empty one.
func NarrowCntW(entries int) int {
	w := 1
	for 1<<(w-1) < entries {
		w++
	}
	return w
}

// The jobs of Table 1's rows, all on xc2vp.
func lhsJob(n int) Job {
	return Job{Top: TopLHS, Params: []Param{{ParamEntries, n}}, Family: XC2VP}
}

func lhsBaseJob(n int) Job {
	return Job{Top: TopLHS, Params: []Param{{ParamEntries, n}, {ParamLHS, 0}}, Family: XC2VP}
}

func lhsNarrowJob(n int) Job {
	return Job{Top: TopLHS, Params: []Param{{ParamEntries, n}, {ParamCntW, NarrowCntW(n)}}, Family: XC2VP}
}

func alpuJob(n int) Job {
	return Job{Top: TopALPU, Params: []Param{{ParamCells, n}, {ParamCellMask, 0}}, Family: XC2VP}
}

func alpuMaskedJob(n int) Job {
	return Job{Top: TopALPU, Params: []Param{{ParamCells, n}}, Family: XC2VP}
}

// Sweep returns the jobs of the full sweep for the given families, longest first so that
// parallel runs finish together: the hashed matcher at N of 256..4096 and K of 16..256, the
// ALPU at 64..512 cells, the ALPU without cell masks
// (the paper's 58-bit cell) on xc2vp, lhs_top and lhs_rx at 64..512 entries, on xc2vp also
// lhs_rx with paper-like counters and without LHS (on xc7 without LHS at 512 entries), and
// the vector engine at its default window size.
func Sweep(families []Family) []Job {
	var jobs []Job
	for _, f := range families {
		for _, n := range HashEntries {
			for _, k := range HashBins {
				jobs = append(jobs, hashJob(n, k, f))
			}
		}
	}
	desc := []int{512, 256, 128, 64}
	for _, f := range families {
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopALPU, Params: []Param{{ParamCells, n}}, Family: f})
		}
	}
	for _, f := range families {
		if f != XC2VP {
			continue
		}
		for _, n := range desc {
			jobs = append(jobs, alpuJob(n))
		}
	}
	for _, f := range families {
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopTop, Params: []Param{{ParamEntries, n}}, Family: f})
		}
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopLHS, Params: []Param{{ParamEntries, n}}, Family: f})
		}
		if f == XC2VP {
			for _, n := range desc {
				jobs = append(jobs, lhsNarrowJob(n), lhsBaseJob(n))
			}
		} else {
			// The base on xc7 too, so that what LHS adds has an xc7 figure (the lhs
			// matcher's area in lhsim matchers).
			b := lhsBaseJob(512)
			b.Family = f
			jobs = append(jobs, b)
		}
		jobs = append(jobs, Job{Top: TopVector, Family: f})
	}
	return jobs
}

// Summary is every report of a sweep, as saved in synth-reports/summary.json.
type Summary struct {
	Yosys   string            `json:"yosys"`
	Options map[Family]string `json:"synth_xilinx_options"`
	// RTLHash is HashRTL of the sources the reports were made from, RTLFiles their names:
	// a test fails when rtl/ no longer hashes the same (make synth again).
	RTLHash  string   `json:"rtl_sha256"`
	RTLFiles []string `json:"rtl_files"`
	Reports  []Report `json:"reports"`
}

// SummaryFile is the name of the summary in a reports directory.
const SummaryFile = "summary.json"

// NewSummary collects reports.
func NewSummary(reports []Report) Summary {
	s := Summary{Options: SynthOptions, Reports: reports}
	if len(reports) > 0 {
		s.Yosys = reports[0].Yosys
	}
	return s
}

// Write saves the summary in dir.
func (s Summary) Write(dir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SummaryFile), append(data, '\n'), 0o644)
}

// LoadSummary reads dir/summary.json.
func LoadSummary(dir string) (Summary, error) {
	var s Summary
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return s, fmt.Errorf("area: %w (run `make synth` to create the reports)", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("area: %s: %w", SummaryFile, err)
	}
	return s, nil
}

// CheckedInSummary is synth-reports/summary.json as built into the binary: what the
// commands that only read the area figures take, wherever the binary runs.
func CheckedInSummary() (Summary, error) {
	var s Summary
	if err := json.Unmarshal(synthreports.Summary, &s); err != nil {
		return s, fmt.Errorf("area: the built-in %s: %w", SummaryFile, err)
	}
	return s, nil
}

// Find returns the report of a top for a family with exactly the given overrides.
func (s Summary) Find(top string, f Family, params ...Param) (Report, bool) {
	want := Job{Top: top, Params: params, Family: f}
	for _, r := range s.Reports {
		if r.Family == f && r.Name() == want.Name() {
			return r, true
		}
	}
	return Report{}, false
}

// Figures are the counts Table 1 compares: xc2vp slices (lower bound and upper estimate),
// LUT sites, flip-flops and block RAMs. An increment is the difference of two designs'.
type Figures struct {
	Slices    int `json:"slices"`
	SlicesMax int `json:"slices_max"`
	LUTs      int `json:"luts"`
	FFs       int `json:"ffs"`
	BRAMs     int `json:"brams"`
}

func figures(r *Report) *Figures {
	if r == nil {
		return nil
	}
	return &Figures{Slices: r.Slices, SlicesMax: r.SlicesMax, LUTs: r.LUTs, FFs: r.FFs, BRAMs: r.BRAMs}
}

// minus is a - b, nil when either is missing.
func minus(a, b *Figures) *Figures {
	if a == nil || b == nil {
		return nil
	}
	return &Figures{Slices: a.Slices - b.Slices, SlicesMax: a.SlicesMax - b.SlicesMax, LUTs: a.LUTs - b.LUTs,
		FFs: a.FFs - b.FFs, BRAMs: a.BRAMs - b.BRAMs}
}

// Row is one message count of Table 1: the paper's figures and ours (nil where not
// synthesized), all on xc2vp.
type Row struct {
	Messages int
	Paper    PaperRow
	// LHS is lhs_rx with LHS and its default 32-bit counters, LHSNarrow with LHS and
	// counters of NarrowCntW bits, Base lhs_rx without LHS (LHS=0): the receive path of
	// DIMMnet-2 before LHS, which every message reaches whole.
	LHS, LHSNarrow, Base *Report
	// ALPU is the paper's cell (42-bit compare field and 16-bit pointer, CELL_MASK=0),
	// ALPUMasked ours with a 42-bit don't-care mask stored per cell as well.
	ALPU, ALPUMasked *Report
}

// Table1 builds the rows of Table 1 from a summary.
func Table1(s Summary) []Row {
	rows := make([]Row, len(Entries))
	find := func(j Job) *Report {
		if r, ok := s.Find(j.Top, j.Family, j.Params...); ok {
			return &r
		}
		return nil
	}
	for i, n := range Entries {
		rows[i] = Row{Messages: n, Paper: Paper[n], LHS: find(lhsJob(n)), LHSNarrow: find(lhsNarrowJob(n)),
			Base: find(lhsBaseJob(n)), ALPU: find(alpuJob(n)), ALPUMasked: find(alpuMaskedJob(n))}
	}
	return rows
}

// Increment is what LHS adds to the receive path: lhs_rx with LHS less without (nil when
// either is missing). The figure to set beside the paper's "LHS logic slices".
func (r Row) Increment() *Figures { return minus(figures(r.LHS), figures(r.Base)) }

// IncrementNarrow is the increment with the paper-like counters.
func (r Row) IncrementNarrow() *Figures { return minus(figures(r.LHSNarrow), figures(r.Base)) }

// ALPUPerLHS is how many times the ALPU's slices (the paper's cell) exceed the LHS
// increment's (the paper's "1/40"), 0 when either is missing; narrow takes the increment
// with the paper-like counters.
func (r Row) ALPUPerLHS(narrow bool) float64 {
	inc := r.Increment()
	if narrow {
		inc = r.IncrementNarrow()
	}
	if inc == nil || r.ALPU == nil || inc.Slices <= 0 {
		return 0
	}
	return float64(r.ALPU.Slices) / float64(inc.Slices)
}

// PaperALPUPerLHS is the paper's ratio, 0 where it gives no ALPU figure.
func (r Row) PaperALPUPerLHS() float64 {
	if r.Paper.ALPUSlices == 0 {
		return 0
	}
	return float64(r.Paper.ALPUSlices) / float64(r.Paper.LHSSlices)
}

func pct(n, of int) string {
	return fmt.Sprintf("%s (%.1f%%)", thousands(n), 100*float64(n)/float64(of))
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ratio(x float64) string {
	if x == 0 {
		return "n/a"
	}
	return fmt.Sprintf("1/%.0f", x)
}

// slicesOf prints a slice count with its share of the XC2VP70, or n/a.
func slicesOf(f *Figures) string {
	if f == nil {
		return "n/a"
	}
	return pct(f.Slices, XC2VP70Slices)
}

// span prints a lower bound and an upper estimate.
func span(lo, hi int) string {
	if hi == 0 || hi == lo {
		return thousands(lo)
	}
	return thousands(lo) + "–" + thousands(hi)
}

// breakdown prints a design's LUT sites, flip-flops and slice range in one cell.
func breakdown(f *Figures) string {
	if f == nil {
		return "n/a"
	}
	return fmt.Sprintf("%s LUT, %s FF, %s", thousands(f.LUTs), thousands(f.FFs), span(f.Slices, f.SlicesMax))
}

// Sources say where each figure of Table 1 comes from: input (the paper's own figure or a
// parameter, restated), synthesized (counted by Yosys in our synthesis; slices estimated from those
// counts, docs/area.md) or derived (a difference or a ratio of the others).
var Sources = map[string]string{
	"paper":                    "input",
	"paper_alpu_per_lhs":       "derived",
	"lhs":                      "synthesized",
	"lhs_base":                 "synthesized",
	"lhs_paper_like":           "synthesized",
	"lhs_increment":            "derived",
	"lhs_increment_paper_like": "derived",
	"alpu":                     "synthesized",
	"alpu_masked":              "synthesized",
	"alpu_per_lhs":             "derived",
	"alpu_per_lhs_paper_like":  "derived",
	"paper_like_cnt_w":         "input",
}

// WriteText prints Table 1 side by side, what LHS adds per entry count, then the details of
// every synthesized design. source says where the figures come from (Yosys now, or
// checked-in reports).
func WriteText(w io.Writer, s Summary, source string) error {
	fmt.Fprintf(w, "Table 1: logic slices and block RAMs on Virtex-II Pro (XC2VP70: %s slices, %d BRAMs)\n",
		thousands(XC2VP70Slices), XC2VP70BRAMs)
	fmt.Fprintf(w, "paper: ISE 8.2i SP3, speed-optimized; ours: %s, synth_xilinx -family xc2vp %s.\n",
		s.Yosys, SynthOptions[XC2VP])
	fmt.Fprintln(w, "Slices (ours): the lower bound max(ceil(LUT sites / 2), flip-flops paired within their control sets) (docs/area.md).")
	fmt.Fprintln(w, "LHS (ours): what LHS adds to the receive path, lhs_rx with LHS less lhs_rx without (LHS=0), with 32-bit LH")
	fmt.Fprintln(w, "counters (the default) and with log2(entries)+1-bit ones (paper-like). ALPU (ours): the paper's 58-bit cell.")
	fmt.Fprintf(w, "source: %s\n", source)
	t := newTable(w)
	t.Header("messages", "ALPU paper", "ALPU ours", "LHS paper", "LHS ours", "LHS ours, paper-like", "LHS BRAM paper", "LHS BRAM ours",
		"LHS/ALPU paper", "LHS/ALPU ours", "paper-like")
	for _, r := range Table1(s) {
		alpuPaper, bramOurs := "n/a", "n/a"
		if r.Paper.ALPUSlices > 0 {
			alpuPaper = pct(r.Paper.ALPUSlices, XC2VP70Slices)
		}
		if inc := r.Increment(); inc != nil {
			bramOurs = fmt.Sprintf("%d/%d", inc.BRAMs, XC2VP70BRAMs)
		}
		if err := t.Append(strconv.Itoa(r.Messages), alpuPaper, slicesOf(figures(r.ALPU)), pct(r.Paper.LHSSlices, XC2VP70Slices),
			slicesOf(r.Increment()), slicesOf(r.IncrementNarrow()), fmt.Sprintf("%d/%d", r.Paper.LHSBRAMs, XC2VP70BRAMs), bramOurs,
			ratio(r.PaperALPUPerLHS()), ratio(r.ALPUPerLHS(false)), ratio(r.ALPUPerLHS(true))); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "sources: paper columns input (the paper's Table 1); ALPU ours synthesized; LHS ours derived (with LHS less")
	fmt.Fprintln(w, "without, both synthesized); ratios derived.")

	fmt.Fprintln(w, "\nWhat LHS adds (xc2vp; slices as lower bound–upper estimate; the ALPU with the masked cell beside it)")
	t = newTable(w)
	t.Header("messages", "without LHS", "with LHS", "increment", "CNT_W", "with LHS, paper-like", "increment, paper-like", "ALPU masked cell")
	for _, r := range Table1(s) {
		if err := t.Append(strconv.Itoa(r.Messages), breakdown(figures(r.Base)), breakdown(figures(r.LHS)), breakdown(r.Increment()),
			strconv.Itoa(NarrowCntW(r.Messages)), breakdown(figures(r.LHSNarrow)), breakdown(r.IncrementNarrow()),
			slicesOf(figures(r.ALPUMasked))); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nEvery synthesized design (xc2vp: LUT4 sites, control sets, slices lower bound–upper estimate; xc7: LUT6; BRAM in 18-Kbit blocks)")
	t = newTable(w)
	t.Header("design", "parameters", "xc2vp LUTs", "xc2vp FFs", "xc2vp BRAM", "control sets", "xc2vp slices", "xc7 LUTs", "xc7 FFs", "xc7 BRAM", "xc7 slices")
	for _, d := range designs(s) {
		v, x7 := d[XC2VP], d[XC7]
		first := v
		if first == nil {
			first = x7
		}
		cells := []string{first.Top, params(first.Job)}
		if v != nil {
			cells = append(cells, thousands(v.LUTs), thousands(v.FFs), strconv.Itoa(v.BRAMs), thousands(v.ControlSets),
				span(v.Slices, v.SlicesMax))
		} else {
			cells = append(cells, "", "", "", "", "")
		}
		if x7 != nil {
			cells = append(cells, thousands(x7.LUTs), thousands(x7.FFs), strconv.Itoa(x7.BRAMs), thousands(x7.Slices))
		} else {
			cells = append(cells, "", "", "", "")
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

func params(j Job) string {
	if len(j.Params) == 0 {
		return "defaults"
	}
	s := ""
	for i, p := range j.Params {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", p.Name, p.Value)
	}
	return s
}

// designs groups reports by job name across families, in a stable order: by top, then by
// parameters as numbers.
func designs(s Summary) []map[Family]*Report {
	byName := map[string]map[Family]*Report{}
	var keys []Job
	for i := range s.Reports {
		r := &s.Reports[i]
		if byName[r.Name()] == nil {
			byName[r.Name()] = map[Family]*Report{}
			keys = append(keys, r.Job)
		}
		byName[r.Name()][r.Family] = r
	}
	order := map[string]int{TopLHS: 0, TopALPU: 1, TopVector: 2, TopTop: 3}
	sort.SliceStable(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		if ka.Top != kb.Top {
			oa, oka := order[ka.Top]
			ob, okb := order[kb.Top]
			if oka && okb {
				return oa < ob
			}
			return ka.Top < kb.Top
		}
		if len(ka.Params) != len(kb.Params) {
			return len(ka.Params) < len(kb.Params)
		}
		for i := range ka.Params {
			if ka.Params[i] != kb.Params[i] {
				if ka.Params[i].Name != kb.Params[i].Name {
					return ka.Params[i].Name < kb.Params[i].Name
				}
				return ka.Params[i].Value < kb.Params[i].Value
			}
		}
		return false
	})
	out := make([]map[Family]*Report, len(keys))
	for i, k := range keys {
		out[i] = byName[k.Name()]
	}
	return out
}

// rowJSON is one message count of `lhsim area --json`. Every object is null where the
// design was not synthesized.
type rowJSON struct {
	// LHS is lhs_rx with LHS (32-bit counters), LHSBase without, LHSIncrement the
	// difference; the paper-like ones use CNT_W-bit counters.
	LHS                   *Figures `json:"lhs"`
	LHSBase               *Figures `json:"lhs_base"`
	LHSIncrement          *Figures `json:"lhs_increment"`
	CntW                  int      `json:"paper_like_cnt_w"`
	LHSPaperLike          *Figures `json:"lhs_paper_like"`
	LHSIncrementPaperLike *Figures `json:"lhs_increment_paper_like"`
	// ALPU is the paper's 58-bit cell, ALPUMasked the cell with a stored mask.
	ALPU       *Figures `json:"alpu"`
	ALPUMasked *Figures `json:"alpu_masked"`
	Paper      PaperRow `json:"paper"`
	// ALPUPerLHS is ALPU slices / LHS increment slices (null where either is missing).
	ALPUPerLHS          *float64          `json:"alpu_per_lhs"`
	ALPUPerLHSPaperLike *float64          `json:"alpu_per_lhs_paper_like"`
	PaperALPUPerLHS     *float64          `json:"paper_alpu_per_lhs"`
	Sources             map[string]string `json:"sources"`
}

func fp(x float64) *float64 {
	if x == 0 {
		return nil
	}
	x = float64(int(x*100+0.5)) / 100
	return &x
}

// WriteJSON prints Table 1 as an object keyed by message count, in ascending order.
func WriteJSON(w io.Writer, s Summary) error {
	var b bytes.Buffer
	b.WriteString("{")
	for i, r := range Table1(s) {
		j := rowJSON{
			LHS: figures(r.LHS), LHSBase: figures(r.Base), LHSIncrement: r.Increment(),
			CntW: NarrowCntW(r.Messages), LHSPaperLike: figures(r.LHSNarrow), LHSIncrementPaperLike: r.IncrementNarrow(),
			ALPU: figures(r.ALPU), ALPUMasked: figures(r.ALPUMasked), Paper: r.Paper,
			ALPUPerLHS: fp(r.ALPUPerLHS(false)), ALPUPerLHSPaperLike: fp(r.ALPUPerLHS(true)), PaperALPUPerLHS: fp(r.PaperALPUPerLHS()),
			Sources: Sources,
		}
		row, err := json.MarshalIndent(j, "  ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  %q: %s", strconv.Itoa(r.Messages), row)
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}
