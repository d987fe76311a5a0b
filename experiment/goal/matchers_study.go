package goal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// MatchersConfig is the study lhsim matchers runs: every workload with every matcher on the
// packet network.
type MatchersConfig struct {
	Ranks     int
	Size      int      // bytes per message of the generated schedules
	Seed      uint64   // random_bisect's pairing
	Workloads []string // goal gen patterns
	Schedule  string   // a user's schedule, run besides (or instead of) the patterns
	Matchers  []string
	Reports   string // the area flow's checked-in reports, relative to the repository root (synth-reports)
	// RTLNodes run the ALPU's Verilated RTL beside its model, checked against it, in the
	// cells of alpu:N and lhs+alpu:N with N up to match.RTLCells.
	RTLNodes []int
}

// MatchersWorkloads are the study's default workloads: lhsim goal gen patterns (incast:
// every rank sends to rank 0; linear_alltoall, random_bisect, allreduce_ring) and
// alltoall_late, Schedgen's linear all-to-all whose receivers post their receives only after
// LateNs of computation, so the messages wait in the unexpected queues.
var MatchersWorkloads = []string{"incast", "linear_alltoall", "alltoall_late", "random_bisect", "allreduce_ring"}

// LateNs is how long alltoall_late's receivers compute before posting: 50 µs, longer than
// the 256-rank all-to-all's sends take to land (simulated), so that most messages arrive
// unexpected.
const LateNs = 50_000

// alltoallLate writes alltoall_late: rank r sends to r+1, r+2, ... (mod n), as Schedgen's
// linear_alltoall, and receives from r-1, r-2, ... after a calc of LateNs.
func alltoallLate(w io.Writer, n, size int) {
	fmt.Fprintf(w, "num_ranks %d\n", n)
	for r := 0; r < n; r++ {
		fmt.Fprintf(w, "rank %d {\nc: calc %d\n", r, LateNs)
		for i := 1; i < n; i++ {
			fmt.Fprintf(w, "s%d: send %db to %d tag 0\nr%d: recv %db from %d tag 0\nr%d requires c\n", i, size, (r+i)%n, i, size, (r-i+n)%n, i)
		}
		fmt.Fprintln(w, "}")
	}
}

// MatchersDefault are the default matchers.
var MatchersDefault = []string{"list", "bins:64", "alpu:64", "alpu:256", "lhs", "lhs+alpu:64"}

// MatcherArea is a matcher's hardware from the checked-in Yosys reports: two ALPUs (posted
// and unexpected queue) for alpu:N; for lhs, what LHS adds to the receive path (lhs_rx with
// 512 entries, less lhs_rx with LHS=0: Table 1's increment), on xc2vp only (xc7 has no LHS=0
// report); for lhs+alpu:N, that and one ALPU.
type MatcherArea struct {
	XC7         bool `json:"xc7_reported"` // whether the xc7 figures are there
	XC2VPSlices int  `json:"xc2vp_slices"`
	XC2VPLUTs   int  `json:"xc2vp_luts"`
	XC2VPBRAMs  int  `json:"xc2vp_brams"`
	XC7Slices   int  `json:"xc7_slices"`
	XC7LUTs     int  `json:"xc7_luts"`
	XC7BRAMs    int  `json:"xc7_brams"`
}

// MatchersCell is one workload with one matcher.
type MatchersCell struct {
	Workload string        `json:"workload"`
	Matcher  string        `json:"matcher"`
	EndUs    float64       `json:"end_us"`
	Matching *MatchSummary `json:"matching"`
	// Area is nil for software matchers (no hardware) and for sizes without a checked-in
	// report (synth-reports has the ALPU of 64, 128, 256 and 512 cells).
	Area     *MatcherArea `json:"area,omitempty"`
	Software bool         `json:"software"`
}

// MatchersResult is the study.
type MatchersResult struct {
	Ranks    int            `json:"ranks"`
	Size     int            `json:"size"`
	RTLNodes []int          `json:"rtl_nodes,omitempty"`
	Cells    []MatchersCell `json:"cells"`
}

// matcherArea reads alpu:N's area: twice the ALPU of N cells.
func matcherArea(s area.Summary, spec match.Spec) (*MatcherArea, error) {
	a := &MatcherArea{XC7: true}
	if strings.HasPrefix(spec.Kind, "lhs") {
		e := area.Param{Name: "ENTRIES", Value: LHSMatchEntries}
		on, ok1 := s.Find("lhs_rx", area.XC2VP, e)
		off, ok2 := s.Find("lhs_rx", area.XC2VP, e, area.Param{Name: "LHS", Value: 0})
		if !ok1 || !ok2 {
			return nil, nil
		}
		a.XC7 = false
		a.XC2VPSlices, a.XC2VPLUTs, a.XC2VPBRAMs = on.Slices-off.Slices, on.LUTs-off.LUTs, on.BRAMs-off.BRAMs
	}
	alpus := map[string]int{"alpu": 2, "lhs+alpu": 1}[spec.Kind]
	if alpus > 0 {
		p := area.Param{Name: "CELLS", Value: spec.N}
		v, ok1 := s.Find("alpu", area.XC2VP, p)
		k, ok2 := s.Find("alpu", area.XC7, p)
		if !ok1 || !ok2 {
			return nil, nil // the table says "no report"
		}
		a.XC2VPSlices += alpus * v.Slices
		a.XC2VPLUTs += alpus * v.LUTs
		a.XC2VPBRAMs += alpus * v.BRAMs
		a.XC7Slices, a.XC7LUTs, a.XC7BRAMs = alpus*k.Slices, alpus*k.LUTs, alpus*k.BRAMs
	}
	if alpus == 0 && !strings.HasPrefix(spec.Kind, "lhs") {
		return nil, nil
	}
	return a, nil
}

