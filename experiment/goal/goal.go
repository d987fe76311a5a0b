// Package goal is lhsim goal and the matchers study: GOAL schedules on LogGOPS or the network.
package goal

// lhsim goal: a GOAL schedule (netsim/goal) run in LogGOPSim's LogGOPS model or on the
// simulated network.

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Figure = (*Result)(nil)
	_ experiment.Table  = (*MatchersResult)(nil)
)

// Config is what the user chose.
type Config struct {
	Schedule string // file
	Network  string // "loggp" or "packet"
	LogGP    goal.Params
	Topology experiment.Topology // packet: none sizes a machine to the schedule (Topology)
	Fabric   fabric.Config
	Cluster  cluster.Config
	MaxBytes uint64 // memory a schedule may take; 0: no bound
	StdSort  bool   // loggp: LogGOPSim's order of operations freed together (goal.Options)
	RTLNodes []int  // packet: nodes whose receive path is the LHS RTL (netsim/lhsnic)
	// Timeline, when set, records the packet run (docs/timeline.md); the caller closes it.
	Timeline *timeline.Writer
	// Trace, when set, is an FST waveform of RTL node TraceNode's receive path, written
	// with a GTKWave save file beside it (the same name, .gtkw) that opens it at the node's
	// first message, a marker at each of its steps; with Timeline, TimelineSave (when set)
	// gets the same save file, beside the timeline.
	Trace        string
	TraceNode    int
	TimelineSave string
	// Progress, when set, is told every 16,384 operations a run starts (done of total)
	// and at the end.
	Progress *experiment.Progress `json:"-"`
	// Simulated, when set, is told the simulated time of a packet run every 65,536 packets
	// its NICs send (cluster.OnProgress): the progress of a few huge messages; unset, the
	// note beside Progress says it.
	Simulated func(at netsim.Time)
	// Matcher is the packet network's matcher (netsim/match: list, bins:K, alpu:N); "": none,
	// matching takes no time.
	Matcher string
	// MatcherRTLNodes run the matcher's RTL beside its model (alpu:N).
	MatcherRTLNodes []int
	// QStat, when set, is the prefix of LogGOPSim's six --qstat files (qstat.go), written after
	// a run that leaves nothing unmatched.
	QStat string
	// Threads is how many threads a packet run takes (Threads says how many it gets): its
	// machine on as many parts (0 and 1: one), its events keyed, so the results are the same
	// for any number, LHS receive paths and RTL matchers included (packetMachine).
	Threads int `json:"-"`
	// Windows, when set, is told of a packet run's windows on more than one thread, with
	// the run's topology.
	Windows func(topology string, ws netsim.WindowStats) `json:"-"`
}

// RankResult is one rank's end and matching statistics.
type RankResult struct {
	Rank       int              `json:"rank"`
	DoneNs     float64          `json:"done_ns"`
	Match      *goal.QueueStats `json:"match,omitempty"`
	MaxDepth   int              `json:"max_search_depth"`
	NotStarted int              `json:"not_started,omitempty"`
}

// Result is a run.
type Result struct {
	Schedule  string        `json:"schedule"`
	Network   string        `json:"network"`
	Params    string        `json:"params"`
	Matching  *MatchSummary `json:"matching,omitempty"`
	Ranks     int           `json:"ranks"`
	Ops       int           `json:"operations"`
	EndNs     float64       `json:"end_ns"`
	Events    uint64        `json:"events"`
	PerRank   []RankResult  `json:"per_rank"`
	Unmatched []string      `json:"unmatched,omitempty"`
}

// Validate refuses, before any work, what the run cannot do (an experiment.InputError),
// naming the flags that chose it; the schedule itself is checked as it is read.
func (cfg Config) Validate() error {
	if cfg.Network != "loggp" && cfg.Network != "packet" {
		return experiment.Refuse("--network %q: want loggp or packet", cfg.Network)
	}
	if !cfg.Topology.IsZero() {
		if _, err := experiment.CheckTopology("topology", cfg.Topology, cfg.Fabric, 1); err != nil {
			return err
		}
	}
	if cfg.Matcher != "" {
		if _, err := match.Parse(cfg.Matcher); err != nil {
			return experiment.Refuse("--matcher: %w", err)
		}
	}
	if len(cfg.MatcherRTLNodes) > 0 {
		if spec, _ := match.Parse(cfg.Matcher); !spec.RTL() {
			return experiment.Refuse("--matcher-rtl-nodes runs as RTL %s, not --matcher %q", match.RTLUsage, cfg.Matcher)
		}
	}
	if cfg.Trace != "" && !slices.Contains(cfg.RTLNodes, cfg.TraceNode) {
		return experiment.Refuse("--trace %d: not one of --rtl-nodes (only an RTL receive path has a waveform)", cfg.TraceNode)
	}
	return experiment.Input(cfg.validateKnobs())
}

