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
	TopLHS    = "lhs_rx"            // splitter and LH buffer: the "LHS" of Table 1
	TopALPU   = "alpu"              // the ALPU baseline
	TopVector = "lhs_vector_engine" // window memory and vector engine
	TopTop    = "lhs_top"           // the whole receive path
)

// Sweep returns the jobs of the full sweep for the given families, longest first so that
// parallel runs finish together: the ALPU at 64..512 cells, the ALPU without cell masks
// (the paper's 58-bit cell) on xc2vp, lhs_rx and lhs_top at 64..512 entries, and the
// vector engine at its default window size.
func Sweep(families []Family) []Job {
	var jobs []Job
	desc := []int{512, 256, 128, 64}
	for _, f := range families {
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopALPU, Params: []Param{{"CELLS", n}}, Family: f})
		}
	}
	for _, f := range families {
		if f != XC2VP {
			continue
		}
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopALPU, Params: []Param{{"CELLS", n}, {"CELL_MASK", 0}}, Family: f})
		}
	}
	for _, f := range families {
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopTop, Params: []Param{{"ENTRIES", n}}, Family: f})
		}
		for _, n := range desc {
			jobs = append(jobs, Job{Top: TopLHS, Params: []Param{{"ENTRIES", n}}, Family: f})
		}
		jobs = append(jobs, Job{Top: TopVector, Family: f})
	}
	return jobs
}

// Summary is every report of a sweep, as saved in synth-reports/summary.json.
type Summary struct {
	Yosys   string            `json:"yosys"`
	Options map[Family]string `json:"synth_xilinx_options"`
	Reports []Report          `json:"reports"`
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

// Row is one message count of Table 1: the paper's figures and ours (nil where not
// synthesized).
type Row struct {
	Messages int
	Paper    PaperRow
	LHS      *Report // lhs_rx, xc2vp
	ALPU     *Report // alpu, xc2vp
}

// Table1 builds the rows of Table 1 from a summary.
func Table1(s Summary) []Row {
	rows := make([]Row, len(Entries))
	for i, n := range Entries {
		rows[i] = Row{Messages: n, Paper: Paper[n]}
		if r, ok := s.Find(TopLHS, XC2VP, Param{"ENTRIES", n}); ok {
			rows[i].LHS = &r
		}
		if r, ok := s.Find(TopALPU, XC2VP, Param{"CELLS", n}); ok {
			rows[i].ALPU = &r
		}
	}
	return rows
}

// ALPUPerLHS is how many times the ALPU's slices exceed the LHS's (the paper's "1/40"), 0
// when either is missing.
func (r Row) ALPUPerLHS() float64 {
	if r.LHS == nil || r.ALPU == nil || r.LHS.Slices == 0 {
		return 0
	}
	return float64(r.ALPU.Slices) / float64(r.LHS.Slices)
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

// WriteText prints Table 1 side by side, then the details of every synthesized design.
// source says where the figures come from (Yosys now, or checked-in reports).
func WriteText(w io.Writer, s Summary, source string) error {
	fmt.Fprintf(w, "Table 1: logic slices and block RAMs on Virtex-II Pro (XC2VP70: %s slices, %d BRAMs)\n",
		thousands(XC2VP70Slices), XC2VP70BRAMs)
	fmt.Fprintf(w, "paper: ISE 8.2i SP3, speed-optimized; ours: %s, synth_xilinx -family xc2vp %s, slices estimated as\n",
		s.Yosys, SynthOptions[XC2VP])
	fmt.Fprintf(w, "ceil(max(LUT sites, FFs) / 2) (docs/area.md). LHS = lhs_rx (splitter + LH buffer), 64-byte entries.\n")
	fmt.Fprintf(w, "source: %s\n", source)
	t := newTable(w)
	t.Header("messages", "ALPU paper", "ALPU ours", "LHS paper", "LHS ours", "LHS BRAM paper", "LHS BRAM ours", "LHS/ALPU paper", "LHS/ALPU ours")
	for _, r := range Table1(s) {
		alpuPaper, alpuOurs, lhsOurs, bramOurs := "n/a", "n/a", "n/a", "n/a"
		if r.Paper.ALPUSlices > 0 {
			alpuPaper = pct(r.Paper.ALPUSlices, XC2VP70Slices)
		}
		if r.ALPU != nil {
			alpuOurs = pct(r.ALPU.Slices, XC2VP70Slices)
		}
		if r.LHS != nil {
			lhsOurs = pct(r.LHS.Slices, XC2VP70Slices)
			bramOurs = fmt.Sprintf("%d/%d", r.LHS.BRAMs, XC2VP70BRAMs)
		}
		if err := t.Append(strconv.Itoa(r.Messages), alpuPaper, alpuOurs, pct(r.Paper.LHSSlices, XC2VP70Slices), lhsOurs,
			fmt.Sprintf("%d/%d", r.Paper.LHSBRAMs, XC2VP70BRAMs), bramOurs, ratio(r.PaperALPUPerLHS()), ratio(r.ALPUPerLHS())); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nEvery synthesized design (xc2vp: LUT4 sites, slices dense / unpacked; xc7: LUT6; BRAM in 18-Kbit blocks)")
	t = newTable(w)
	t.Header("design", "parameters", "xc2vp LUTs", "xc2vp FFs", "xc2vp BRAM", "xc2vp slices", "xc7 LUTs", "xc7 FFs", "xc7 BRAM", "xc7 slices")
	for _, d := range designs(s) {
		v, x7 := d[XC2VP], d[XC7]
		first := v
		if first == nil {
			first = x7
		}
		cells := []string{first.Top, params(first.Job)}
		if v != nil {
			cells = append(cells, thousands(v.LUTs), thousands(v.FFs), strconv.Itoa(v.BRAMs),
				fmt.Sprintf("%s / %s", thousands(v.Slices), thousands(v.SlicesUnpacked)))
		} else {
			cells = append(cells, "", "", "", "")
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

// JSON side objects: null where not synthesized.
type lhsJSON struct {
	Slices *int `json:"slices"`
	BRAMs  *int `json:"brams"`
	LUTs   *int `json:"luts"`
	FFs    *int `json:"ffs"`
}

type alpuJSON struct {
	Slices *int `json:"slices"`
	LUTs   *int `json:"luts"`
	FFs    *int `json:"ffs"`
}

type rowJSON struct {
	LHS   lhsJSON  `json:"lhs"`
	ALPU  alpuJSON `json:"alpu"`
	Paper PaperRow `json:"paper"`
	// ALPUPerLHS is ALPU slices / LHS slices (null where either is missing).
	ALPUPerLHS      *float64 `json:"alpu_per_lhs"`
	PaperALPUPerLHS *float64 `json:"paper_alpu_per_lhs"`
}

func ip(n int) *int { return &n }

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
		var j rowJSON
		j.Paper = r.Paper
		if r.LHS != nil {
			j.LHS = lhsJSON{ip(r.LHS.Slices), ip(r.LHS.BRAMs), ip(r.LHS.LUTs), ip(r.LHS.FFs)}
		}
		if r.ALPU != nil {
			j.ALPU = alpuJSON{ip(r.ALPU.Slices), ip(r.ALPU.LUTs), ip(r.ALPU.FFs)}
		}
		j.ALPUPerLHS, j.PaperALPUPerLHS = fp(r.ALPUPerLHS()), fp(r.PaperALPUPerLHS())
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
