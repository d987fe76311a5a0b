package goal

import (
	"encoding/json"
	"fmt"
	"github.com/lhsim/lhsim/experiment"
	"io"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim"
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
	Workloads []string // goal gen patterns, alltoall_late, or fig6 (rx.Fig6Workload)
	Schedule  string   // a user's schedule, run besides (or instead of) the patterns
	Matchers  []string
	Reports   string // a folder of the area flow's reports (summary.json); "": the checked-in ones built into lhsim
	// Fig6 is the micro-benchmark's set-up for the fig6 workload (DefaultSearch: lhsim
	// search's).
	Fig6 rx.SearchConfig
	// RTLNodes run the matcher's Verilated RTL beside its model, checked against it, in the
	// cells whose matcher has RTL (match.Spec.RTL).
	RTLNodes []int
	// Progress, when set, is told after each run of a workload with a matcher, and of each
	// matcher on fig6 (done of total).
	Progress *experiment.Progress `json:"-"`
	// Threads is how many threads each cell's run takes (CellThreads says how many it gets; the
	// results are the same), and Windows, when set, is told of a cell's windows on more than
	// one thread, with the cell's name ("WORKLOAD with MATCHER").
	Threads int                                      `json:"-"`
	Windows func(cell string, ws netsim.WindowStats) `json:"-"`

	// schedules, set on Parts, are the workloads' schedules, made once for every part.
	schedules *scheduleCache
}

// MatchersWorkloads are the study's default workloads, lhsim goal gen patterns: incast (every
// rank sends to rank 0, whose posted queue holds a receive per sender), alltoall_late
// (Schedgen's linear all-to-all whose receivers post after goal.DefaultLateNs of computation,
// so the messages wait in the unexpected queues), random_bisect (Schedgen's random pairs) and
// allreduce_ring (Schedgen's ring allreduce).
var MatchersWorkloads = []string{"incast", "alltoall_late", "random_bisect", "allreduce_ring"}

// MatchersDefault are the default matchers.
var MatchersDefault = []string{"list", "bins:64", "alpu:64", "alpu:256", "lhs", "lhs+alpu:64"}

// MatcherArea is a matcher's hardware from the checked-in Yosys reports, on xc2vp and xc7:
// the sum of the designs its kind names (match.Spec.Area), e.g. two ALPUs (posted and
// unexpected queue) for alpu:N; for lhs, what LHS adds to the receive path (lhs_rx with 512
// entries, less lhs_rx with LHS=0: Table 1's increment); for lhs+alpu:N, that and one ALPU.
type MatcherArea struct {
	XC2VPSlices int `json:"xc2vp_slices"`
	XC2VPLUTs   int `json:"xc2vp_luts"`
	XC2VPBRAMs  int `json:"xc2vp_brams"`
	XC7Slices   int `json:"xc7_slices"`
	XC7LUTs     int `json:"xc7_luts"`
	XC7BRAMs    int `json:"xc7_brams"`
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
	// App are an application workload's figures (AppSchedule), nil for the others.
	App *AppFigures `json:"application,omitempty"`
}

// MatchersResult is the study.
type MatchersResult struct {
	Ranks    int            `json:"ranks"`
	Size     int            `json:"size"`
	RTLNodes []int          `json:"rtl_nodes,omitempty"`
	Cells    []MatchersCell `json:"cells"`
	// Fig6 are the matchers on the LHS paper's micro-benchmark (workload fig6).
	Fig6 []*rx.MatcherFig6 `json:"fig6,omitempty"`
}

// matcherArea reads a hardware matcher's area from the reports; nil when a report it needs
// is not there (the table says "no report") or the matcher is software.
func matcherArea(s area.Summary, spec match.Spec) (*MatcherArea, error) {
	terms := spec.Area()
	if len(terms) == 0 {
		return nil, nil
	}
	a := &MatcherArea{}
	for _, t := range terms {
		var ps []area.Param
		for _, p := range t.Params {
			ps = append(ps, area.Param{Name: p.Name, Value: p.Value})
		}
		v, ok1 := s.Find(t.Top, area.XC2VP, ps...)
		k, ok2 := s.Find(t.Top, area.XC7, ps...)
		if !ok1 || !ok2 {
			return nil, nil // the table says "no report"
		}
		a.XC2VPSlices += t.Count * v.Slices
		a.XC2VPLUTs += t.Count * v.LUTs
		a.XC2VPBRAMs += t.Count * v.BRAMs
		a.XC7Slices += t.Count * k.Slices
		a.XC7LUTs += t.Count * k.LUTs
		a.XC7BRAMs += t.Count * k.BRAMs
	}
	return a, nil
}

