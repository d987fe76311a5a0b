package goal

// Application workloads of the matchers study: schedules of real MPI programs, recorded with
// lhsim goal record and converted with lhsim goal convert (scripts/traces.sh, make traces),
// named PROGRAM.RANKS (lammps-melt.16). A small one is checked in under traces/; make traces
// writes every one under build/traces/. Their cells carry AppFigures, and the study prints
// them in a table of their own (docs/apps.md, "The study on real programs"), so that the
// generated workloads' table stays as it was.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot/plotter"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/experiment"
)

// AppDirs are where application schedules (NAME.goal.gz) are looked for, relative to the
// repository root, in this order: the checked-in ones, then those make traces made.
var AppDirs = []string{"traces", "build/traces"}

// appSuffix is the application schedules' file name after their workload name.
const appSuffix = ".goal.gz"

// AppSchedule is the file of application workload name (PROGRAM.RANKS), or "" when name is
// not one (not of that form, or no such file under AppDirs).
func AppSchedule(name string) string {
	prog, ranks, ok := strings.Cut(name, ".")
	if !ok || prog == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	if _, err := strconv.Atoi(ranks); err != nil {
		return ""
	}
	root, err := area.FindRoot(".")
	if err != nil {
		return ""
	}
	for _, d := range AppDirs {
		f := filepath.Join(root, d, name+appSuffix)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f
		}
	}
	return ""
}

// AppWorkloads are the application workloads there are schedules for, by program then ranks.
func AppWorkloads() []string {
	root, err := area.FindRoot(".")
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range AppDirs {
		fs, _ := filepath.Glob(filepath.Join(root, d, "*"+appSuffix))
		for _, f := range fs {
			if w := strings.TrimSuffix(filepath.Base(f), appSuffix); AppSchedule(w) != "" && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		pa, ra := appName(a)
		pb, rb := appName(b)
		if c := strings.Compare(pa, pb); c != 0 {
			return c
		}
		return ra - rb
	})
	return out
}

// ExpandApps replaces the workload apps by every application workload there is
// (AppWorkloads); with none, it is the command line's mistake.
func ExpandApps(ws []string) ([]string, error) {
	var out []string
	for _, w := range ws {
		if w != "apps" {
			out = append(out, w)
			continue
		}
		apps := AppWorkloads()
		if len(apps) == 0 {
			return nil, experiment.Refuse("--workloads apps: no application schedule under traces/ or build/traces/ (make traces)")
		}
		out = append(out, apps...)
	}
	return out, nil
}

// HasApps says whether the study runs an application workload.
func (cfg MatchersConfig) HasApps() bool {
	return slices.ContainsFunc(cfg.Workloads, func(w string) bool { return AppSchedule(w) != "" })
}

// appName splits an application workload's name into its program and ranks.
func appName(w string) (string, int) {
	i := strings.LastIndex(w, ".")
	if i < 0 {
		return w, 0
	}
	n, _ := strconv.Atoi(w[i+1:])
	return w[:i], n
}

// DepthBucket is how many searches found a queue of Min to Max entries.
type DepthBucket struct {
	Min      int `json:"queue_min"`
	Max      int `json:"queue_max"`
	Searches int `json:"searches"`
}

// AppFigures are an application cell's figures besides MatchSummary's (simulated).
type AppFigures struct {
	Program string `json:"program"`
	Ranks   int    `json:"ranks"`
	// Searches are the matching steps (MatchSummary.Steps), Depth them by the length of the
	// queue searched (buckets 0, 1, 2-3, 4-7, ...; their searches sum to Searches).
	Searches int           `json:"searches"`
	Depth    []DepthBucket `json:"queue_depth"`
	// Matches are the matches on both queues (one per receive of the schedule), HWMatches
	// those the hardware served: found in an ALPU's cells or a hash matcher's table, or taken
	// from the LHS receive path's LH buffer (not from host memory after a spill). HWShare is
	// their share; nil for software matchers.
	Matches   int      `json:"matches"`
	HWMatches int      `json:"hardware_matches"`
	HWShare   *float64 `json:"hardware_share,omitempty"`
	// Fallbacks are matches found in software behind the hardware (MatchSummary.Fallbacks),
	// Switches a hardware queue's moves between hardware and software, both ways.
	Fallbacks int `json:"software_fallbacks"`
	Switches  int `json:"switches"`
}

// appFigures are cell c's application figures.
func appFigures(w string, ranks int, hardware bool, m *MatchSummary) *AppFigures {
	prog, _ := appName(w)
	a := &AppFigures{Program: prog, Ranks: ranks, Searches: m.Steps, Matches: m.found, HWMatches: m.hwServed,
		Fallbacks: m.Fallbacks, Switches: m.switches}
	for _, p := range m.ByQueue {
		a.Depth = append(a.Depth, DepthBucket{Min: p.Min, Max: p.Max, Searches: p.Steps})
	}
	if hardware {
		s := 0.0
		if a.Matches > 0 {
			s = float64(a.HWMatches) / float64(a.Matches)
		}
		a.HWShare = &s
	}
	return a
}

