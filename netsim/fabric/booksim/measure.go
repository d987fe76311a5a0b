package booksim

// The terminals and the measurement of the booksim model: BookSim2's TrafficManager
// (src/trafficmanager.cpp) for one class, Bernoulli injection (injection.cpp) and its
// latency-mode simulation (_SingleSim, Run): warm-up periods, sample periods, the
// convergence test, the drain, and the statistics it prints.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Measure is BookSim2's measurement knobs (booksim_config.cpp defaults in DefaultMeasure).
type Measure struct {
	SamplePeriod  int64   // sample_period, cycles
	WarmupPeriods int     // warmup_periods
	MaxSamples    int     // max_samples
	LatencyThres  float64 // latency_thres: a mean latency above it ends the run as unstable
	// warmup_thres/acc_warmup_thres (unused with WarmupPeriods > 0) and
	// stopping_thres/acc_stopping_thres: relative change of latency and accepted rate
	// between sample periods below which a period counts towards convergence.
	WarmupThres, AccWarmupThres, StoppingThres, AccStoppingThres float64
	// DeadlockCycles: with flits in the network and none moving for this long, the run
	// ends as a deadlock (0: 1000).
	DeadlockCycles int64
	// WatchDeadlock: a run found unstable goes on, loaded, for MaxSamples sample periods
	// more to see whether it deadlocks (lhsim traffic --allow-deadlock).
	WatchDeadlock bool
}

// DefaultMeasure is BookSim2's defaults (booksim_config.cpp).
func DefaultMeasure() Measure {
	return Measure{SamplePeriod: 1000, WarmupPeriods: 3, MaxSamples: 10, LatencyThres: 500,
		WarmupThres: 0.05, AccWarmupThres: 0.05, StoppingThres: 0.05, AccStoppingThres: 0.05}
}

// Result is what BookSim2 prints at the end of a run, and how it ended.
type Result struct {
	Stable   bool   `json:"stable"`
	Deadlock bool   `json:"deadlock"`
	Why      string `json:"why,omitempty"`
	// Packet latency: creation (source queueing included) to the tail's ejection, cycles.
	PacketLatency, PacketLatencyMin, PacketLatencyMax float64
	// Network latency: the head's injection to the tail's ejection.
	NetworkLatency, NetworkLatencyMin, NetworkLatencyMax float64
	Injected, Accepted                                   float64 // flits/cycle/node over the measurement
	Hops                                                 float64 // routers crossed, mean
	Packets                                              int64   // measured packets
	Samples                                              int     // sample periods run
	Cycles                                               int64   // all cycles simulated
	FlitHops                                             int64   // flits moved over a channel, whole run
	// Busiest is the channels that carried the most flits while measuring.
	Busiest []fabric.LinkUse
	// Windows is the parts' windows (NewParts with more than one part; nil on one).
	Windows *netsim.WindowStats `json:"-"`
}

type stat struct {
	sum, min, max float64
	n             int64
}

func (s *stat) add(x float64) {
	if s.n == 0 || x < s.min {
		s.min = x
	}
	if s.n == 0 || x > s.max {
		s.max = x
	}
	s.sum += x
	s.n++
}

// merge adds o's samples to s. The samples are whole cycles, so the sums are exact and the
// order the parts are merged in changes nothing.
func (s *stat) merge(o stat) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	s.sum += o.sum
	s.n += o.n
}

func (s *stat) avg() float64 { return s.sum / float64(s.n) }

// tally is what one part's terminals counted: the statistics since they were last cleared,
// and the flits inside the network (those its nodes created less those its nodes
// ejected: a part's own may be negative, the sum never is).
type tally struct {
	plat, nlat, hops stat
	inFlight         int64 // flits
	inFlightCtime    int64 // sum of their creation cycles
	measured         int64 // recorded flits
}

const (
	simWarmingUp = iota
	simRunning
	simDraining
)

// terminal is one node's side of the TrafficManager.
type terminal struct {
	pkt      int32 // the packet being injected (_partial_packets), its id; -1 none
	sent     int32 // its flits sent
	vc       int16 // its VC
	lastVC   int16
	next     int64 // the next cycle the Bernoulli trial succeeds
	qtime    int64
	drained  bool
	hasEj    bool
	ejected  flit     // read this cycle, if hasEj
	buf      bufState // the first router's input buffer, as the terminal sees it
	accepted int64
	sentFl   int64
	rng      *rand.Rand // the node's own stream: its trials and its destinations
}

