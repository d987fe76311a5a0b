package goal

// The matchers study in parts (lhsim matchers --jobs): each workload with each matcher is a
// run of its own on its own network (and its own Verilated models on the --rtl-nodes, each
// pinned to the thread of the goroutine that made it), and so is each matcher on the fig6
// micro-benchmark; Merge puts their rows together as RunMatchers gives them. The
// parts share each workload's schedule, made once (RunSchedule only reads it).

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

// scheduleCache makes each schedule once for all the parts that run it, whichever asks first.
type scheduleCache struct {
	mu sync.Mutex
	m  map[string]*cachedSchedule
}

type cachedSchedule struct {
	once sync.Once
	s    *goal.Schedule
	err  error
}

// get is the schedule named name, made by make the first time (a nil cache: every time).
func (c *scheduleCache) get(name string, make func() (*goal.Schedule, error)) (*goal.Schedule, error) {
	if c == nil {
		return make()
	}
	c.mu.Lock()
	e := c.m[name]
	if e == nil {
		e = &cachedSchedule{}
		c.m[name] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.s, e.err = make() })
	return e.s, e.err
}

// generate makes workload w's schedule (a goal gen pattern), or reads it (an application
// workload: AppSchedule).
func (cfg MatchersConfig) generate(w string) (*goal.Schedule, error) {
	if f := AppSchedule(w); f != "" {
		s, err := ReadSchedule(f, 0)
		if err != nil {
			return nil, err
		}
		denseTags(s)
		return s, nil
	}
	var buf bytes.Buffer
	if err := goal.Generate(&buf, goal.GenConfig{Pattern: w, Ranks: cfg.Ranks, Size: cfg.Size, Segment: 1024, Seed: cfg.Seed}); err != nil {
		return nil, err
	}
	s, err := goal.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("matchers: %s: %w", w, err)
	}
	return s, nil
}

// pattern says whether workload w is made at --ranks (a goal gen pattern), not fig6 nor an
// application's schedule.
func (cfg MatchersConfig) pattern(w string) bool { return w != rx.Fig6Workload && AppSchedule(w) == "" }

// denseTags renumbers s's tags 0, 1, 2, ... in the order first written (any tag stays any):
// a one-to-one map, so every message matches the receive it matched before. lhsim goal
// convert gives each communicator's tag spaces tags from 2^31 up (docs/apps.md), which fit
// neither the ALPU's 26-bit tag field nor the MPI envelope's signed 32 bits of the LHS
// receive path; an MPI library puts the communicator's context in the match bits the same
// way, as a small number.
func denseTags(s *goal.Schedule) {
	ids := map[uint32]uint32{}
	for r := range s.Ranks {
		ops := s.Ranks[r].Ops
		for i := range ops {
			if ops[i].Tag == goal.Any || (ops[i].Kind != goal.Send && ops[i].Kind != goal.Recv) {
				continue
			}
			id, ok := ids[ops[i].Tag]
			if !ok {
				id = uint32(len(ids))
				ids[ops[i].Tag] = id
			}
			ops[i].Tag = id
		}
	}
}

// scheduleKey is the cache's name of the user's schedule file, apart from the patterns'.
func scheduleKey(file string) string { return "file:" + file }

// Prepare makes every schedule the study runs (the patterns', the user's file read) once,
// for RunMatchers and every part of Parts to share: a schedule that cannot be made is an
// error before any run. When no pattern runs, Ranks becomes the schedule file's.
func (cfg MatchersConfig) Prepare() (MatchersConfig, error) {
	if err := cfg.repeats(); err != nil {
		return cfg, err
	}
	if cfg.schedules == nil {
		cfg.schedules = &scheduleCache{m: map[string]*cachedSchedule{}}
	}
	appRanks := 0 // the fewest ranks of the application workloads'
	for _, w := range cfg.Workloads {
		if w == rx.Fig6Workload {
			continue
		}
		s, err := cfg.schedules.get(w, func() (*goal.Schedule, error) { return cfg.generate(w) })
		if err != nil {
			return cfg, err
		}
		if !cfg.pattern(w) && (appRanks == 0 || len(s.Ranks) < appRanks) {
			appRanks = len(s.Ranks)
		}
	}
	if appRanks > 0 && !slices.ContainsFunc(cfg.Workloads, cfg.pattern) {
		cfg.Ranks = appRanks // no pattern runs at --ranks: --rtl-nodes must be in every schedule
	}
	if cfg.Schedule != "" {
		s, err := cfg.schedules.get(scheduleKey(cfg.Schedule), func() (*goal.Schedule, error) { return ReadSchedule(cfg.Schedule, 0) })
		if err != nil {
			return cfg, err
		}
		if !slices.ContainsFunc(cfg.Workloads, cfg.pattern) && (appRanks == 0 || len(s.Ranks) < appRanks) {
			cfg.Ranks = len(s.Ranks) // no pattern runs at --ranks: the study is the schedule's
		}
	}
	return cfg, nil
}

