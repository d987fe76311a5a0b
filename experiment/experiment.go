// Package experiment holds what the experiments share: sweep parts, plots, input errors, timelines.
package experiment

import "io"

// Part is one piece of a sweep: a configuration that runs alone, and how reports name it.
type Part[C any] struct {
	Label  string
	Config C
}

// Split cuts a sweep into one part per item: each a copy of cfg that narrow confines to its
// item, named by label.
func Split[C, T any](cfg C, items []T, label func(T) string, narrow func(*C, T)) []Part[C] {
	out := make([]Part[C], 0, len(items))
	for _, it := range items {
		c := cfg
		narrow(&c, it)
		out = append(out, Part[C]{Label: label(it), Config: c})
	}
	return out
}

// Table is a result the commands print: WriteTable for the terminal; --json and --out write
// the value itself as JSON (its struct tags, or its own MarshalJSON).
type Table interface {
	WriteTable(w io.Writer) error
}

// Figure is a Table that also draws itself for --plot, through plot.go (Curves, SavePanels).
type Figure interface {
	Table
	WritePlot(file string) error
}
