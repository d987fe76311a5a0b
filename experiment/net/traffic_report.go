package net

// The traffic sweep's table and figure.

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/lhsim/lhsim/experiment"
)

// WriteTable prints the sweep.
func (r *TrafficResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s, %s traffic, %d-flit packets (%d-byte flits, %.1f ns cycle), %d nodes, seed %d\n",
		r.Topology, r.Pattern, r.PacketFlits, r.FlitBytes, r.ClockNs, r.Nodes, r.Seed)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("offered", "offered GB/s", "accepted", "accepted GB/s", "bisection bound", "latency cycles", "latency ns", "waiting ns", "routers", "state")
	for _, row := range r.Rows {
		state := "stable"
		if row.Saturated {
			state = "saturated"
		}
		if err := t.Append(fmt.Sprintf("%.3f", row.Offered), fmt.Sprintf("%.2f", row.OfferedGBps),
			fmt.Sprintf("%.3f", row.Accepted), fmt.Sprintf("%.2f", row.AcceptedGBps), fmt.Sprintf("%.3f", r.BisectionBound),
			fmt.Sprintf("%.1f", row.Latency), fmt.Sprintf("%.1f", row.LatencyNs), fmt.Sprintf("%.1f", row.QueueingNs),
			fmt.Sprintf("%.2f", row.MeanHops), state); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "loads in flits/cycle/node; latency from creation (source queue included) to the tail's arrival;")
	fmt.Fprintln(w, "waiting: latency less each packet's own zero-load closed form")
	channel := "not computed (uniform on more than 2,048 nodes)"
	if r.ChannelBound > 0 {
		channel = fmt.Sprintf("%.3f", r.ChannelBound)
	}
	fmt.Fprintf(w, "bounds (flits/cycle/node): node link %.3f, bisection %.3f (%d links, %.0f GB/s each way), busiest channel %s; tightest %.3f (%.2f GB/s per node)\n",
		r.InjectionBound, r.BisectionBound, r.BisectionLinks, r.BisectionGBps, channel, r.Bound, r.Bound*float64(r.FlitBytes)/r.ClockNs)
	fmt.Fprintf(w, "routers per packet: %d to %d, mean %.3f over pairs of nodes\n", r.MinRouters, r.MaxRouters, r.MeanRouters)
	exact := "equal for every pair"
	if !r.ZeroLoadExact {
		exact = "DIFFERENT"
	}
	fmt.Fprintf(w, "zero-load latency (mean over %d pairs): closed form %.1f ns (%.1f cycles), lone packets simulated %.1f ns: %s\n",
		r.ZeroLoadPairs, r.ZeroLoadNs, r.ZeroLoadCycles, r.ZeroLoadSimNs, exact)
	zt := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	zt.Header("routers", "pairs", "closed form ns", "simulated ns", "equal")
	for _, z := range r.ZeroLoadByRouters {
		eq := "yes"
		if !z.Exact {
			eq = "NO"
		}
		if err := zt.Append(fmt.Sprint(z.Routers), fmt.Sprint(z.Pairs), fmt.Sprintf("%.1f", z.ClosedNs), fmt.Sprintf("%.1f", z.SimNs), eq); err != nil {
			return err
		}
	}
	if err := zt.Render(); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if row.Saturated {
			fmt.Fprintf(w, "saturated at %.3f: %s\n", row.Offered, row.Why)
		}
		if len(row.Busiest) > 0 {
			var b []string
			for _, l := range row.Busiest {
				b = append(b, fmt.Sprintf("%s %.3f", l.Link, l.Utilisation))
			}
			fmt.Fprintf(w, "capped at %.3f by the busiest links (flits/cycle): %s\n", row.Offered, strings.Join(b, ", "))
		}
	}
	_, err := fmt.Fprintf(w, "speed: %.2f M events/s, %.2f M flit-hops/s (%.1f CPU s for %.1f us simulated)\n",
		r.EventsPerS/1e6, r.FlitHopsPerS/1e6, r.CPUSeconds, r.SimulatedSeconds*1e6)
	return err
}

// WritePlot draws accepted throughput and latency against offered load, the bounds as
// lines. The format follows the file's extension (.svg or .png).
func (r *TrafficResult) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("traffic: %w", err)
	}
	title := fmt.Sprintf("%s, %s, %d-flit packets", r.Topology, r.Pattern, r.PacketFlits)
	maxX := r.Rows[len(r.Rows)-1].Offered
	bound := func(c *experiment.Curves, name string, y0, y1 float64) {
		c.AddStyled(name, experiment.Bound, 0, y0)
		c.AddStyled(name, experiment.Bound, maxX, y1)
	}

	thr := experiment.NewPlot(title, "offered load (flits/cycle/node)", "accepted (flits/cycle/node)")
	var tc experiment.Curves
	for _, row := range r.Rows {
		tc.Add("accepted", false, row.Offered, row.Accepted)
	}
	bound(&tc, "offered", 0, maxX)
	bound(&tc, fmt.Sprintf("bisection bound %.3f", r.BisectionBound), r.BisectionBound, r.BisectionBound)
	if r.ChannelBound > 0 && math.Abs(r.ChannelBound-r.BisectionBound) > 1e-9 {
		bound(&tc, fmt.Sprintf("busiest channel %.3f", r.ChannelBound), r.ChannelBound, r.ChannelBound)
	}
	if err := tc.AddTo(thr); err != nil {
		return err
	}

	lat := experiment.NewPlot(fmt.Sprintf("zero-load %.0f ns", r.ZeroLoadNs), "offered load (flits/cycle/node)", "mean packet latency (ns)")
	var lc experiment.Curves
	for _, row := range r.Rows {
		lc.Add("latency", false, row.Offered, row.LatencyNs)
	}
	bound(&lc, "zero-load closed form", r.ZeroLoadNs, r.ZeroLoadNs)
	if err := lc.AddTo(lat); err != nil {
		return err
	}
	return experiment.SavePanels([]*plot.Plot{thr, lat}, 14*vg.Centimeter, 11*vg.Centimeter, file)
}
