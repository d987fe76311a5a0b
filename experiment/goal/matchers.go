package goal

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/match"
)

// MatchCosts are the software lists' instructions: match.LoopCosts of the paper's search
// loop as compiled (mpi.SearchLoopO0).
func MatchCosts() match.Costs { return match.LoopCosts(mpi.SearchLoopO0) }

// MatchConfig is the matchers' configuration for a schedule of ranks ranks: the LHS paper's
// host and the 100 MHz FPGA clock; for lhs and lhs+alpu:N, the receive path of lhsim search's
// rig (the same device, driver, host model and search loop: TestMatchersGiveFigure6) with an
// LH buffer of LHSMatchEntries, on one communicator of the schedule's ranks.
func MatchConfig(spec match.Spec, rtlNodes []int, ranks int) match.Config {
	return match.Config{Host: hostcpu.Pentium4(), Costs: MatchCosts(), HWClockHz: 100_000_000, RTLNodes: rtlNodes,
		NIC: rx.DefaultSearch().MatchNIC(LHSMatchEntries, ranks)}
}

// LHSMatchEntries is the LH buffer of the lhs matcher (match.LHSEntries).
const LHSMatchEntries = match.LHSEntries

// MatchPoint is the mean matching time of the steps that searched a queue of Min to Max
// entries.
type MatchPoint struct {
	Min    int     `json:"queue_min"`
	Max    int     `json:"queue_max"`
	Steps  int     `json:"steps"`
	MeanNs float64 `json:"mean_ns"`
}

// MatchSummary is a run's matching figures over every rank.
type MatchSummary struct {
	Matcher string `json:"matcher"`
	// Steps are the matching steps: each arrival's search of the posted queue, each
	// receive's search of the unexpected queue.
	Steps         int     `json:"steps"`
	MeanNs        float64 `json:"mean_ns"`
	P99Ns         float64 `json:"p99_ns"`
	MaxPosted     int     `json:"max_posted"`
	MaxUnexpected int     `json:"max_unexpected"`
	Fallbacks     int     `json:"software_fallbacks"`
	Refills       int     `json:"back_to_hardware"`
	RTLChecked    int     `json:"rtl_checked_ops,omitempty"`
	// Examined are the entries the searches examined, for a matcher whose depths are
	// positions in the queue but whose searches walk other entries (bins:K's bins).
	Examined *int         `json:"entries_examined,omitempty"`
	ByQueue  []MatchPoint `json:"by_queue_length"`
	// Policy are the hardware lists' figures under their policy, for a matcher named with it
	// (alpu:256/onload, hash:64:1024/overflow).
	Policy *PolicySummary `json:"policy,omitempty"`
	// found are the matches on both queues, hwServed those the hardware served (the hardware
	// lists' and the LH buffer's), switches the hardware queues' moves between hardware and
	// software: the application workloads' figures (AppFigures).
	found, hwServed, switches int
}

// PolicySummary is where a run's hardware queues matched under their policy (simulated).
type PolicySummary struct {
	Policy string `json:"policy"`
	// Matches are the matches on the hardware queues, HWMatches those the hardware served.
	Matches   int     `json:"matches"`
	HWMatches int     `json:"hardware_matches"`
	HWShare   float64 `json:"hardware_share"`
	// Switches are a queue's moves between hardware and software, both ways, over all queues.
	Switches int `json:"switches"`
	// QueueUs is the queues' time (queues x end time), SoftwareUs the part of it queues spent
	// in software (entries behind a full list, or onloaded), HardwareUs the rest.
	QueueUs    float64 `json:"queue_us"`
	SoftwareUs float64 `json:"software_us"`
	HardwareUs float64 `json:"hardware_us"`
}

// summarizeMatch sums the ranks' figures of a run that ended at endPs.
func summarizeMatch(set *match.Set, endPs uint64) *MatchSummary {
	s := &MatchSummary{Matcher: set.Spec.String(), RTLChecked: set.RTLSteps()}
	if set.Spec.Policy != "" {
		p := &PolicySummary{Policy: string(set.Spec.Policy)}
		var sw, queues uint64
		for _, st := range set.Stats() {
			p.Matches += st.Matches
			p.HWMatches += st.HWMatches
			p.Switches += st.Switches
			sw += st.SWPs
			for _, since := range st.SWOpen {
				sw += endPs - min(since, endPs)
			}
			queues += uint64(st.Queues)
		}
		if p.Matches > 0 {
			p.HWShare = float64(p.HWMatches) / float64(p.Matches)
		}
		p.QueueUs = float64(queues*endPs) / 1e6
		p.SoftwareUs = float64(sw) / 1e6
		p.HardwareUs = p.QueueUs - p.SoftwareUs
		s.Policy = p
	}
	var all []uint64
	var sum float64
	buckets := map[int]*MatchPoint{}
	for _, st := range set.Stats() {
		all = append(all, st.Ps...)
		s.MaxPosted = max(s.MaxPosted, st.MaxPosted)
		s.MaxUnexpected = max(s.MaxUnexpected, st.MaxUnexpected)
		s.Fallbacks += st.Fallbacks
		s.Refills += st.Refills
		s.found += st.Found
		s.hwServed += st.HWMatches + st.NICMatches
		s.switches += st.Switches
		for i, ps := range st.Ps {
			sum += float64(ps)
			// Buckets of queue length 0, 1, 2-3, 4-7, ...
			b := bits.Len32(uint32(st.QLen[i]))
			p := buckets[b]
			if p == nil {
				p = &MatchPoint{}
				if b > 0 {
					p.Min, p.Max = 1<<(b-1), 1<<b-1
				}
				buckets[b] = p
			}
			p.Steps++
			p.MeanNs += float64(ps) / 1000
		}
	}
	if set.Walks() {
		n := 0
		for _, st := range set.Stats() {
			n += st.Examined
		}
		s.Examined = &n
	}
	s.Steps = len(all)
	if s.Steps == 0 {
		return s
	}
	s.MeanNs = sum / float64(s.Steps) / 1000
	slices.Sort(all)
	// The 99th percentile by the nearest rank.
	s.P99Ns = float64(all[(99*len(all)+99)/100-1]) / 1000
	for b := 0; b <= 32; b++ {
		if p := buckets[b]; p != nil {
			p.MeanNs /= float64(p.Steps)
			s.ByQueue = append(s.ByQueue, *p)
		}
	}
	return s
}

func (s *MatchSummary) String() string {
	return fmt.Sprintf("matcher %s: %d steps, %.1f ns mean, %.1f ns p99; longest posted %d, unexpected %d; %d matches fell back to software, %d entries back to hardware",
		s.Matcher, s.Steps, s.MeanNs, s.P99Ns, s.MaxPosted, s.MaxUnexpected, s.Fallbacks, s.Refills)
}
