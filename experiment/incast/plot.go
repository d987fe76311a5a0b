package incast

import (
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/experiment"
)

// WritePlot draws receives completed against time, LHS on and off: the incast's Figure.
func (r *Result) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("incast: %w", err)
	}
	p := experiment.LogXPlot(fmt.Sprintf("incast on %s: %d senders, %d receivers, receives posted at %.0f µs",
		r.Topology, r.Senders, r.Receivers, r.PostAtUs), "simulated time (µs)", "receives completed")
	var c experiment.Curves
	for _, run := range []Outcome{r.On, r.Off} {
		name := "LHS on"
		if !run.LHS {
			name = "LHS off"
		}
		done := slices.Clone(run.Done)
		slices.Sort(done)
		for k, t := range done {
			c.AddStyled(name, experiment.Plain, t.Microseconds(), float64(k+1))
		}
	}
	return c.Draw(p, file)
}