// depthShares are the shares of searches (%) of a queue of 0, 1, 2 to 7, 8 to 63 and 64 or
// more entries.
func (a *AppFigures) depthShares() [5]float64 {
	var s [5]float64
	if a.Searches == 0 {
		return s
	}
	for _, b := range a.Depth {
		i := 4
		switch {
		case b.Max == 0:
			i = 0
		case b.Max == 1:
			i = 1
		case b.Max <= 7:
			i = 2
		case b.Max <= 63:
			i = 3
		}
		s[i] += 100 * float64(b.Searches) / float64(a.Searches)
	}
	return s
}

// writeApps writes the application cells' table.
func writeApps(w io.Writer, cells []MatchersCell) error {
	fmt.Fprintln(w, "matchers on application schedules (lhsim goal record + convert), packet network (simulated; area from synth-reports, Yosys)")
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("program", "ranks", "matcher", "end µs", "match ns mean", "p99", "searches", "queue searched 0/1/2-7/8-63/64+ %", "posted max", "unexp. max",
		"in hardware", "to software", "switches", "xc2vp slices")
	pct := func(v float64) string {
		if v == 0 {
			return "0"
		}
		if v < 0.1 {
			return "<0.1"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, c := range cells {
		a, m := c.App, c.Matching
		sh := a.depthShares()
		hw, fb, sw, sl := "-", "-", "-", "0 (software)"
		if a.HWShare != nil {
			hw = fmt.Sprintf("%.1f %%", 100**a.HWShare)
			if *a.HWShare < 1 && *a.HWShare > 0.999 {
				hw = "> 99.9 %"
			}
			fb, sw, sl = fmt.Sprint(a.Fallbacks), fmt.Sprint(a.Switches), "no report"
		}
		if c.Area != nil {
			sl = fmt.Sprint(c.Area.XC2VPSlices)
		}
		if err := t.Append(a.Program, fmt.Sprint(a.Ranks), c.Matcher, fmt.Sprintf("%.2f", c.EndUs), fmt.Sprintf("%.1f", m.MeanNs), fmt.Sprintf("%.1f", m.P99Ns),
			fmt.Sprint(a.Searches), fmt.Sprintf("%s/%s/%s/%s/%s", pct(sh[0]), pct(sh[1]), pct(sh[2]), pct(sh[3]), pct(sh[4])),
			fmt.Sprint(m.MaxPosted), fmt.Sprint(m.MaxUnexpected), hw, fb, sw, sl); err != nil {
			return err
		}
	}
	return t.Render()
}

// DepthPoints are, per application workload, the share of its searches (%) in each bucket of
// the length of the queue searched, from the run with matcher (or, when the study did not
// run it, the workload's first matcher): the points of WriteDepthPlot. X is the bucket's
// longest queue plus one (a log axis has no 0).
func (r *MatchersResult) DepthPoints(matcher string) (names []string, pts map[string]plotter.XYs) {
	pts = map[string]plotter.XYs{}
	from := map[string]string{}
	for _, c := range r.Cells {
		if c.App == nil {
			continue
		}
		if m, ok := from[c.Workload]; ok && (m == matcher || c.Matcher != matcher) {
			continue
		}
		if _, ok := from[c.Workload]; !ok {
			names = append(names, c.Workload)
		}
		from[c.Workload] = c.Matcher
		pts[c.Workload] = nil
		for _, b := range c.App.Depth {
			pts[c.Workload] = append(pts[c.Workload], plotter.XY{X: float64(b.Max + 1), Y: 100 * float64(b.Searches) / float64(c.App.Searches)})
		}
	}
	return names, pts
}

// WriteDepthPlot draws the distribution of the length of the queue each search found, a
// curve per application workload, from the list matcher's runs (simulated).
func (r *MatchersResult) WriteDepthPlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("matchers: %w", err)
	}
	names, pts := r.DepthPoints("list")
	if len(names) == 0 {
		return fmt.Errorf("matchers: --plot-depth draws application workloads; the study ran none (%s)", strings.Join(AppWorkloads(), ", "))
	}
	p := experiment.LogXPlot("Queue searched per matching step, real programs (simulated, list matcher; lhsim matchers)",
		"longest queue in the bucket + 1 (buckets 0, 1, 2-3, 4-7, ...)", "searches (%)")
	var c experiment.Curves
	for _, w := range names {
		for _, xy := range pts[w] {
			c.Add(w, false, xy.X, xy.Y)
		}
	}
	return c.Draw(p, file)
}
