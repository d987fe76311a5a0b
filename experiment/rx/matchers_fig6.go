package rx

import (
	"fmt"
	"io"
	"slices"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/netsim/match"
)

// Fig6Workload is the name of the LHS paper's micro-benchmark among lhsim matchers'
// workloads.
const Fig6Workload = "fig6"

// Fig6Matchers are the matchers the micro-benchmark has a set-up for: the paper's node is
// DIMMnet-2, whose messages land in NIC memory; list is the MPI library's list walked there
// by VL (Fig. 6's "no LHS"), lhs the LHS receive path (its "LHS").
var Fig6Matchers = []string{"list", "lhs"}

// MatcherFig6 is one matcher on the micro-benchmark: the search time at each depth (x
// messages ahead of the target) on its first search and, repeated at once as the paper
// did (5.1.2), on the second; and their least-squares slopes, ns per message.
type MatcherFig6 struct {
	Matcher          string    `json:"matcher"`
	Depths           []int     `json:"depths"`
	FirstNs          []float64 `json:"first_ns"`
	RepeatedNs       []float64 `json:"repeated_ns,omitempty"`
	FirstPerMsgNs    float64   `json:"first_ns_per_message"`
	RepeatedPerMsgNs float64   `json:"repeated_ns_per_message,omitempty"`
}

// fig6NIC is the matcher's unexpected queue on the micro-benchmark's node.
func fig6NIC(spec match.Spec, cfg SearchConfig, entries int) (*match.NIC, error) {
	if !slices.Contains(Fig6Matchers, spec.String()) {
		return nil, fmt.Errorf("matchers: %s has no set-up on the %s micro-benchmark (it has: %v)", spec, Fig6Workload, Fig6Matchers)
	}
	lhs := spec.NIC()
	if !lhs {
		entries = 1024 // the tail ring holds the messages; the LH buffer is not used
	}
	nc := cfg.MatchNIC(entries, searchSource+1)
	nc.Model, nc.LHS = cfg.Model, lhs
	return match.OpenNIC(nc)
}

// MatchNIC is the rig's receive path (its device, driver, host model and search loop) as a
// matcher's, with an LH buffer of entries, on one communicator of ranks ranks.
func (cfg SearchConfig) MatchNIC(entries, ranks int) match.NICConfig {
	return match.NICConfig{Entries: entries, Host: cfg.CPU, Driver: cfg.Driver, Costs: cfg.Loop.Costs(), Seed: cfg.Seed,
		Comm: searchComm, Ranks: ranks}
}

// RunMatcherFig6 runs the LHS paper's micro-benchmark (lhsim search's set-up: cfg's device,
// host, loop, seed and depths) on a matcher's unexpected queue: at each depth x messages from
// the target's source with other tags arrive, then the target; the matcher searches for it
// twice (list once: the rig's
// no-LHS curve is one search per depth); then every message is received. The lhs matcher starts each depth with a fresh host
// (cold caches), as the rig does for each LHS depth; list keeps its host throughout.
func RunMatcherFig6(m string, cfg SearchConfig) (*MatcherFig6, error) {
	spec, err := match.Parse(m)
	if err != nil {
		return nil, err
	}
	depths, entries, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	n, err := fig6NIC(spec, cfg, entries)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	r := &MatcherFig6{Matcher: m, Depths: depths}
	rng := newSearchRNG(cfg.Seed)
	for _, x := range depths {
		if spec.NIC() {
			if err := n.FreshHost(); err != nil {
				return nil, err
			}
		}
		for i := 0; i < x; i++ {
			if _, err := n.Arrive(searchSource, int32(rng.IntN(searchTargetTag))); err != nil {
				return nil, err
			}
		}
		if _, err := n.Arrive(searchSource, searchTargetTag); err != nil {
			return nil, err
		}
		passes := 1 // the rig searches the list once per depth
		if spec.NIC() {
			passes = 2
		}
		for pass := 0; pass < passes; pass++ {
			_, d, ok, ps, err := n.Search(searchSource, searchTargetTag)
			if err != nil {
				return nil, err
			}
			if !ok || d != x {
				return nil, fmt.Errorf("matchers: %s on %s, depth %d: target found=%v at %d", m, Fig6Workload, x, ok, d)
			}
			if pass == 0 {
				r.FirstNs = append(r.FirstNs, psToNs(ps))
			} else {
				r.RepeatedNs = append(r.RepeatedNs, psToNs(ps))
			}
		}
		if err := n.Drain(); err != nil {
			return nil, err
		}
	}
	r.FirstPerMsgNs, _ = fitSearchLine(depths, r.FirstNs)
	if len(r.RepeatedNs) > 0 {
		r.RepeatedPerMsgNs, _ = fitSearchLine(depths, r.RepeatedNs)
	}
	return r, nil
}

// WriteFig6Table prints the matchers' slopes beside the rig's curves they reproduce.
func WriteFig6Table(w io.Writer, rs []*MatcherFig6) error {
	fmt.Fprintln(w, "matchers on the LHS paper's micro-benchmark (Fig. 6), ns per message: least-squares slope over the depths (simulated,")
	fmt.Fprintln(w, "lhsim search's device, host model and loop; list: its messages in NIC memory, read by VL)")
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("matcher", "first search", "repeated search", "its curves in lhsim search", "paper (input)")
	for _, r := range rs {
		curve, paper, rep := "no LHS", "634 (no LHS)", "-"
		if r.RepeatedNs != nil {
			curve, paper, rep = "LHS first search, LHS repeated search", "14.8 (repeated)", fmt.Sprintf("%.2f", r.RepeatedPerMsgNs)
		}
		if err := t.Append(r.Matcher, fmt.Sprintf("%.2f", r.FirstPerMsgNs), rep, curve, paper); err != nil {
			return err
		}
	}
	return t.Render()
}