// ReadInput reads the schedule file within the memory bound: what is wrong with it is the
// input's fault, named by its file, line and column.
func ReadInput(cfg Config) (*goal.Schedule, error) {
	s, err := ReadSchedule(cfg.Schedule, cfg.MaxBytes)
	if err != nil {
		var se *goal.SyntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("%s:%d:%d: %s", cfg.Schedule, se.Line, se.Col, se.Msg)
		}
		return nil, experiment.Input(err)
	}
	return s, nil
}

// ErrUnmatched is wrapped by the error of a run that left operations unmatched.
var ErrUnmatched = errors.New("operations left unmatched")

// ReadSchedule parses a schedule file within the memory bound.
func ReadSchedule(file string, maxBytes uint64) (*goal.Schedule, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gunzipped(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s, err := goal.ParseLimits(r, goal.Limits{MaxBytes: maxBytes})
	if _, gz := r.(*gzip.Reader); gz && err != nil {
		return nil, fmt.Errorf("%s (gzip): %w", file, err) // a cut or corrupt file names itself
	}
	return s, err
}

// gunzipped is f's text, decompressed when it starts with gzip's magic (a schedule stored
// as F.goal.gz: make traces writes them so).
func gunzipped(f io.Reader) (io.Reader, error) {
	b := bufio.NewReader(f)
	magic, _ := b.Peek(2)
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return b, nil
	}
	z, err := gzip.NewReader(b)
	if err != nil {
		return nil, fmt.Errorf("not a gzip file: %w", err)
	}
	return z, nil
}

// ParamString is p in LogGOPSim's terms and units.
func ParamString(p goal.Params) string {
	ns := func(ps uint64) string {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", float64(ps)/1000), "0"), ".")
	}
	return fmt.Sprintf("L=%s o=%s g=%s G=%s O=%s ns, S=%d B", ns(p.L), ns(p.O), ns(p.G), ns(p.PerByteG), ns(p.PerByteO), p.S)
}

// DefaultConfig is lhsim goal's starting point: the packet network (a torus sized to the
// schedule), LogGOPSim's default parameters for --network loggp, a node latency of 1 µs
// (the NSIM-ACE paper's section 5.1).
func DefaultConfig() Config {
	c := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()}
	c.Cluster.NodeLatency = netsim.Microsecond
	return c
}

// validateKnobs refuses a knob the chosen network does not use, so that none is ignored
// without a word: the LogGOPS model's L, o, g, G, O and its order (StdSort) on the packet network
// (its times come from the fabric and the node latency; S, the rendezvous threshold, is
// both's), and on loggp everything of the packet network (topology, node latency, RTL
// nodes, matcher, waveform, timeline). A node named twice in a list is refused too.
func (cfg Config) validateKnobs() error {
	def := DefaultConfig()
	switch cfg.Network {
	case "packet":
		p, d := cfg.LogGP, def.LogGP
		p.S, d.S = 0, 0
		if p != d {
			return fmt.Errorf("%s: the LogGOPS model's parameters (L, o, g, G, O) apply to --network loggp; the packet network's times come from the fabric and the node latency", ParamString(cfg.LogGP))
		}
		if cfg.StdSort {
			return errors.New("--stdsort orders the LogGOPS model's operations (--network loggp); the packet network runs them as their events come")
		}
	case "loggp":
		for _, k := range []struct {
			set  bool
			what string
		}{{!cfg.Topology.IsZero(), "a topology"}, {cfg.Cluster.NodeLatency != def.Cluster.NodeLatency, "a node latency"},
			{len(cfg.RTLNodes) > 0, "RTL nodes"}, {cfg.Matcher != "", "a matcher"}, {len(cfg.MatcherRTLNodes) > 0, "matcher RTL nodes"},
			{cfg.Trace != "", "a waveform"}, {cfg.Timeline != nil, "a timeline"}} {
			if k.set {
				return fmt.Errorf("%s applies to the packet network (--network packet); the LogGOPS model (--network loggp) has no nodes, only L, o, g, G, O and S", k.what)
			}
		}
	default:
		return fmt.Errorf("network %q: want loggp or packet", cfg.Network)
	}
	if err := experiment.Repeated("RTL nodes", cfg.RTLNodes); err != nil {
		return err
	}
	return experiment.Repeated("matcher RTL nodes", cfg.MatcherRTLNodes)
}

// Run reads the schedule and runs it. A run that leaves sends or receives unmatched
// returns its result and an error wrapping ErrUnmatched.
func Run(cfg Config) (*Result, error) {
	s, err := ReadSchedule(cfg.Schedule, cfg.MaxBytes)
	if err != nil {
		return nil, err
	}
	return RunSchedule(cfg, s)
}