type sim struct {
	n       *Network
	pat     fabric.Pattern
	p       float64 // packets per cycle per node
	flits   int32
	m       Measure
	t       []terminal
	state   int
	drainAt int64
	resetAt int64
	empty   bool // _empty_network: no more injection
	cycle   func(p *part)

	// The parts' tallies, merged between windows.
	plat, nlat, hops stat
	inFlight         int64
	inFlightCtime    int64
	measured         int64

	movedAt          int64
	deadlock         bool
	samples          int
	outBase, injBase []int64 // link counters at the last clear
	outEnd, injEnd   []int64 // ... and when the measurement ended
}

// Run runs BookSim2's latency-mode simulation of Bernoulli traffic at load flits per cycle
// per node (injection_rate with injection_rate_uses_flits = 1) in packets of packetFlits
// flits, destinations from pat, on a fresh n.
func Run(n *Network, pat fabric.Pattern, load float64, packetFlits int, m Measure) (*Result, error) {
	s, err := newSim(n, pat, load, packetFlits, m)
	if err != nil {
		return nil, err
	}
	defer n.stopCrew()
	m = s.m
	stable := s.singleSim()
	res := &Result{Stable: stable, Deadlock: s.deadlock}
	if stable && !s.deadlock {
		// Run: drain what is left with no more injection.
		s.empty = true
		for s.inFlight > 0 && !s.deadlock {
			s.window(n.now + n.window)
		}
	}
	res.Deadlock = s.deadlock
	if s.deadlock {
		res.Stable = false
		res.Why = fmt.Sprintf("deadlock: %d flits in the network and none moved for %d cycles (at cycle %d)", s.inFlight, m.DeadlockCycles, n.now)
	} else if !stable {
		res.Why = fmt.Sprintf("unstable: mean latency above %.0f cycles (BookSim2's latency_thres)", m.LatencyThres)
	}
	res.PacketLatency, res.PacketLatencyMin, res.PacketLatencyMax = s.plat.avg(), s.plat.min, s.plat.max
	res.NetworkLatency, res.NetworkLatencyMin, res.NetworkLatencyMax = s.nlat.avg(), s.nlat.min, s.nlat.max
	res.Hops, res.Packets = s.hops.avg(), s.plat.n
	if s.state != simDraining { // ended while warming up, or by a deadlock
		s.endMeasure()
	}
	span := float64(s.drainAt - s.resetAt)
	var acc, snt int64
	for i := range s.t {
		acc += s.t[i].accepted
		snt += s.t[i].sentFl
	}
	nodes := float64(len(s.t))
	res.Accepted, res.Injected = float64(acc)/span/nodes, float64(snt)/span/nodes
	res.Cycles, res.FlitHops, res.Samples = n.now, n.moved(), s.samples
	res.Busiest = s.busiest(span, 3)
	res.Windows = n.stopCrew()
	return res, nil
}

// moved is the flits every part has moved across a switch or channel.
func (n *Network) moved() int64 {
	var m int64
	for _, p := range n.parts {
		m += p.moved
	}
	return m
}

// newSim is the terminals and the measurement of Run, before any cycle has run.
func newSim(n *Network, pat fabric.Pattern, load float64, packetFlits int, m Measure) (*sim, error) {
	if pat == nil {
		return nil, fmt.Errorf("booksim traffic: no pattern")
	}
	if packetFlits < 1 {
		return nil, fmt.Errorf("booksim traffic: %d-flit packets: want at least 1", packetFlits)
	}
	if !(load > 0) || math.IsInf(load, 0) {
		return nil, fmt.Errorf("booksim traffic: load %v must be positive", load)
	}
	if n.now != 0 {
		return nil, fmt.Errorf("booksim traffic: the network has already run")
	}
	s := newTerminals(n, packetFlits, m)
	s.pat, s.p = pat, load/float64(packetFlits)
	for i := range s.t {
		s.t[i].next = s.geom(&s.t[i], -1)
	}
	s.clearStats()
	return s, nil
}