// RunMatchers runs the study.
func RunMatchers(cfg MatchersConfig) (*MatchersResult, error) {
	var sum area.Summary
	var err error
	if cfg.Reports == "" {
		sum, err = area.CheckedInSummary()
	} else {
		sum, err = area.LoadSummary(cfg.Reports)
	}
	if err != nil {
		return nil, err
	}
	type work struct {
		name string
		s    *goal.Schedule
		app  bool
	}
	var ws []work
	res := &MatchersResult{Ranks: cfg.Ranks, Size: cfg.Size, RTLNodes: cfg.RTLNodes}
	cfg.Progress.Expect(int64(cfg.runs()))
	tell := func() { cfg.Progress.Step(1, "") }
	for _, w := range cfg.Workloads {
		if w == rx.Fig6Workload {
			for _, m := range cfg.Matchers {
				if !slices.Contains(rx.Fig6Matchers, m) {
					continue
				}
				r, err := rx.RunMatcherFig6(m, cfg.Fig6)
				if err != nil {
					return nil, fmt.Errorf("matchers: %s with %s: %w", w, m, err)
				}
				res.Fig6 = append(res.Fig6, r)
				tell()
			}
			if len(res.Fig6) == 0 {
				return nil, fmt.Errorf("matchers: %s runs the matchers %v; --matchers has none of them", w, rx.Fig6Matchers)
			}
			continue
		}
		s, err := cfg.schedules.get(w, func() (*goal.Schedule, error) { return cfg.generate(w) })
		if err != nil {
			return nil, err
		}
		ws = append(ws, work{w, s, AppSchedule(w) != ""})
	}
	if cfg.Schedule != "" {
		s, err := cfg.schedules.get(scheduleKey(cfg.Schedule), func() (*goal.Schedule, error) { return ReadSchedule(cfg.Schedule, 0) })
		if err != nil {
			return nil, err
		}
		ws = append(ws, work{cfg.Schedule, s, false})
	}
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
			if spec.RTL() {
				gc.MatcherRTLNodes = cfg.RTLNodes
			}
			gc.Threads = cfg.Threads
			if cfg.Windows != nil {
				cell := w.name + " with " + m
				gc.Windows = func(_ string, ws netsim.WindowStats) { cfg.Windows(cell, ws) }
			}
			r, err := RunSchedule(gc, w.s)
			if err != nil {
				return nil, fmt.Errorf("matchers: %s with %s: %w", w.name, m, err)
			}
			c := MatchersCell{Workload: w.name, Matcher: m, EndUs: r.EndNs / 1000, Matching: r.Matching, Area: a, Software: !spec.Hardware()}
			if w.app {
				c.App = appFigures(w.name, len(w.s.Ranks), spec.Hardware(), r.Matching)
			}
			res.Cells = append(res.Cells, c)
			tell()
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

// WriteTable writes one row per cell (the generated workloads and the schedule's, then the
// application workloads' in a table of their own), then the micro-benchmark's table.
func (r *MatchersResult) WriteTable(w io.Writer) error {
	var cells, apps []MatchersCell
	for _, c := range r.Cells {
		if c.App != nil {
			apps = append(apps, c)
		} else {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 && len(apps) == 0 {
		return rx.WriteFig6Table(w, r.Fig6)
	}
	if len(cells) > 0 {
		if err := r.writeCells(w, cells); err != nil {
			return err
		}
	}
	if len(apps) > 0 {
		if err := writeApps(w, apps); err != nil {
			return err
		}
	}
	if len(r.Fig6) > 0 {
		return rx.WriteFig6Table(w, r.Fig6)
	}
	return nil
}

func (r *MatchersResult) writeCells(w io.Writer, cells []MatchersCell) error {
	fmt.Fprintf(w, "matchers on the packet network, %d ranks, %d-byte messages (simulated; area from synth-reports, Yosys)\n", r.Ranks, r.Size)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("workload", "matcher", "end µs", "match ns mean", "p99", "posted max", "unexp. max", "to software", "xc2vp slices/LUTs/BRAM", "xc7 slices/LUTs/BRAM")
	var rtl []string
	for _, c := range cells {
		v, k := "0 (software)", "0 (software)"
		if !c.Software {
			v, k = "no report", "no report"
		}
		if a := c.Area; a != nil {
			v, k = fmt.Sprintf("%d/%d/%d", a.XC2VPSlices, a.XC2VPLUTs, a.XC2VPBRAMs), fmt.Sprintf("%d/%d/%d", a.XC7Slices, a.XC7LUTs, a.XC7BRAMs)
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
			fmt.Sprint(m.MaxPosted), fmt.Sprint(m.MaxUnexpected), fb, v, k); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if err := writePolicies(w, cells); err != nil {
		return err
	}
	if len(r.RTLNodes) > 0 {
		fmt.Fprintf(w, "RTL beside its model on nodes %v, every operation the same (operations checked): %s\n", r.RTLNodes, strings.Join(rtl, ", "))
	}
	return nil
}

// writePolicies writes, for the cells whose matcher is named with its policy, where their
// hardware queues matched: the share of matches the hardware served, the switches between
// hardware and software, and the queues' time in each.
func writePolicies(w io.Writer, cells []MatchersCell) error {
	var rows [][]string
	for _, c := range cells {
		if p := c.Matching.Policy; p != nil {
			rows = append(rows, []string{strings.TrimSuffix(c.Workload, ".goal"), c.Matcher, fmt.Sprintf("%.1f %%", 100*p.HWShare), fmt.Sprint(p.Switches),
				fmt.Sprintf("%.2f", p.HardwareUs), fmt.Sprintf("%.2f", p.SoftwareUs)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "hardware lists under their policy (simulated): matches the hardware served, switches between hardware and software, the queues' time in each")
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("workload", "matcher", "in hardware", "switches", "queue µs in hardware", "in software")
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}