// RunMatchers runs the study.
func RunMatchers(cfg MatchersConfig) (*MatchersResult, error) {
	dir := cfg.Reports
	if !filepath.IsAbs(dir) {
		root, err := area.FindRoot(".")
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(root, dir)
	}
	sum, err := area.LoadSummary(dir)
	if err != nil {
		return nil, err
	}
	type work struct {
		name string
		s    *goal.Schedule
	}
	var ws []work
	for _, w := range cfg.Workloads {
		var buf bytes.Buffer
		if w == "alltoall_late" {
			alltoallLate(&buf, cfg.Ranks, cfg.Size)
		} else if err := goal.Generate(&buf, goal.GenConfig{Pattern: w, Ranks: cfg.Ranks, Size: cfg.Size, Segment: 1024, Seed: cfg.Seed}); err != nil {
			return nil, err
		}
		s, err := goal.Parse(&buf)
		if err != nil {
			return nil, fmt.Errorf("matchers: %s: %w", w, err)
		}
		ws = append(ws, work{w, s})
	}
	if cfg.Schedule != "" {
		s, err := ReadSchedule(cfg.Schedule, 0)
		if err != nil {
			return nil, err
		}
		ws = append(ws, work{cfg.Schedule, s})
	}
	res := &MatchersResult{Ranks: cfg.Ranks, Size: cfg.Size, RTLNodes: cfg.RTLNodes}
	for _, w := range ws {
		for _, m := range cfg.Matchers {
			spec, err := match.Parse(m)
			if err != nil {
				return nil, err
			}
			a, err := matcherArea(sum, spec)
			if err != nil {
				return nil, err
			}
			gc := Config{Schedule: w.name, Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Matcher: m}
			if strings.Contains(spec.Kind, "alpu") && spec.N <= match.RTLCells {
				gc.MatcherRTLNodes = cfg.RTLNodes
			}
			r, err := RunSchedule(gc, w.s)
			if err != nil {
				return nil, fmt.Errorf("matchers: %s with %s: %w", w.name, m, err)
			}
			res.Cells = append(res.Cells, MatchersCell{Workload: w.name, Matcher: m, EndUs: r.EndNs / 1000, Matching: r.Matching, Area: a, Software: !spec.Hardware()})
		}
	}
	return res, nil
}

// WriteJSON writes the study.
func (r *MatchersResult) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// WriteTable writes one row per cell.
func (r *MatchersResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "matchers on the packet network, %d ranks, %d-byte messages (simulated; area from synth-reports, Yosys)\n", r.Ranks, r.Size)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("workload", "matcher", "end µs", "match ns mean", "p99", "posted max", "unexp. max", "to software", "xc2vp slices", "xc7 LUTs")
	var rtl []string
	for _, c := range r.Cells {
		sl, lu := "0 (software)", "0"
		if !c.Software {
			sl, lu = "no report", "no report"
		}
		if c.Area != nil {
			sl, lu = fmt.Sprint(c.Area.XC2VPSlices), fmt.Sprint(c.Area.XC7LUTs)
			if !c.Area.XC7 {
				lu = "no report"
				if c.Area.XC7LUTs > 0 {
					lu = fmt.Sprintf("%d + LHS", c.Area.XC7LUTs)
				}
			}
		}
		fb := "-"
		if !c.Software {
			fb = fmt.Sprint(c.Matching.Fallbacks)
		}
		m := c.Matching
		if c.Matching.RTLChecked > 0 {
			rtl = append(rtl, fmt.Sprintf("%s %s: %d", strings.TrimSuffix(c.Workload, ".goal"), c.Matcher, c.Matching.RTLChecked))
		}
		if err := t.Append(strings.TrimSuffix(c.Workload, ".goal"), c.Matcher, fmt.Sprintf("%.2f", c.EndUs), fmt.Sprintf("%.1f", m.MeanNs), fmt.Sprintf("%.1f", m.P99Ns),
			fmt.Sprint(m.MaxPosted), fmt.Sprint(m.MaxUnexpected), fb, sl, lu); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(r.RTLNodes) > 0 {
		fmt.Fprintf(w, "ALPU RTL beside its model on nodes %v, every operation the same (operations checked): %s\n", r.RTLNodes, strings.Join(rtl, ", "))
	}
	return nil
}
