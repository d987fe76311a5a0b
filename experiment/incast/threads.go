package incast

// How many threads each of the experiment's runs takes (--threads): its machine on parts
// (netsim/machine's Spec.Parts), each receiver's receive path and host on its node's part,
// their events keyed with the node (lhsnic.Config.Keys), the same results on any number of
// parts, one included. What a machine on parts cannot carry runs on one thread, and a line
// says why.

import "github.com/lhsim/lhsim/experiment/net"

// whyTimeline is why a run takes one thread when more are asked (besides the topology's own
// limits).
const whyTimeline = "a timeline records the run on one thread"

// Threads is how many threads the runs of cfg take when cfg.Threads are asked, and why
// fewer: a timeline sees the whole machine from one thread; and the topology's limits (its
// parts, its lookahead). Every receive path runs on its node's part: the Go and
// transaction-level models, a Verilated model in this process (each stepped only by its
// part's goroutine, one at a time; the model keeps no state of the thread that calls it
// that its steps read), and a plugin process, which any thread may talk to.
func Threads(cfg Config) (int, string) {
	if cfg.Threads <= 1 {
		return 1, ""
	}
	if cfg.Timeline != nil {
		return 1, whyTimeline
	}
	topo := cfg.Topology.Fabric()
	if topo == nil {
		return 1, "" // refused by the run
	}
	return net.FitParts(cfg.Threads, topo, cfg.Fabric)
}
