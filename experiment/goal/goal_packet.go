package goal

import (
	"fmt"
	"github.com/lhsim/lhsim/netsim"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/match"
	"github.com/lhsim/lhsim/netsim/timeline"
	"github.com/lhsim/lhsim/waves"
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
// of at least n nodes.
func Topology(n int) string {
	if n <= 64 {
		return fmt.Sprintf("crossbar:%d", max(n, 2))
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
	return fmt.Sprintf("torus:%dx%dx%d", x, y, z)
}

func runGoalPacket(cfg Config, s *goal.Schedule) (*Result, error) {
	if cfg.Topology == "" {
		cfg.Topology = Topology(len(s.Ranks))
	}
	topo, err := fabric.ParseTopology(cfg.Topology)
	if err != nil {
		return nil, experiment.Input(err) // a schedule too large for any network, among others
	}
	if len(s.Ranks) > topo.Nodes() {
		return nil, experiment.Refuse("%s: %d ranks on %s (%d nodes)", cfg.Schedule, len(s.Ranks), cfg.Topology, topo.Nodes())
	}
	if err := rtlMessageSizes(s, cfg.RTLNodes); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	if err := packetFits(topo, cfg, len(s.Ranks)); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	c, err := cluster.Build(topo, cfg.Fabric, cfg.Cluster)
	if err != nil {
		return nil, err
	}
	var rtl []*lhsnic.Node
	var rtlAt []int
	var traced *lhsnic.Node // the node whose waveform is recorded (cfg.Trace)
	var firstMsg []waves.Marker
	if cfg.Trace != "" && !slices.Contains(cfg.RTLNodes, cfg.TraceNode) {
		return nil, experiment.Refuse("--trace %d: that node's receive path is not the RTL (add it to the RTL nodes)", cfg.TraceNode)
	}
	for _, n := range cfg.RTLNodes {
		if n < 0 || n >= topo.Nodes() {
			return nil, experiment.Refuse("--rtl-nodes: node %d: %s has nodes 0 to %d", n, cfg.Topology, topo.Nodes()-1)
		}
		// The LHS receive path in Verilated RTL at 100 MHz, LHS on, each message released
		// the cycle after it commits (lhsnic.DefaultConfig).
		nc := lhsnic.DefaultConfig()
		if cfg.Trace != "" && n == cfg.TraceNode {
			nc.Device.Trace = cfg.Trace
		}
		node, err := lhsnic.New(c.Engine(), nc)
		if err != nil {
			return nil, err
		}
		if nc.Device.Trace != "" {
			traced = node // closed once the run is over: the waveform is then whole
			node.OnEvent = func(e lhsnic.RxEvent) {
				if e.Msg == 0 {
					firstMsg = append(firstMsg, waves.Marker{Name: "message 0 " + e.Kind.String(), Time: (e.Board + hw.ResetCycles) * waves.CycleTime})
				}
			}
		} else {
			defer node.Close()
		}
		if err := c.SetReceivePath(n, node); err != nil {
			return nil, err
		}
		rtl = append(rtl, node)
		rtlAt = append(rtlAt, n)
	}
	opt := goal.Options{Stats: true, Searches: cfg.QStat != ""}
	if cfg.Timeline != nil {
		net := timeline.NewNet(cfg.Timeline, c.Size())
		net.SampleLinks(c.Network())
		for i, node := range rtl {
			n := rtlAt[i]
			first := node.OnEvent
			experiment.TraceRTL(net, n, node)
			if first != nil { // the traced node: its first message's markers too
				tell := node.OnEvent
				node.OnEvent = func(e lhsnic.RxEvent) { tell(e); first(e) }
			}
		}
		c.Observe(net)
		opt.Tracer = newGoalTracer(s, net)
	}
	if cfg.Simulated != nil {
		c.OnProgress(cfg.Simulated)
	} else if cfg.Progress != nil { // the simulated time beside the count: a few huge messages
		c.OnProgress(func(at netsim.Time) { cfg.Progress.Step(0, fmt.Sprintf("at %.6f s simulated", at.Nanoseconds()/1e9)) })
	}
	if cfg.Progress != nil {
		cfg.Progress.Expect(int64(s.NumOps))
		opt.Tracer = &progressTracer{next: opt.Tracer, total: int64(s.NumOps), tell: cfg.Progress}
	}
	var set *match.Set
	if cfg.Matcher != "" {
		spec, err := match.Parse(cfg.Matcher)
		if err != nil {
			return nil, err
		}
		for _, n := range cfg.MatcherRTLNodes {
			if n < 0 || n >= len(s.Ranks) {
				return nil, experiment.Refuse("--matcher-rtl-nodes: node %d: the schedule has ranks 0 to %d", n, len(s.Ranks)-1)
			}
		}
		if err := checkMatcherFields(spec, s); err != nil {
			return nil, &experiment.InputError{Err: fmt.Errorf("goal: %w", err)}
		}
		if m := spec.Footprint(len(s.Ranks), s.NumOps); cfg.MaxBytes > 0 && uint64(m) > cfg.MaxBytes {
			return nil, fmt.Errorf("goal: matcher %s: %d ranks and %d operations may take %d MiB, over the %d MiB available", spec, len(s.Ranks), s.NumOps, m>>20, cfg.MaxBytes>>20)
		}
		if set, err = match.NewSet(spec, MatchConfig(spec, cfg.MatcherRTLNodes, len(s.Ranks))); err != nil {
			return nil, err
		}
		defer set.Close() // after a failed run; a good one closes it below
		opt.NewMatcher = set.New
	}
	res, err := goal.RunPacket(s, c, cfg.LogGP.S, opt)
	if traced != nil {
		if cerr := traced.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("goal: node %d's waveform: %w", cfg.TraceNode, cerr)
		}
		if err == nil {
			saves := []string{strings.TrimSuffix(cfg.Trace, filepath.Ext(cfg.Trace)) + ".gtkw"}
			if cfg.Timeline != nil && cfg.TimelineSave != "" {
				saves = append(saves, cfg.TimelineSave)
			}
			for _, f := range saves {
				if err = waves.ForRun(cfg.Trace, gosim.DefaultParams, firstMsg).Write(f); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if set != nil {
		if err := set.Close(); err != nil { // an RTL that crashed says so here
			return nil, err
		}
	}
	for i, node := range rtl {
		if err := node.Err(); err != nil {
			return nil, fmt.Errorf("goal: node %d's RTL receive path: %w", cfg.RTLNodes[i], err)
		}
	}
	r := &Result{Schedule: cfg.Schedule, Network: "packet", Ranks: len(s.Ranks), Ops: s.NumOps, EndNs: float64(res.End) / 1000, Events: res.Events,
		Params: fmt.Sprintf("%s, node latency %.3f µs, S=%d B%s%s", cfg.Topology, cfg.Cluster.NodeLatency.Microseconds(), cfg.LogGP.S, rtlNote(cfg.RTLNodes), matcherNote(cfg))}
	if set != nil {
		r.Matching = summarizeMatch(set, uint64(res.End))
	}
	for i, f := range res.Finished {
		r.PerRank = append(r.PerRank, RankResult{Rank: i, DoneNs: float64(f) / 1000, Match: &res.Match[i], MaxDepth: res.Match[i].MaxDepth(), NotStarted: res.NotRun[i]})
	}
	return r, writeQStat(cfg, res, r.unmatched(res.Unmatched, res.NotRun))
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
