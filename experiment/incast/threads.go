package incast

// How many threads each of the experiment's runs takes (--threads): its machine on parts
// (netsim/machine's Spec.Parts), each receiver's receive path and host on its node's part,
// their events keyed with the node (lhsnic.Config.Keys), the same results on any number of
// parts, one included. What a machine on parts cannot carry runs on one thread, and a line
// says why.

import (
	"slices"
	"strings"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/net"
)

// The reasons a run takes fewer threads than asked (besides the topology's own).
const (
	whyTimeline = "a timeline records the run on one thread"
	whyRTL      = "RTL runs on one thread (a Verilated model stays on the OS thread it was made on)"
)

// Threads is how many threads the runs of cfg take when cfg.Threads are asked: the most any
// run gets, and why some get fewer (each reason once).
func Threads(cfg Config) (int, string) {
	best := 1
	var why []string
	for _, k := range cfg.plan() {
		got, w := cfg.runThreads(cfg.runKinds(k))
		best = max(best, got)
		if w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	return best, strings.Join(why, "; ")
}

// runKinds is what each receiver runs in the run k of the plan ("on", "off", or a speed row's
// kind), as Run gives them to incastOnce.
func (cfg Config) runKinds(k string) []string {
	if k != "on" && k != "off" {
		return slices.Repeat([]string{k}, cfg.Receivers)
	}
	kind := nicRTL
	if cfg.Bridge == device.Plugin {
		kind = nicRTLPlugin
	}
	kinds := make([]string, cfg.Receivers)
	for r := range kinds {
		kinds[r] = cfg.Model
		if cfg.RTLNodes == nil || slices.Contains(cfg.RTLNodes, r) {
			kinds[r] = kind
		}
	}
	return kinds
}

// runThreads is how many threads a run whose receivers run kinds takes, and why fewer: a
// timeline sees the whole machine from one thread; a Verilated model in this process (an
// RTL receiver on the cgo bridge, so a waveform too) stays on the thread it was made on,
// which the parts' goroutines are not locked to (their ranks and hosts are coroutines that
// a failed run unwinds from the caller's); and the topology's limits (its parts, its
// lookahead). A receiver on the plugin bridge is a process of its own, which any thread may
// talk to.
func (cfg Config) runThreads(kinds []string) (int, string) {
	if cfg.Threads <= 1 {
		return 1, ""
	}
	switch {
	case cfg.Timeline != nil:
		return 1, whyTimeline
	case slices.Contains(kinds, nicRTL):
		return 1, whyRTL
	}
	topo := cfg.Topology.Fabric()
	if topo == nil {
		return 1, "" // refused by the run
	}
	return net.FitParts(cfg.Threads, topo, cfg.Fabric)
}
