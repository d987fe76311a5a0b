// Package experiment holds what the experiments share: sweep parts, plots, input errors, timelines.
package experiment

// Part is one piece of a sweep: a configuration that runs alone, and how reports name it.
type Part[C any] struct {
	Label  string
	Config C
}
