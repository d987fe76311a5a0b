package goal

import (
	"fmt"
	"github.com/lhsim/lhsim/netsim/match"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lhsim/lhsim/experiment"
)

// QueuePoints are, per matcher, the mean matching time of the steps that searched a queue of
// each length bucket, over every workload: the points of WriteQueuePlot.
func (r *MatchersResult) QueuePoints() (names []string, pts map[string]plotter.XYs) {
	type acc struct{ steps, ns float64 }
	by := map[string]map[int]*acc{}
	for _, c := range r.Cells {
		if by[c.Matcher] == nil {
			by[c.Matcher] = map[int]*acc{}
			names = append(names, c.Matcher)
		}
		for _, p := range c.Matching.ByQueue {
			a := by[c.Matcher][p.Max]
			if a == nil {
				a = &acc{}
				by[c.Matcher][p.Max] = a
			}
			a.steps += float64(p.Steps)
			a.ns += p.MeanNs * float64(p.Steps)
		}
	}
	pts = map[string]plotter.XYs{}
	for _, m := range names {
		var ks []int
		for k := range by[m] {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		for _, k := range ks {
			// X: the bucket's longest queue plus one (the log axis has no 0).
			pts[m] = append(pts[m], plotter.XY{X: float64(k + 1), Y: by[m][k].ns / by[m][k].steps})
		}
	}
	return names, pts
}

// WriteQueuePlot draws matching time against the length of the queue searched, a curve per
// matcher (simulated).
func (r *MatchersResult) WriteQueuePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("matchers: %w", err)
	}
	p := experiment.LogXPlot(fmt.Sprintf("Matching time against queue length, %d ranks (simulated)", r.Ranks),
		"longest queue searched in the bucket + 1 (buckets 0, 1, 2-3, 4-7, ...)", "mean matching time per step (ns)")
	names, pts := r.QueuePoints()
	var c experiment.Curves
	for _, m := range names {
		for _, xy := range pts[m] {
			spec, _ := match.Parse(m)
			c.Add(m, spec.Software(), xy.X, xy.Y)
		}
	}
	return c.Draw(p, file)
}

// Pareto are a workload's matchers not beaten on both end time and xc2vp slices by another
// (software matchers have 0 slices), by end time.
func (r *MatchersResult) Pareto(workload string) []MatchersCell {
	var cells []MatchersCell
	for _, c := range r.Cells {
		if c.Workload == workload && (c.Software || c.Area != nil) {
			cells = append(cells, c)
		}
	}
	slices := func(c MatchersCell) int {
		if c.Area == nil {
			return 0
		}
		return c.Area.XC2VPSlices
	}
	var front []MatchersCell
	for _, c := range cells {
		beaten := false
		for _, o := range cells {
			if o.EndUs <= c.EndUs && slices(o) <= slices(c) && (o.EndUs < c.EndUs || slices(o) < slices(c)) {
				beaten = true
				break
			}
		}
		if !beaten {
			front = append(front, c)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].EndUs < front[j].EndUs })
	return front
}

// WriteParetoPlot draws area (xc2vp slices, Yosys) against end time (simulated, relative to
// the workload's fastest matcher), a point per matcher and the Pareto front per workload.
func (r *MatchersResult) WriteParetoPlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("matchers: %w", err)
	}
	p := experiment.NewPlot(fmt.Sprintf("Area against end time, %d ranks: the Pareto front per workload", r.Ranks),
		"end time / the workload's fastest (simulated)", "xc2vp slices (Yosys; software: 0)")
	var cv experiment.Curves
	var lbs []*plotter.Labels
	var order []string
	best := map[string]float64{}
	for _, c := range r.Cells {
		if _, ok := best[c.Workload]; !ok {
			order = append(order, c.Workload)
			best[c.Workload] = c.EndUs
		}
		best[c.Workload] = min(best[c.Workload], c.EndUs)
	}
	for _, w := range order {
		var pts plotter.XYs
		var labels []string
		for _, c := range r.Pareto(w) {
			s := 0
			if c.Area != nil {
				s = c.Area.XC2VPSlices
			}
			pts = append(pts, plotter.XY{X: c.EndUs / best[w], Y: float64(s)})
			labels = append(labels, c.Matcher)
		}
		cv.Set(strings.TrimSuffix(w, ".goal"), experiment.Marked, -1, pts)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return err
		}
		lbs = append(lbs, lb)
	}
	if err := cv.AddTo(p); err != nil {
		return err
	}
	for _, lb := range lbs {
		p.Add(lb)
	}
	return experiment.SavePlot(p, 8*vg.Inch, 6*vg.Inch, file)
}