// newTerminals is the terminals of n, idle.
func newTerminals(n *Network, flits int, m Measure) *sim {
	if m.DeadlockCycles <= 0 {
		m.DeadlockCycles = 1000
	}
	s := &sim{n: n, flits: int32(flits), m: m}
	s.cycle = s.step
	s.t = make([]terminal, n.topo.Nodes())
	for i := range s.t {
		s.t[i].lastVC, s.t[i].pkt = -1, -1
		s.t[i].buf = newBufState(n.v, n.cfg.BufferFlits)
		s.t[i].rng = stream(n.seed, streamNode, i)
	}
	return s
}

// geom is the next cycle after after whose Bernoulli trial succeeds at t (RandomFloat() <
// rate once a cycle, BernoulliInjectionProcess::test): after + 1 + a geometric number of
// failures.
func (s *sim) geom(t *terminal, after int64) int64 {
	if s.p >= 1 {
		return after + 1
	}
	u := 1 - t.rng.Float64()
	k := math.Floor(math.Log(u) / math.Log1p(-s.p))
	if k > 1e15 {
		k = 1e15
	}
	return after + 1 + int64(k)
}

func (s *sim) clearStats() {
	s.plat, s.nlat, s.hops = stat{}, stat{}, stat{}
	for _, p := range s.n.parts {
		p.acc.plat, p.acc.nlat, p.acc.hops = stat{}, stat{}, stat{}
	}
	for i := range s.t {
		s.t[i].accepted, s.t[i].sentFl = 0, 0
	}
	s.resetAt = s.n.now
	s.outBase = append(s.outBase[:0], s.n.outFlits...)
	s.injBase = append(s.injBase[:0], s.n.injFlits...)
}

// window runs every part to cycle end (at most a window on), merges their tallies and
// looks for a deadlock: flits inside and none moved for DeadlockCycles.
func (s *sim) window(end int64) {
	n := s.n
	start := n.now
	s.reserve()
	n.runWindow(end, s.cycle)
	s.plat, s.nlat, s.hops = stat{}, stat{}, stat{}
	s.inFlight, s.inFlightCtime, s.measured = 0, 0, 0
	last := int64(-1)
	for _, p := range n.parts {
		s.plat.merge(p.acc.plat)
		s.nlat.merge(p.acc.nlat)
		s.hops.merge(p.acc.hops)
		s.inFlight += p.acc.inFlight
		s.inFlightCtime += p.acc.inFlightCtime
		s.measured += p.acc.measured
		last = max(last, p.lastMove)
	}
	switch {
	case s.inFlight == 0:
		s.movedAt = end - 1
	case last >= start:
		s.movedAt = max(s.movedAt, last)
	}
	if end-1-s.movedAt >= s.m.DeadlockCycles {
		s.deadlock = true
	}
}

// advance runs windows up to cycle end, or to a deadlock.
func (s *sim) advance(end int64) {
	for s.n.now < end && !s.deadlock {
		s.window(min(end, s.n.now+s.n.window))
	}
}

// reserve gives every part free packet slots for the most packets its nodes can create in
// a window (one a node a cycle), so that no part's slab grows while another reads it.
func (s *sim) reserve() {
	for _, p := range s.n.parts {
		for need := len(p.nodes) * int(s.n.window); len(p.pktFree) < need; {
			p.pktFree = append(p.pktFree, int32(len(p.pkts)))
			p.pkts = append(p.pkts, packet{})
		}
	}
}

// pkt is packet id's part and record.
func (s *sim) pkt(id int32) (*part, *packet) {
	parts := int32(len(s.n.parts))
	o := s.n.parts[id%parts]
	return o, &o.pkts[id/parts]
}

// mean is the mean latency with the packets still inside counted at their age, as
// _SingleSim tests it against latency_thres.
func (s *sim) mean() float64 {
	now := float64(s.n.now)
	return (s.plat.sum + float64(s.inFlight)*now - float64(s.inFlightCtime)) / (float64(s.plat.n) + float64(s.inFlight))
}

