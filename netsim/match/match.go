// Package match holds the message matchers of the packet network's receive path: each rank's
// posted-receive and unexpected-message queues (goal.Matcher), kept in MPI order with
// wildcards, and the time their searches take.
//
//   - list: the linked lists an MPI library keeps in host memory, searched by the host CPU
//     (gosim/hostcpu: caches, prefetcher, memory bus) running the paper's search loop;
//   - bins:K: hash bins on (source, tag) with sequence numbers for wildcards (Flajslik, Dinan
//     and Underwood, ISC 2016), each bin a list as above;
//   - alpu:N: an ALPU of N cells per queue (rtl/alpu.v; Underwood et al., IPDPS 2005) with a
//     software list behind it when it is full, on chosen nodes the Verilated RTL checked
//     cycle by cycle against the Go model;
//   - lhs: the LHS paper's receive path for the unexpected queue (NIC: the device's Go model,
//     on chosen nodes the Verilated RTL checked against it, with the host model running the
//     paper's search loop), posted receives in the host's list;
//   - lhs+alpu:N: LHS for the unexpected queue, an ALPU for posted receives.
//
// docs/matchers.md describes each and how to add one.
package match

import (
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// The sizes a matcher takes.
const (
	MaxBins  = 65536
	MaxCells = 1024
)

// Config is what every rank's matcher is built from.
type Config struct {
	// Host is the host processor that runs the software lists (the LHS paper's Pentium 4:
	// hostcpu.Pentium4).
	Host hostcpu.Config
	// Costs are the software's instructions (the caller sets them from the paper's search
	// loop: experiment.MatchCosts).
	Costs Costs
	// HWClockHz is the clock of the hardware matchers: 100 MHz, the clock of the LHS paper's FPGA
	// (section 5.1.1), at which the LHS RTL runs too (lhsnic.DefaultConfig).
	HWClockHz int64
	// RTLNodes run the hardware matcher's Verilated RTL beside its model (the ALPU of alpu:N
	// and lhs+alpu:N; the LHS receive path of lhs and lhs+alpu:N).
	RTLNodes []int
	// NIC is the LHS receive path of lhs and lhs+alpu:N (Model and LHS are set per node;
	// Entries is the Go model's LH buffer, LHSRTLEntries on RTL nodes).
	NIC NICConfig
	// lhsFault, in tests, is a fault in the Go model beside the LHS RTL.
	lhsFault func(e *goal.Entry)
}

// Stats are one rank's matching figures.
type Stats struct {
	// Ps[i] is how long step i took, QLen[i] the length of the queue it searched.
	Ps   []uint64
	QLen []int32
	// MaxPosted and MaxUnexpected are the longest the queues were.
	MaxPosted, MaxUnexpected int
	// Fallbacks are matches found in a software list behind a hardware one; Refills the
	// entries software moved back into hardware.
	Fallbacks, Refills int
	// Examined are the entries the searches examined, for a kind whose search walks entries
	// out of queue order (Kind.Walks: hash bins), where a match's depth is its position.
	Examined int
	// For the hardware lists' policies (Spec.Policies): the matches, those the hardware
	// served, the switches of a queue between hardware and software, and the simulated time
	// the queues spent in software (summed over both queues; a period still open at the end
	// counted to SWSinceLast, the start of the last one, per open queue).
	Matches, HWMatches, Switches int
	SWPs                         uint64
	SWOpen                       []uint64
	// Queues are the rank's hardware queues that follow a policy.
	Queues int
	// Found are the matches on both queues (a run that completes has one per receive);
	// NICMatches those the LHS receive path served from its LH buffer (lhs, lhs+alpu:N),
	// not from host memory after a spill.
	Found, NICMatches int
}

// Set makes the matchers of one run and keeps their statistics.
type Set struct {
	Spec  Spec
	cfg   Config
	units []*unit
}

// NewSet checks cfg for spec.
func NewSet(spec Spec, cfg Config) (*Set, error) {
	if err := cfg.Host.Validate(); err != nil {
		return nil, err
	}
	if cfg.HWClockHz <= 0 {
		return nil, fmt.Errorf("match: hardware clock %d Hz", cfg.HWClockHz)
	}
	if len(cfg.RTLNodes) > 0 && !spec.RTL() {
		return nil, fmt.Errorf("match: %s has no RTL: RTL nodes are for %s", spec, RTLUsage)
	}
	if spec.k() == nil {
		return nil, fmt.Errorf("match: no matcher %q", spec)
	}
	if spec.NIC() {
		if err := cfg.NIC.Host.Validate(); err != nil {
			return nil, fmt.Errorf("match: lhs's host: %w", err)
		}
		if cfg.NIC.Ranks < 1 {
			return nil, fmt.Errorf("match: lhs needs the communicator's size (NIC.Ranks)")
		}
	}
	spec.kind = spec.k()
	return &Set{Spec: spec, cfg: cfg}, nil
}

// Address space of a rank's lists (each rank has its own host).
const (
	postedBase     = 0x1_0000_0000
	unexpectedBase = 0x100_0000_0000
)

// New makes rank's matcher (a goal.NewMatcher).
func (s *Set) New(rank int) (goal.Matcher, error) {
	cpu, err := hostcpu.New(s.cfg.Host)
	if err != nil {
		return nil, err
	}
	u := &unit{cpu: cpu, cyclePs: uint64(1_000_000_000_000 / s.cfg.HWClockHz), rank: rank}
	posted, uq, err := s.Spec.kind.New(&build{set: s, u: u, spec: s.Spec, rank: rank, rtl: slices.Contains(s.cfg.RTLNodes, rank)})
	if err != nil {
		return nil, err
	}
	u.posted, u.uq = &timed{posted, u}, &timed{uq, u}
	s.units = append(s.units, u)
	return u, nil
}

// Stats are the ranks' figures, in the order their matchers were made (rank order).
func (s *Set) Stats() []*Stats {
	out := make([]*Stats, len(s.units))
	for i, u := range s.units {
		u.st.Fallbacks, u.st.Refills, u.st.Examined = u.fallbacks, u.refills, u.examined
		u.st.Matches, u.st.HWMatches, u.st.Switches, u.st.SWPs = u.matches, u.hwMatches, u.switches, u.swPs
		u.st.Queues = u.queues
		u.st.Found, u.st.NICMatches = u.found, u.nicMatches
		u.st.SWOpen = u.st.SWOpen[:0]
		for m, sw := range u.open {
			if sw {
				u.st.SWOpen = append(u.st.SWOpen, m.since)
			}
		}
		out[i] = &u.st
	}
	return out
}

// Walks says whether the matcher's searches walk entries out of queue order, so that its
// Stats.Examined is its own work and the depths are positions (Kind.Walks).
func (s *Set) Walks() bool { return s.Spec.kind.Walks }

// RTLSteps is how many queue operations ran on the RTL and were checked against the model.
func (s *Set) RTLSteps() int {
	n := 0
	for _, u := range s.units {
		n += u.rtlOps
		for _, r := range u.rtl {
			n += r.ops
		}
		for _, h := range u.hash {
			n += h.ops
		}
	}
	return n
}

// Close frees the RTL and the NICs; the error is the first a device reported on closing.
// Stats and RTLSteps stay valid; closing twice is harmless.
func (s *Set) Close() error {
	var err error
	for _, u := range s.units {
		u.closeRTL()
		if u.lhs != nil {
			if e := u.lhs.close(); err == nil && e != nil {
				err = fmt.Errorf("match: node %d's LHS receive path: %w", u.rank, e)
			}
			u.lhs = nil
		}
	}
	return err
}

// closeRTL frees the ALPU RTL models, keeping their counts (RTLSteps); closing twice is
// harmless.
func (u *unit) closeRTL() {
	for _, r := range u.rtl {
		r.close()
	}
	for _, h := range u.hash {
		h.close()
	}
}

// attachRTL gives each queue its Verilated ALPU.
func (u *unit) attachRTL(qs ...*alpuQueue) error {
	for _, q := range qs {
		r, err := newALPURTL(u.rank, q.cells)
		if err != nil {
			for _, r := range u.rtl {
				r.close()
			}
			u.rtl = nil
			return err
		}
		q.rtl = r
		u.rtl = append(u.rtl, r)
	}
	return nil
}

// unit is one rank's matcher.
type unit struct {
	cpu        *hostcpu.CPU
	posted, uq goal.Queue
	cyclePs    uint64
	hwPs       uint64 // hardware time of this step
	t0         int64
	now        uint64
	qlen       int
	rank       int
	err        error
	fallbacks  int
	refills    int
	examined   int // entries examined by searches that walk out of queue order (Kind.Walks)
	// The hardware queues' policies (mode): matches, those served by hardware, switches
	// between hardware and software, time in software (closed periods), and the queues
	// in software now.
	matches, hwMatches, switches int
	swPs                         uint64
	open                         map[*mode]bool
	queues                       int // hardware queues with a policy
	found, nicMatches            int // matches on both queues; those served from the LH buffer
	rtl                          []*alpuRTL
	hash                         []*hashPair // hash:K:N's matchers with the RTL beside the model
	rtlOps                       int         // LHS operations checked between the RTL and the Go model
	lhs                          *lhsQueue   // lhs, lhs+alpu:N
	st                           Stats
}

func (u *unit) Posted() goal.Queue     { return u.posted }
func (u *unit) Unexpected() goal.Queue { return u.uq }

func (u *unit) Begin(now uint64) {
	if d := int64(now) - u.cpu.Now(); d > 0 {
		u.cpu.Advance(d)
	}
	u.now, u.t0, u.hwPs, u.qlen = now, u.cpu.Now(), 0, 0
}

func (u *unit) End() (uint64, error) {
	d := uint64(u.cpu.Now()-u.t0) + u.hwPs
	u.st.Ps = append(u.st.Ps, d)
	u.st.QLen = append(u.st.QLen, int32(u.qlen))
	u.st.MaxPosted = max(u.st.MaxPosted, u.posted.Len())
	u.st.MaxUnexpected = max(u.st.MaxUnexpected, u.uq.Len())
	return d, u.err
}

func (u *unit) fail(err error) {
	if u.err == nil {
		u.err = err
	}
}

// timed notes the length of the queue a step searches.
type timed struct {
	goal.Queue
	u *unit
}

func (t *timed) Take(src, tag uint32) (goal.Entry, int, bool) {
	t.u.qlen = t.Queue.Len()
	e, depth, ok := t.Queue.Take(src, tag)
	if ok {
		t.u.found++
	}
	return e, depth, ok
}
