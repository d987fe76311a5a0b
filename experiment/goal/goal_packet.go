package goal

import (
	"fmt"
	"math"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/machine"
	"github.com/lhsim/lhsim/netsim/match"
	"github.com/lhsim/lhsim/netsim/timeline"
)

func matcherNote(cfg Config) string {
	if cfg.Matcher == "" {
		return ""
	}
	n := ", matcher " + cfg.Matcher
	if len(cfg.MatcherRTLNodes) > 0 {
		n += fmt.Sprintf(" (RTL on nodes %s)", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(cfg.MatcherRTLNodes)), ","), "[]"))
	}
	return n
}

func rtlNote(nodes []int) string {
	if len(nodes) == 0 {
		return ""
	}
	return fmt.Sprintf(", LHS RTL receive path on nodes %s", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(nodes)), ","), "[]"))
}

// Topology is the machine a schedule of n ranks runs on without --topology: a crossbar
// of n nodes up to 64, else the smallest torus X×Y×Z (X ≥ Y ≥ Z, as near a cube as it goes)
// of at least n nodes. It is built, not parsed: the user named none.
func Topology(n int) (experiment.Topology, error) {
	if n <= 64 {
		x, err := fabric.NewCrossbar(max(n, 2))
		if err != nil {
			return experiment.Topology{}, err
		}
		return experiment.TopologyOf(x), nil
	}
	z := int(math.Floor(math.Cbrt(float64(n))))
	for z > 1 && z*z*z > n {
		z--
	}
	y := z
	for y*y*z < n && y*(y+1)*z < n {
		y++
	}
	x := (n + y*z - 1) / (y * z)
	for x < y {
		x, y = y, x
	}
	t, err := fabric.NewTorus(x, y, z)
	if err != nil {
		return experiment.Topology{}, err // a schedule too large for any network
	}
	return experiment.TopologyOf(t), nil
}

func runGoalPacket(cfg Config, s *goal.Schedule) (*Result, error) {
	spec, err := packetMachine(&cfg, s)
	if err != nil {
		return nil, err
	}
	m, err := machine.Build(spec)
	if err != nil {
		return nil, err
	}
	defer m.Close() // a run that failed; a good one is finished below
	opt := goal.Options{Stats: true, Searches: cfg.QStat != ""}
	if cfg.Timeline != nil {
		net := timeline.NewNet(cfg.Timeline, m.Cluster().Size())
		net.SampleLinks(m.Network())
		m.AddHook(net)
		m.AddHook(experiment.RTLTimeline{Net: net})
		m.AddHook(newGoalTracer(s, net))
	}
	if cfg.Simulated != nil {
		m.AddHook(progressFunc(cfg.Simulated))
	} else if cfg.Progress != nil { // the simulated time beside the count: a few huge messages
		m.AddHook(progressFunc(func(at netsim.Time) { cfg.Progress.Step(0, fmt.Sprintf("at %.6f s simulated", at.Nanoseconds()/1e9)) }))
	}
	if cfg.Progress != nil {
		cfg.Progress.Expect(int64(s.NumOps))
		m.AddHook(&progressTracer{total: int64(s.NumOps), tell: cfg.Progress})
	}
	if tr := machine.HooksOf[goal.Tracer](m); len(tr) == 1 {
		opt.Tracer = tr[0] // alone, as it is (a goal.PartsTracer stays one)
	} else if len(tr) > 1 {
		opt.Tracer = tracers(tr)
	}
	set := m.Matchers()
	if set != nil {
		opt.NewMatcher = set.New
	}
	res, err := goal.RunPacket(s, m.Cluster(), cfg.LogGP.S, opt)
	// The receive paths' own step events are left out: how many run depends on how far each
	// may run ahead, on parts to its part's next event and the window's end.
	steps := m.ReceiveSteps()
	if cfg.Windows != nil && spec.Parts > 1 {
		cfg.Windows(cfg.Topology.String(), m.Windows())
	}
	if ferr := m.Finish(err); err == nil && ferr != nil {
		err = fmt.Errorf("goal: %w", ferr)
	}
	if err != nil {
		return nil, err
	}
	r := &Result{Schedule: cfg.Schedule, Network: "packet", Ranks: len(s.Ranks), Ops: s.NumOps, EndNs: float64(res.End) / 1000, Events: res.Events - steps,
		Params: fmt.Sprintf("%s, node latency %.3f µs, S=%d B%s%s", cfg.Topology, cfg.Cluster.NodeLatency.Microseconds(), cfg.LogGP.S, rtlNote(cfg.RTLNodes), matcherNote(cfg))}
	if set != nil {
		r.Matching = summarizeMatch(set, uint64(res.End))
	}
	for i, f := range res.Finished {
		r.PerRank = append(r.PerRank, RankResult{Rank: i, DoneNs: float64(f) / 1000, Match: &res.Match[i], MaxDepth: res.Match[i].MaxDepth(), NotStarted: res.NotRun[i]})
	}
	return r, writeQStat(cfg, res, r.unmatched(res.Unmatched, res.NotRun))
}