// singleSim is TrafficManager::_SingleSim.
func (s *sim) singleSim() bool {
	n := s.n
	converged := 0
	var prevLat, prevAcc float64
	clearLast := false
	phases := 0
	for phases < s.m.MaxSamples && (s.state != simRunning || converged < 3) {
		if clearLast || s.state == simWarmingUp && phases%2 == 0 {
			clearLast = false
			s.clearStats()
		}
		s.advance(n.now + s.m.SamplePeriod)
		if s.deadlock {
			return false
		}
		curLat := s.plat.avg()
		var acc int64
		for i := range s.t {
			acc += s.t[i].accepted
		}
		curAcc := float64(acc) / float64(n.now-s.resetAt) / float64(len(s.t))
		latChange := math.Abs((curLat - prevLat) / curLat)
		accChange := math.Abs((curAcc - prevAcc) / curAcc)
		prevLat, prevAcc = curLat, curAcc
		if s.m.LatencyThres >= 0 && s.mean() > s.m.LatencyThres {
			// A network that has stopped moving is deadlocked, not merely slow: watch it
			// until that is certain (a live one moves flits every cycle).
			for s.inFlight > 0 && n.now-s.movedAt > 16 && !s.deadlock {
				s.window(n.now + n.window)
			}
			// Watching for a deadlock (--allow-deadlock): go on, loaded, for as long as
			// the whole measurement could have taken, and say whether it locked.
			if s.m.WatchDeadlock {
				s.advance(n.now + int64(s.m.MaxSamples)*s.m.SamplePeriod)
			}
			s.endMeasure()
			s.samples = phases + 1
			return false
		}
		latExc, accExc := false, false
		if s.state == simWarmingUp {
			latExc = s.m.WarmupThres >= 0 && latChange > s.m.WarmupThres
			accExc = s.m.AccWarmupThres >= 0 && accChange > s.m.AccWarmupThres
		} else if s.state == simRunning {
			latExc = s.m.StoppingThres >= 0 && latChange > s.m.StoppingThres
			accExc = s.m.AccStoppingThres >= 0 && accChange > s.m.AccStoppingThres
		}
		switch s.state {
		case simWarmingUp:
			if s.m.WarmupPeriods > 0 && phases+1 >= s.m.WarmupPeriods || s.m.WarmupPeriods <= 0 && !latExc && !accExc {
				clearLast = true
				s.state = simRunning
			}
		case simRunning:
			if !latExc && !accExc {
				converged++
			} else {
				converged = 0
			}
		}
		phases++
	}
	s.samples = phases
	if s.state != simRunning {
		return false // "Too many sample periods needed to converge"
	}
	converged++
	s.endMeasure()
	// The drain, its mean latency tested every 1000 cycles.
	for mark := n.now + 1000; s.outstanding(); {
		s.window(min(mark, n.now+n.window))
		if s.deadlock {
			return false
		}
		if n.now == mark {
			mark += 1000
			if s.m.LatencyThres >= 0 && s.mean() > s.m.LatencyThres {
				return false
			}
		}
	}
	return converged > 0
}

// endMeasure starts the drain: the end of the measured span.
func (s *sim) endMeasure() {
	s.state, s.drainAt = simDraining, s.n.now
	s.outEnd = append(s.outEnd[:0], s.n.outFlits...)
	s.injEnd = append(s.injEnd[:0], s.n.injFlits...)
}

// outstanding is _PacketsOutstanding: measured flits still inside, or a source whose
// queue has not yet caught up with the drain time.
func (s *sim) outstanding() bool {
	if s.measured > 0 {
		return true
	}
	for i := range s.t {
		if !s.t[i].drained {
			return true
		}
	}
	return false
}

// busiest is the k router output channels that carried the most flits while measuring.
func (s *sim) busiest(span float64, k int) []fabric.LinkUse {
	n := s.n
	type use struct {
		name  string
		flits int64
	}
	var all []use
	for g, c := range s.outEnd {
		if d := c - s.outBase[g]; d > 0 {
			r := n.outR[g]
			o := g - int(n.routers[r].outBase)
			var to string
			if dn := n.down[g]; dn < 0 {
				to = fmt.Sprintf("node %d", -1-dn)
			} else {
				to = fmt.Sprintf("router %d", n.inR[dn])
			}
			all = append(all, use{fmt.Sprintf("router %d port %d -> %s", r, o, to), d})
		}
	}
	// Injection channels carry what the sources offer: the cap is downstream of them.
	sort.SliceStable(all, func(i, j int) bool { return all[i].flits > all[j].flits })
	var out []fabric.LinkUse
	for i := 0; i < len(all) && i < k; i++ {
		out = append(out, fabric.LinkUse{Link: all[i].name, Utilisation: float64(all[i].flits) / span})
	}
	return out
}