// RunSchedule runs a parsed schedule. A schedule whose times may pass the simulator's
// range is the input's fault (goal.ErrTooLong), named by its file.
func RunSchedule(cfg Config, s *goal.Schedule) (*Result, error) {
	res, err := runSchedule(cfg, s)
	if errors.Is(err, goal.ErrTooLong) {
		err = experiment.Refuse("%s: %w", cfg.Schedule, err)
	}
	return res, err
}

func runSchedule(cfg Config, s *goal.Schedule) (*Result, error) {
	if err := cfg.validateKnobs(); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	if err := cfg.Timeline.CheckNodes(len(s.Ranks)); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	switch cfg.Network {
	case "loggp":
		opt := goal.Options{Stats: true, StdSort: cfg.StdSort, Searches: cfg.QStat != ""}
		var told int64
		if cfg.Progress != nil {
			cfg.Progress.Expect(int64(s.NumOps))
			opt.Progress = func(done int64) { cfg.Progress.Step(done-told, ""); told = done }
		}
		res, err := goal.RunLogGP(s, cfg.LogGP, opt)
		if err == nil {
			cfg.Progress.Step(int64(s.NumOps)-told, "")
		}
		if err != nil {
			return nil, err
		}
		r := &Result{Schedule: cfg.Schedule, Network: "loggp", Params: ParamString(cfg.LogGP), Ranks: len(s.Ranks),
			Ops: s.NumOps, EndNs: float64(res.End) / 1000, Events: res.Events}
		for i, f := range res.Finished {
			rr := RankResult{Rank: i, DoneNs: float64(f) / 1000, Match: &res.Match[i], MaxDepth: res.Match[i].MaxDepth(), NotStarted: res.NotRun[i]}
			r.PerRank = append(r.PerRank, rr)
		}
		return r, writeQStat(cfg, res, r.unmatched(res.Unmatched, res.NotRun))
	case "packet":
		return runGoalPacket(cfg, s)
	}
	return nil, fmt.Errorf("goal: network %q: want loggp or packet", cfg.Network)
}

func (r *Result) unmatched(u []goal.Unmatched, notRun []int) error {
	for _, x := range u {
		r.Unmatched = append(r.Unmatched, x.String())
	}
	for rank, n := range notRun {
		if n > 0 {
			r.Unmatched = append(r.Unmatched, fmt.Sprintf("rank %d: %d operations never started (what they wait for never completed)", rank, n))
		}
	}
	if len(r.Unmatched) > 0 {
		shown := r.Unmatched
		if len(shown) > 50 { // the JSON (--json, --out) has them all
			shown = append(shown[:50:50], fmt.Sprintf("and %d more (--json lists them all)", len(r.Unmatched)-50))
		}
		return fmt.Errorf("goal: %w:\n  %s", ErrUnmatched, strings.Join(shown, "\n  "))
	}
	return nil
}

// WriteTable prints the end time and, per rank, its end and matching statistics (at most
// 16 ranks: then the slowest).
func (r *Result) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d ranks, %d operations, network %s (%s): last rank done at %.3f µs (%d events)\n",
		r.Schedule, r.Ranks, r.Ops, r.Network, r.Params, r.EndNs/1000, r.Events)
	if r.Matching != nil {
		fmt.Fprintln(w, r.Matching)
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("rank", "done at µs", "posted max", "unexpected max", "max search depth")
	rows := r.PerRank
	if len(rows) > 16 {
		last := rows[0]
		for _, x := range rows {
			if x.DoneNs > last.DoneNs {
				last = x
			}
		}
		rows = []RankResult{last}
		fmt.Fprintf(w, "(%d ranks: the last done shown; --json has all)\n", r.Ranks)
	}
	for _, x := range rows {
		pm, um := "-", "-"
		if x.Match != nil {
			pm, um = fmt.Sprint(x.Match.PostedMax), fmt.Sprint(x.Match.UnexpectedMax)
		}
		if err := t.Append(fmt.Sprint(x.Rank), fmt.Sprintf("%.3f", x.DoneNs/1000), pm, um, fmt.Sprint(x.MaxDepth)); err != nil {
			return err
		}
	}
	return t.Render()
}

// WritePlot draws each rank's matching statistics (LogGOPSim's --qstat): the longest posted
// and unexpected queue met by a search and the deepest successful search, against the rank.
func (r *Result) WritePlot(file string) error {
	p := experiment.NewPlot(fmt.Sprintf("matching per rank: %s, network %s (simulated)", filepath.Base(r.Schedule), r.Network), "rank", "entries")
	var c experiment.Curves
	for _, x := range r.PerRank {
		if x.Match == nil {
			continue
		}
		c.Add("posted queue, longest", false, float64(x.Rank), float64(x.Match.PostedMax))
		c.Add("unexpected queue, longest", false, float64(x.Rank), float64(x.Match.UnexpectedMax))
		c.Add("deepest search that matched", true, float64(x.Rank), float64(x.MaxDepth))
	}
	return c.Draw(p, file)
}