// packetMachine is the machine a schedule runs on (cfg.Topology, sized to the schedule when
// unset): the LHS receive path in Verilated RTL at 100 MHz on the RTL nodes (LHS on, each
// message released the cycle after it commits: lhsnic.DefaultConfig), one node's waveform,
// and the matcher; what does not fit the schedule is refused before anything opens.
func packetMachine(cfg *Config, s *goal.Schedule) (machine.Spec, error) {
	if cfg.Topology.IsZero() {
		t, err := Topology(len(s.Ranks))
		if err != nil {
			return machine.Spec{}, experiment.Input(err)
		}
		cfg.Topology = t
	}
	topo := cfg.Topology.Fabric()
	spec := machine.Spec{Topology: topo, Fabric: cfg.Fabric, Cluster: cfg.Cluster}
	// On parts, one or more, its events keyed: the same order on any number of threads.
	spec.Parts, _ = Threads(*cfg, s)
	if len(s.Ranks) > topo.Nodes() {
		return spec, experiment.Refuse("%s: %d ranks on %s (%d nodes)", cfg.Schedule, len(s.Ranks), cfg.Topology, topo.Nodes())
	}
	if err := rtlMessageSizes(s, cfg.RTLNodes); err != nil {
		return spec, &experiment.InputError{Err: err}
	}
	if err := packetFits(topo, *cfg, len(s.Ranks)); err != nil {
		return spec, &experiment.InputError{Err: err}
	}
	for _, n := range cfg.RTLNodes {
		if n < 0 || n >= topo.Nodes() {
			return spec, experiment.Refuse("--rtl-nodes: node %d: %s has nodes 0 to %d", n, cfg.Topology, topo.Nodes()-1)
		}
		// A rank learns of a message when its receive path has taken it, at that time: its
		// next operation starts at its engine's time (TakenAtTime).
		rc := lhsnic.DefaultConfig()
		rc.TakenAtTime = true
		spec.Receivers = append(spec.Receivers, machine.Receiver{Node: n, Config: rc})
	}
	if cfg.Trace != "" {
		spec.Waveform = machine.Waveform{Node: cfg.TraceNode, File: cfg.Trace, FirstMessageSaves: []string{machine.DefaultSave(cfg.Trace)}}
		if cfg.Timeline != nil && cfg.TimelineSave != "" {
			spec.Waveform.FirstMessageSaves = append(spec.Waveform.FirstMessageSaves, cfg.TimelineSave)
		}
	}
	if cfg.Matcher == "" {
		return spec, nil
	}
	ms, err := match.Parse(cfg.Matcher)
	if err != nil {
		return spec, err
	}
	for _, n := range cfg.MatcherRTLNodes {
		if n < 0 || n >= len(s.Ranks) {
			return spec, experiment.Refuse("--matcher-rtl-nodes: node %d: the schedule has ranks 0 to %d", n, len(s.Ranks)-1)
		}
	}
	if err := checkMatcherFields(ms, s); err != nil {
		return spec, &experiment.InputError{Err: fmt.Errorf("goal: %w", err)}
	}
	if m := ms.Footprint(len(s.Ranks), s.NumOps); cfg.MaxBytes > 0 && uint64(m) > cfg.MaxBytes {
		return spec, fmt.Errorf("goal: matcher %s: %d ranks and %d operations may take %d MiB, over the %d MiB available", ms, len(s.Ranks), s.NumOps, m>>20, cfg.MaxBytes>>20)
	}
	spec.Matcher, spec.MatchConfig = &ms, MatchConfig(ms, cfg.MatcherRTLNodes, len(s.Ranks))
	return spec, nil
}

// checkMatcherFields refuses, before the run, a schedule whose ranks or tags do not fit the
// matcher's hardware fields (hash:K:N's 16-bit source and tag).
func checkMatcherFields(spec match.Spec, s *goal.Schedule) error {
	maxTag, line := uint32(0), uint32(0)
	for _, r := range s.Ranks {
		for _, o := range r.Ops {
			if (o.Kind == goal.Send || o.Kind == goal.Recv) && o.Tag != goal.Any && o.Tag >= maxTag {
				maxTag, line = o.Tag, o.Line
			}
		}
	}
	return spec.CheckFields(uint32(len(s.Ranks)-1), maxTag, int(line))
}

// rtlMessageSizes refuses, before the run, a send larger than the LHS receive path takes
// (gosim.MaxMessage, 1 MiB: the RTL's beat counter and the source that feeds it) to a node
// whose receive path is the RTL; the run failed on it halfway.
func rtlMessageSizes(s *goal.Schedule, rtlNodes []int) error {
	if len(rtlNodes) == 0 {
		return nil
	}
	rtl := make(map[uint32]bool, len(rtlNodes))
	for _, n := range rtlNodes {
		rtl[uint32(n)] = true
	}
	for r, rk := range s.Ranks {
		for _, op := range rk.Ops {
			if op.Kind == goal.Send && rtl[op.Peer] && op.Size > gosim.MaxMessage {
				return fmt.Errorf("rank %d line %d: a send of %d bytes to node %d, whose receive path is the LHS RTL (--rtl-nodes): it takes messages of at most %d bytes (1 MiB)",
					r, op.Line, op.Size, op.Peer, gosim.MaxMessage)
			}
		}
	}
	return nil
}

// MemoryUser is a part of a run that knows its share of the memory estimate: a matcher
// (netsim/match.Spec) whose tables grow with the ranks implements it, and the run is refused
// before it starts when the network and it together pass the process's limit.
type MemoryUser interface {
	// Memory is the bytes it takes on a run of ranks ranks, and what it is (for the message).
	Memory(ranks int) (bytes int64, what string)
}

// Every matcher's Spec gives its share (bins:K's bins, lhs's receive paths).
var _ MemoryUser = match.Spec{}

// packetFits checks the run's estimate (the network, and the matcher's share when its Spec
// is a MemoryUser) against the process's memory limit.
func packetFits(topo fabric.Topology, cfg Config, ranks int) error {
	est := fabric.Estimate(topo, cfg.Fabric)
	if cfg.Matcher != "" {
		spec, err := match.Parse(cfg.Matcher)
		if err != nil {
			return err
		}
		if m, ok := any(spec).(MemoryUser); ok {
			b, what := m.Memory(ranks)
			est.Add(what, b)
		}
	}
	if err := est.Check(memlimit.Current()); err != nil {
		return fmt.Errorf("%v %w", topo, err)
	}
	return nil
}
