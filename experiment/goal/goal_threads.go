package goal

// How many threads a schedule's packet run takes (--threads): its machine on parts
// (netsim/machine's Spec.Parts), the same results on any number of them. What a machine on
// parts cannot carry runs on one thread, and a line says why.

import (
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
)

// Threads is how many threads the packet run of s with cfg takes when cfg.Threads are asked,
// and why fewer: a timeline (or a caller's Simulated) sees the run from one thread; a
// rendezvous send to another rank completes at the instant its receiver matches it, with no
// lookahead between parts; and the topology's own limits (its parts, its lookahead). An LHS
// receive path (--rtl-nodes, and so a waveform) and an RTL matcher run on their node's part,
// each Verilated model stepped only by that part's goroutine; a rank learns of a message its
// receive path took in an event at the time it was taken (lhsnic.Config.TakenAtTime).
func Threads(cfg Config, s *goal.Schedule) (int, string) {
	if cfg.Threads <= 1 || cfg.Network != "packet" {
		return 1, ""
	}
	switch {
	case cfg.Timeline != nil:
		return 1, "a timeline records the run on one thread"
	case cfg.Simulated != nil:
		return 1, "the simulated time's progress follows the run on one thread"
	}
	if err := goal.EagerAcross(s, cfg.LogGP.S); err != nil {
		return 1, err.Error() + ": one thread"
	}
	t := cfg.Topology
	if t.IsZero() {
		var err error
		if t, err = Topology(len(s.Ranks)); err != nil {
			return 1, "" // refused by the run
		}
	}
	return net.FitParts(cfg.Threads, t.Fabric(), cfg.Fabric)
}

// CellThreads is how many threads the cells of the study take when cfg.Threads are asked: the
// most any cell gets (Threads of its run), and why some get fewer (each reason once). The
// micro-benchmark (fig6) has no network and runs on one.
func (cfg MatchersConfig) CellThreads() (int, string) {
	best := 1
	var why []string
	for _, p := range cfg.Parts() {
		c := p.Config
		var s *goal.Schedule
		var err error
		switch {
		case c.Schedule != "":
			s, err = c.schedules.get(scheduleKey(c.Schedule), func() (*goal.Schedule, error) { return ReadSchedule(c.Schedule, 0) })
		case len(c.Workloads) == 1 && c.Workloads[0] != rx.Fig6Workload:
			s, err = c.schedules.get(c.Workloads[0], func() (*goal.Schedule, error) { return c.generate(c.Workloads[0]) })
		default:
			continue
		}
		if err != nil {
			continue // the run says why
		}
		gc := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Threads: cfg.Threads}
		got, w := Threads(gc, s)
		best = max(best, got)
		if w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	return best, strings.Join(why, "; ")
}