// repeats refuses a study that names one thing twice: each matcher, workload and RTL node
// is one column or row of the tables, and a second mention would run it again for nothing.
// Matchers are compared by what they are (bins:064 is bins:64).
func (cfg MatchersConfig) repeats() error {
	canon := make([]string, len(cfg.Matchers))
	for i, m := range cfg.Matchers {
		spec, err := match.Parse(m)
		if err != nil {
			return err
		}
		canon[i] = spec.String()
	}
	if err := experiment.Repeated("matchers", canon); err != nil {
		return err
	}
	if err := experiment.Repeated("workloads", cfg.Workloads); err != nil {
		return err
	}
	return experiment.Repeated("RTL nodes", cfg.RTLNodes)
}

// runs is how many runs RunMatchers makes: each fig6 matcher once, every other workload (and
// the schedule) with every matcher.
func (cfg MatchersConfig) runs() int {
	n, fig6 := 0, 0
	for _, m := range cfg.Matchers {
		if slices.Contains(rx.Fig6Matchers, m) {
			fig6++
		}
	}
	for _, w := range cfg.Workloads {
		if w == rx.Fig6Workload {
			n += fig6
		} else {
			n += len(cfg.Matchers)
		}
	}
	if cfg.Schedule != "" {
		n += len(cfg.Matchers)
	}
	return n
}

// Parts are the study's runs in RunMatchers' order, one each: a matcher on fig6, or a
// workload (or the schedule) with a matcher. Each tells Progress (when set) of its one run.
// They share the schedules Prepare made, or else make each once, when the first needs it.
func (cfg MatchersConfig) Parts() []experiment.Part[MatchersConfig] {
	cache := cfg.schedules
	if cache == nil {
		cache = &scheduleCache{m: map[string]*cachedSchedule{}}
	}
	var out []experiment.Part[MatchersConfig]
	add := func(w, m string) {
		c := cfg
		c.Workloads, c.Schedule, c.Matchers, c.schedules = []string{w}, "", []string{m}, cache
		out = append(out, experiment.Part[MatchersConfig]{Label: w + " with " + m, Config: c})
	}
	for _, w := range cfg.Workloads {
		for _, m := range cfg.Matchers {
			if w != rx.Fig6Workload || slices.Contains(rx.Fig6Matchers, m) {
				add(w, m)
			}
		}
		if w == rx.Fig6Workload && !slices.ContainsFunc(cfg.Matchers, func(m string) bool { return slices.Contains(rx.Fig6Matchers, m) }) {
			c := cfg // RunMatchers' error: fig6 without its matchers
			c.Workloads, c.Schedule = []string{w}, ""
			out = append(out, experiment.Part[MatchersConfig]{Label: w, Config: c})
		}
	}
	if cfg.Schedule != "" {
		for _, m := range cfg.Matchers {
			c := cfg
			c.Workloads, c.Matchers, c.schedules = nil, []string{m}, cache
			out = append(out, experiment.Part[MatchersConfig]{Label: cfg.Schedule + " with " + m, Config: c})
		}
	}
	return out
}

// Merge puts the results of Parts (in Parts order) together into RunMatchers'.
func (cfg MatchersConfig) Merge(parts []*MatchersResult) (*MatchersResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("matchers: no parts to merge")
	}
	res := &MatchersResult{Ranks: parts[0].Ranks, Size: parts[0].Size, RTLNodes: parts[0].RTLNodes}
	for i, p := range parts {
		if p.Ranks != res.Ranks || p.Size != res.Size || !slices.Equal(p.RTLNodes, res.RTLNodes) {
			return nil, fmt.Errorf("matchers: part %d is of another study (%d ranks, %d bytes)", i, p.Ranks, p.Size)
		}
		res.Cells = append(res.Cells, p.Cells...)
		res.Fig6 = append(res.Fig6, p.Fig6...)
	}
	return res, nil
}

