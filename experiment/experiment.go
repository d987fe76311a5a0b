// Package experiment holds what the experiments (rx, net, incast, ib, mbcf, goal) share: sweeps cut into parts, plots, input errors, timelines.
package experiment

// Part is one piece of a sweep: a configuration that runs alone, and how reports name it.
type Part[C any] struct {
	Label  string
	Config C
}
