package fabric

// The terminals and the measurement of the booksim model: BookSim2's TrafficManager
// (src/trafficmanager.cpp) for one class, Bernoulli injection (injection.cpp) and its
// latency-mode simulation (_SingleSim, Run): warm-up periods, sample periods, the
// convergence test, the drain, and the statistics it prints.

import (
	"fmt"
	"math"
	"sort"
)

// IQMeasure is BookSim2's measurement knobs (booksim_config.cpp defaults in DefaultIQMeasure).
type IQMeasure struct {
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

// DefaultIQMeasure is BookSim2's defaults (booksim_config.cpp).
func DefaultIQMeasure() IQMeasure {
	return IQMeasure{SamplePeriod: 1000, WarmupPeriods: 3, MaxSamples: 10, LatencyThres: 500,
		WarmupThres: 0.05, AccWarmupThres: 0.05, StoppingThres: 0.05, AccStoppingThres: 0.05}
}

// LinkUse is a channel and the share of cycles it carried a flit.
type LinkUse struct {
	Link        string  `json:"link"`
	Utilisation float64 `json:"utilisation"` // flits per cycle over the measurement
}

// IQResult is what BookSim2 prints at the end of a run, and how it ended.
type IQResult struct {
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
	Busiest []LinkUse
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
func (s *stat) avg() float64 { return s.sum / float64(s.n) }

const (
	simWarmingUp = iota
	simRunning
	simDraining
)

// iqTerminal is one node's side of the TrafficManager.
type iqTerminal struct {
	pkt      int32 // the packet being injected (_partial_packets), an index into iqSim.pkts; -1 none
	sent     int32 // its flits sent
	vc       int16 // its VC
	next     int64 // the next cycle the Bernoulli trial succeeds
	qtime    int64
	drained  bool
	lastVC   int16
	buf      bufState // the first router's input buffer, as the terminal sees it
	ejected  iqFlit   // read this cycle, if hasEj
	hasEj    bool
	accepted int64
	sentFl   int64
}

type iqSim struct {
	n       *IQNet
	pat     Pattern
	p       float64 // packets per cycle per node
	flits   int32
	m       IQMeasure
	t       []iqTerminal
	state   int
	drainAt int64
	resetAt int64
	empty   bool // _empty_network: no more injection

	plat, nlat, hops stat
	inFlight         int64 // flits created and not ejected
	inFlightCtime    float64
	measured         int64 // recorded flits not yet ejected
	lastMove         int64
	movedAt          int64
	deadlock         bool
	samples          int
	outBase, injBase []int64    // link counters at the last clear
	outEnd, injEnd   []int64    // ... and when the measurement ended
	pkts             []iqPacket // the packets, created and not yet ejected, and free slots
	pktFree          []int32    // the free slots of pkts
}

// RunIQ runs BookSim2's latency-mode simulation of Bernoulli traffic at load flits per
// cycle per node (injection_rate with injection_rate_uses_flits = 1) in packets of
// packetFlits flits, destinations from pat, on a fresh n.
func RunIQ(n *IQNet, pat Pattern, load float64, packetFlits int, m IQMeasure) (*IQResult, error) {
	s, err := newIQSim(n, pat, load, packetFlits, m)
	if err != nil {
		return nil, err
	}
	m = s.m
	stable := s.singleSim()
	res := &IQResult{Stable: stable, Deadlock: s.deadlock}
	if stable && !s.deadlock {
		// Run: drain what is left with no more injection.
		s.empty = true
		for s.inFlight > 0 && !s.deadlock {
			s.step()
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
	res.Cycles, res.FlitHops, res.Samples = n.now, n.moved, s.samples
	res.Busiest = s.busiest(span, 3)
	return res, nil
}

// newIQSim is the terminals and the measurement of RunIQ, before any cycle has run.
func newIQSim(n *IQNet, pat Pattern, load float64, packetFlits int, m IQMeasure) (*iqSim, error) {
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
	if m.DeadlockCycles <= 0 {
		m.DeadlockCycles = 1000
	}
	s := &iqSim{n: n, pat: pat, p: load / float64(packetFlits), flits: int32(packetFlits), m: m}
	s.t = make([]iqTerminal, n.topo.Nodes())
	for i := range s.t {
		s.t[i].lastVC, s.t[i].pkt = -1, -1
		s.t[i].buf = newBufState(n.v, n.cfg.BufferFlits)
		s.t[i].next = s.geom(-1)
	}
	s.clearStats()
	return s, nil
}

// geom is the next cycle after after whose Bernoulli trial succeeds (RandomFloat() < rate
// once a cycle, BernoulliInjectionProcess::test): after + 1 + a geometric number of failures.
func (s *iqSim) geom(after int64) int64 {
	if s.p >= 1 {
		return after + 1
	}
	u := 1 - s.n.rng.Float64()
	k := math.Floor(math.Log(u) / math.Log1p(-s.p))
	if k > 1e15 {
		k = 1e15
	}
	return after + 1 + int64(k)
}

func (s *iqSim) clearStats() {
	s.plat, s.nlat, s.hops = stat{}, stat{}, stat{}
	for i := range s.t {
		s.t[i].accepted, s.t[i].sentFl = 0, 0
	}
	s.resetAt = s.n.now
	s.outBase = append(s.outBase[:0], s.n.outFlits...)
	s.injBase = append(s.injBase[:0], s.n.injFlits...)
}

// singleSim is TrafficManager::_SingleSim.
func (s *iqSim) singleSim() bool {
	converged := 0
	var prevLat, prevAcc float64
	clearLast := false
	phases := 0
	for phases < s.m.MaxSamples && (s.state != simRunning || converged < 3) {
		if clearLast || s.state == simWarmingUp && phases%2 == 0 {
			clearLast = false
			s.clearStats()
		}
		for range s.m.SamplePeriod {
			s.step()
			if s.deadlock {
				return false
			}
		}
		curLat := s.plat.avg()
		var acc int64
		for i := range s.t {
			acc += s.t[i].accepted
		}
		curAcc := float64(acc) / float64(s.n.now-s.resetAt) / float64(len(s.t))
		latChange := math.Abs((curLat - prevLat) / curLat)
		accChange := math.Abs((curAcc - prevAcc) / curAcc)
		prevLat, prevAcc = curLat, curAcc
		lat := (s.plat.sum + float64(s.inFlight)*float64(s.n.now) - s.inFlightCtime) / (float64(s.plat.n) + float64(s.inFlight))
		if s.m.LatencyThres >= 0 && lat > s.m.LatencyThres {
			// A network that has stopped moving is deadlocked, not merely slow: watch it
			// until that is certain (a live one moves flits every cycle).
			for s.inFlight > 0 && s.n.now-s.movedAt > 16 && !s.deadlock {
				s.step()
			}
			// Watching for a deadlock (--allow-deadlock): go on, loaded, for as long as
			// the whole measurement could have taken, and say whether it locked.
			for end := s.n.now + int64(s.m.MaxSamples)*s.m.SamplePeriod; s.m.WatchDeadlock && s.n.now < end && !s.deadlock; {
				s.step()
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
	steps := 0
	for s.outstanding() {
		s.step()
		if s.deadlock {
			return false
		}
		if steps++; steps%1000 == 0 && s.m.LatencyThres >= 0 {
			lat := (s.plat.sum + float64(s.inFlight)*float64(s.n.now) - s.inFlightCtime) / (float64(s.plat.n) + float64(s.inFlight))
			if lat > s.m.LatencyThres {
				return false
			}
		}
	}
	return converged > 0
}

// endMeasure starts the drain: the end of the measured span.
func (s *iqSim) endMeasure() {
	s.state, s.drainAt = simDraining, s.n.now
	s.outEnd = append(s.outEnd[:0], s.n.outFlits...)
	s.injEnd = append(s.injEnd[:0], s.n.injFlits...)
}

// outstanding is _PacketsOutstanding: measured flits still inside, or a source whose
// queue has not yet caught up with the drain time.
func (s *iqSim) outstanding() bool {
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

// step is TrafficManager::_Step.
func (s *iqSim) step() {
	n := s.n
	moved0 := n.moved
	n.readInputs(func(node int, f *iqFlit) {
		t := &s.t[node]
		t.ejected, t.hasEj = *f, true
		if s.state == simWarmingUp || s.state == simRunning {
			t.accepted++
		}
	}, func(node, vc int) {
		s.t[node].buf.occ[vc]--
	})
	if !s.empty {
		s.inject()
	}
	now := n.now
	for node := range s.t {
		t := &s.t[node]
		// The terminal's send: the flit at the head of the packet being injected.
		if t.pkt >= 0 {
			p := &s.pkts[t.pkt]
			head := t.sent == 0
			if head && t.vc < 0 {
				// "Find first available VC": round-robin from the last one used.
				cnt := n.v
				for i := 1; i <= cnt; i++ {
					vc := 0
					if t.lastVC >= 0 && int(t.lastVC) < cnt {
						vc = (int(t.lastVC) + i) % cnt
					}
					if t.buf.available(vc) && !t.buf.full(vc) {
						t.vc = int16(vc)
						break
					}
				}
			}
			if t.vc >= 0 && !t.buf.full(int(t.vc)) {
				tail := t.sent == p.flits-1
				e := n.slot(&n.nodeFlitTo[node])
				e.iqDest = n.nodeFlitTo[node]
				e.f = iqFlit{}
				f := &e.f
				f.pkt, f.dst, f.vc = t.pkt, p.dst, int8(t.vc)
				if head {
					f.flags |= flitHead
				}
				if tail {
					f.flags |= flitTail
				}
				if head {
					t.buf.inUse[t.vc] = int32(node) // TakeBuffer
					t.lastVC = t.vc
					p.itime = now
				}
				t.buf.sending(t.vc, tail)
				if s.state == simWarmingUp || s.state == simRunning {
					t.sentFl++
				}
				t.sent++
				if t.sent == p.flits {
					t.pkt = -1
				}
				n.injFlits[node]++
				n.moved++
			}
		}
	}
	for node := range s.t {
		t := &s.t[node]
		if !t.hasEj {
			continue
		}
		f := t.ejected
		t.hasEj = false
		n.sendCredit(&n.nodeCredTo[node], int16(f.vc))
		s.retire(f, now)
	}
	n.evaluate()
	if n.moved != moved0 || s.inFlight == 0 {
		s.movedAt = now
	} else if now-s.movedAt >= s.m.DeadlockCycles {
		s.deadlock = true
	}
	n.now++
}

// inject is TrafficManager::_Inject: a source with no packet in hand creates the next one,
// dated the cycle its Bernoulli trial succeeded (include_queuing = 1).
func (s *iqSim) inject() {
	now := s.n.now
	for node := range s.t {
		t := &s.t[node]
		if t.pkt >= 0 {
			continue
		}
		if t.next <= now {
			ct := t.next
			pi := s.newPacket()
			p := &s.pkts[pi]
			*p = iqPacket{src: int32(node), dst: int32(s.pat.Dest(node, s.n.rng)), flits: s.flits, ctime: ct}
			p.record = s.state == simRunning || s.state == simDraining && ct < s.drainAt
			t.pkt, t.sent, t.vc = pi, 0, -1
			s.inFlight += int64(p.flits)
			s.inFlightCtime += float64(p.flits) * float64(ct)
			if p.record {
				s.measured += int64(p.flits)
			}
			t.qtime = ct + 1
			t.next = s.geom(ct)
		} else {
			t.qtime = now + 1
		}
		if s.state == simDraining && t.qtime > s.drainAt {
			t.drained = true
		}
	}
}

// retire is _RetireFlit: a packet's statistics when its tail is out.
func (s *iqSim) retire(f iqFlit, now int64) {
	p := &s.pkts[f.pkt]
	s.inFlight--
	s.inFlightCtime -= float64(p.ctime)
	if p.record {
		s.measured--
	}
	if f.head() {
		p.hops = int32(f.hops)
	}
	if !f.tail() {
		return
	}
	if s.state == simWarmingUp || p.record {
		s.hops.add(float64(p.hops))
		s.plat.add(float64(now - p.ctime))
		s.nlat.add(float64(now - p.itime))
	}
	// Every flit of it is out (wormhole keeps a packet's flits in order).
	s.pktFree = append(s.pktFree, f.pkt)
}

// newPacket is a free slot of pkts, so that a long run allocates only while the number
// inside grows.
func (s *iqSim) newPacket() int32 {
	if k := len(s.pktFree); k > 0 {
		p := s.pktFree[k-1]
		s.pktFree = s.pktFree[:k-1]
		return p
	}
	s.pkts = append(s.pkts, iqPacket{})
	return int32(len(s.pkts) - 1)
}

// busiest is the k router output channels that carried the most flits while measuring.
func (s *iqSim) busiest(span float64, k int) []LinkUse {
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
	var out []LinkUse
	for i := 0; i < len(all) && i < k; i++ {
		out = append(out, LinkUse{all[i].name, float64(all[i].flits) / span})
	}
	return out
}