// JobMemory is what one part may take: its network (fabric.Footprint, doubled for the
// garbage collector; a few MiB), the run's state over the largest workload's operations, and
// the largest of the matchers' own (match.Spec.Footprint: for lhs and lhs+alpu:N the receive
// path of every rank, 1 MiB each, measured: lhs took 0.4 MB a rank more than list at 256
// ranks; for bins:K the bins made as entries arrive, at most one per operation).
//
// A generated workload's run takes about opBytes an operation (measured with /usr/bin/time
// -v lhsim matchers --matchers list --jobs 1 --workloads W, the process's 30 MB included:
// allreduce_ring, 261,120 operations at 256 ranks, 164 MB resident, 4,190,208 at 1,024,
// 1,419 MB; alltoall_late, 130,816 and 2,096,128, 118 MB and 1,026 MB); its operations are
// counted as the generator writes them, without keeping the schedule. An application's
// schedule, measured: lammps-peptide.8's 1,041,547 operations took 205 MB resident with
// list, about 200 bytes an operation. TestMatchersEstimateCountsThePeak (cmd/lhsim) holds
// the estimate between the peak and three times it.
func (cfg MatchersConfig) JobMemory() int64 {
	p := int64(cfg.Ranks)
	var matchers int64
	for _, m := range cfg.Matchers {
		if spec, err := match.Parse(m); err == nil {
			matchers = max(matchers, spec.Footprint(cfg.Ranks, int(p*p)))
		}
	}
	topo, err := Topology(cfg.Ranks)
	if err != nil {
		return 0
	}
	var work int64
	for _, w := range cfg.Workloads {
		switch {
		case cfg.pattern(w):
			work = max(work, opBytes*cfg.patternOps(w))
		case w != rx.Fig6Workload && cfg.schedules != nil:
			if s, err := cfg.schedules.get(w, func() (*goal.Schedule, error) { return cfg.generate(w) }); err == nil {
				work = max(work, 256*int64(s.NumOps))
			}
		}
	}
	return 16<<20 + 2*fabric.Footprint(topo.Fabric(), fabric.DefaultConfig()) + work + matchers
}

// opBytes is what a generated workload's run takes an operation (JobMemory): the most
// measured, 644 bytes (allreduce_ring at 256 ranks, the process's own 30 MB included),
// rounded up.
const opBytes = 768

// patternOps is the operations of the goal gen pattern w at the study's ranks, counted as
// the generator writes them (a line "lN: ..." each); 0 when it cannot be generated (the run
// says why). Counted once per process: each of a sweep's parts asks.
func (cfg MatchersConfig) patternOps(w string) int64 {
	gc := goal.GenConfig{Pattern: w, Ranks: cfg.Ranks, Size: cfg.Size, Segment: 1024, Seed: cfg.Seed}
	if n, ok := patternOpsSeen.Load(gc); ok {
		return n.(int64)
	}
	c := &opCounter{}
	if err := goal.Generate(c, gc); err != nil {
		return 0
	}
	patternOpsSeen.Store(gc, c.ops)
	return c.ops
}

// patternOpsSeen are the patterns' operation counts, by their generator's configuration.
var patternOpsSeen sync.Map

// opCounter counts the lines of a GOAL schedule that start with a label (an operation).
type opCounter struct {
	ops      int64
	inLabel  bool // in the word that starts the line
	notStart bool // the line's first word has ended
}

func (c *opCounter) Write(b []byte) (int, error) {
	for _, ch := range b {
		switch {
		case ch == '\n':
			c.inLabel, c.notStart = false, false
		case c.notStart:
		case ch == ' ' || ch == '\t':
			if c.inLabel {
				c.notStart = true
			}
		case ch == ':':
			if c.inLabel {
				c.ops++
			}
			c.notStart = true
		default:
			c.inLabel = true
		}
	}
	return len(b), nil
}
