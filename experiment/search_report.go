package experiment

// Output of the search experiment: the tables, the JSON and the plot (the paper's Figure 6).

import (
	"encoding/json"
	"fmt"
	"io"
	"unsafe"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot/plotter"
)

// newSearchTable is a table whose headers are printed as written ("QsNET-II", not "QS NET - II").
func newSearchTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// WriteJSON writes the result, indented.
func (r *SearchResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func fmt1(v float64) string { return fmt.Sprintf("%.1f", v) }

// WriteTable prints the per-depth times, the slopes against the paper, and the ablation.
func (r *SearchResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Unexpected-queue search time, device model %q (ns; target at depth X)\n", r.Model)
	t := newSearchTable(w)
	t.Header("depth", "no LHS", "LHS", "QsNET-II", "LHS first search")
	for i, d := range r.Depths {
		if err := t.Append(fmt.Sprint(d), fmt1(r.Series[CurveNoLHS][i]), fmt1(r.Series[CurveLHS][i]),
			fmt1(r.Series[CurveQsNet2][i]), fmt1(r.Series[CurveLHSCold][i])); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPer-message search time (least-squares slope) against the paper (5.1.3): %s loop, %d instructions\n",
		r.Inputs.Loop, r.Inputs.LoopInstrPerMessage)
	fmt.Fprintf(w, "per entry (four fields compared) at CPI %.2g; source: simulated (device + host model), input (a parameter restated),\n", r.Inputs.CPI)
	fmt.Fprintln(w, "derived (a ratio of the others)")
	t = newSearchTable(w)
	t.Header("", "lhsim", "paper", "lhsim/paper", "source")
	rows := []struct {
		name       string
		got, paper float64
		digits     int
		source     string
	}{
		{"no LHS (ns/message)", r.PerMessageNs[CurveNoLHS], PaperNoLHSNs, 2, SourceSimulated},
		{"LHS, repeated search (ns/message)", r.PerMessageNs[CurveLHS], PaperLHSNs, 2, SourceSimulated},
		{"LHS, first search (ns/message)", r.PerMessageNs[CurveLHSCold], 0, 2, SourceSimulated},
		{"QsNET-II (ns/message)", r.PerMessageNs[CurveQsNet2], PaperQsNet2Ns, 2, SourceInput + " (the paper's figure)"},
		{"speedup LHS vs no LHS", r.SpeedupLHSvsNoLHS, PaperSpeedup, 2, SourceDerived},
		{"speedup LHS vs QsNET-II", r.SpeedupLHSvsQsNet2, PaperVsQsNet2, 2, SourceDerived},
		{"speedup LHS first search vs no LHS", r.SpeedupLHSColdvsNoLHS, 0, 2, SourceDerived},
		{"16-byte VL as the host sees it (ns)", r.VL.HostVisibleNsEach, PaperVLNs, 0, SourceSimulated},
		{"SO-DIMM read latency (device cycles)", float64(r.Inputs.SODIMMReadLatencyCycles), 0, 0, SourceInput + " (set from the ~600 ns VL)"},
	}
	for _, row := range rows {
		paper, vs := "n/a", ""
		if row.paper > 0 {
			paper, vs = fmt.Sprintf("%.1f", row.paper), fmt.Sprintf("%.2f", row.got/row.paper)
		}
		if row.name == "16-byte VL as the host sees it (ns)" {
			paper = "about 600"
		}
		if err := t.Append(row.name, fmt.Sprintf("%.*f", row.digits, row.got), paper, vs, row.source); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "LHS headline = the repeated search: the paper repeated the search (5.1.2), and its 14.8 ns per 64-byte entry is")
	fmt.Fprintln(w, "faster than a PC1600 slot can deliver a line (40 ns), so its entries were in the cache.")
	fmt.Fprintf(w, "16-byte VL: %.1f device cycles (%.0f ns) from the VEC_CMD write to DONE in VEC_STATUS; %.0f ns as the host sees it\n",
		r.VL.DeviceCyclesEach, r.VL.DeviceNsEach, r.VL.HostVisibleNsEach)

	fmt.Fprintln(w, "\nThe search loop compiled (experiment/searchloop/search_loop.c), ns per message")
	t = newSearchTable(w)
	t.Header("loop", "instructions per entry", "no LHS", "LHS repeated", "LHS first search", "LHS vs no LHS", "LHS vs QsNET-II")
	for _, l := range r.Loops {
		if err := t.Append(l.Loop, fmt.Sprint(l.InstrPerMessage), fmt.Sprintf("%.2f", l.NoLHSNs), fmt.Sprintf("%.2f", l.LHSNs),
			fmt.Sprintf("%.2f", l.LHSColdNs), fmt.Sprintf("%.1f", l.SpeedupLHSvsNoLHS), fmt.Sprintf("%.2f", l.SpeedupLHSvsQsNet2)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "headline: -O0, as the paper compiled (gcc 3.3.5 with -Wall only, 5.1.1)")
	fmt.Fprintln(w, "\nAblation: where the speedup comes from")
	t = newSearchTable(w)
	t.Header("curve", "what", "ns/message", "x LHS")
	for _, a := range r.Ablation {
		if err := t.Append(a.Key, a.What, fmt.Sprintf("%.2f", a.PerMessageNs), fmt.Sprintf("%.1f", a.VsLHS)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "memory structure (no LHS / LHS without prefetch, first search): %.1fx   (paper: about 6x)\n", r.Factors["memory_structure"])
	fmt.Fprintf(w, "caching and prefetch (LHS without prefetch / LHS repeated):     %.1fx   (paper: about 7x)\n", r.Factors["caching_prefetch"])
	fmt.Fprintf(w, "  of which prefetch on a first search: %.1fx, cache reuse on a repeated search: %.1fx\n", r.Factors["prefetch_cold"], r.Factors["cache_reuse"])
	fmt.Fprintf(w, "out-of-order overlap of the loads (LHS repeated, in-order core / out-of-order): %.1fx\n", r.Factors["out_of_order"])
	if r.Native != nil {
		fmt.Fprintln(w)
		return r.Native.WriteTable(w)
	}
	return nil
}

// WritePlot draws the paper's Figure 6: search time against depth for the three designs.
// The format follows the file's extension (.svg or .png).
func (r *SearchResult) WritePlot(file string) error {
	if err := CheckPlotFile(file); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	p := linearPlot("Unexpected-queue search time (cf. paper Figure 6)", "depth of the matching message in the unexpected queue", "search time (µs)")
	var c curves
	for _, k := range []struct{ key, name string }{
		{CurveNoLHS, fmt.Sprintf("no LHS (%.0f ns/msg)", r.PerMessageNs[CurveNoLHS])},
		{CurveQsNet2, fmt.Sprintf("QsNET-II (%.0f ns/msg, input: the paper's figure)", r.PerMessageNs[CurveQsNet2])},
		{CurveLHSCold, fmt.Sprintf("LHS, first search (%.1f ns/msg)", r.PerMessageNs[CurveLHSCold])},
		{CurveLHS, fmt.Sprintf("LHS, repeated search (%.1f ns/msg)", r.PerMessageNs[CurveLHS])},
	} {
		pts := make(plotter.XYs, len(r.Depths))
		for j, d := range r.Depths {
			pts[j].X, pts[j].Y = float64(d), r.Series[k.key][j]/1000
		}
		c.set(k.name, styleMarked, -1, pts)
	}
	return c.draw(p, file)
}

// WriteTable prints the native figures.
func (n *SearchNativeResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Native search on this machine (%s), ns per queued message\n", n.CPU)
	t := newSearchTable(w)
	t.Header("messages", "entry array", "contiguous 64-B entries", "list scattered in 16x pool", "list / contiguous")
	for _, r := range n.Rows {
		if err := t.Append(fmt.Sprint(r.Messages), fmt.Sprintf("%d KiB", r.Messages*int(unsafe.Sizeof(searchEntry{}))>>10),
			fmt.Sprintf("%.2f", r.ArrayNsPerMsg), fmt.Sprintf("%.2f", r.ListNsPerMsg), fmt.Sprintf("%.1f", r.Ratio)); err != nil {
			return err
		}
	}
	return t.Render()
}
