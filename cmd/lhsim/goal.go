package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment/goal"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	goalsim "github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

func init() {
	register("goal", goalSummary, runGoal)
}

const goalSummary = "run a GOAL schedule (LogGOPSim's language) in the LogGOPS model or on the simulated network; lhsim goal gen PATTERN writes one; lhsim goal record -- mpirun ... traces an MPI program, lhsim goal convert DIR turns its trace into one"

func runGoal(args []string) error {
	if len(args) > 0 && args[0] == "gen" {
		return runGoalGen(args[1:])
	}
	if len(args) > 0 && (args[0] == "record" || args[0] == "convert") {
		return goalTraceCommand(args[0], args[1:])
	}
	cfg := goal.DefaultConfig()
	fs := newFlags("goal", goalSummary)
	fs.StringVar(&cfg.Schedule, "schedule", "", "the schedule file, in GOAL (docs/goalsim.md)")
	fs.StringVar(&cfg.Network, "network", cfg.Network, "loggp (LogGOPSim's LogGOPS model) or packet (the simulated fabric)")
	// LogGOPSim's parameters, in its units (ns, ns per byte), its defaults (loggopsim_cmdline.ggo).
	nsFlag(fs, &cfg.LogGP.L, "L", "loggp: latency L in ns")
	nsFlag(fs, &cfg.LogGP.O, "o", "loggp: overhead o per message in ns")
	nsFlag(fs, &cfg.LogGP.G, "g", "loggp: gap g between messages in ns")
	nsFlag(fs, &cfg.LogGP.PerByteG, "G", "loggp: gap G per byte in ns")
	nsFlag(fs, &cfg.LogGP.PerByteO, "O", "loggp: overhead O per byte in ns")
	uint64Var(fs, &cfg.LogGP.S, "S", 0, math.MaxInt64, "messages above S bytes go by rendezvous (loggp: LogGOPSim's S)")
	fs.BoolVar(&cfg.StdSort, "stdsort", false, "loggp: start operations freed together in LogGOPSim's order (libstdc++'s std::sort by type) instead of by type in the order written (docs/goalsim.md)")
	fs.StringVar(&cfg.Topology, "topology", "", "packet: crossbar:N, fattree:KxN or torus:XxYxZ; rank r runs on node r (default: a torus sized to the schedule)")
	timeVar(fs, &cfg.Cluster.NodeLatency, "node-latency", delayUS, "packet: node latency in µs (the NSIM-ACE paper's section 5.1)")
	rtl := fs.String("rtl-nodes", "", "packet: nodes whose receive path is the LHS RTL (comma-separated), the receive path of the others being the DMA to memory")
	fs.StringVar(&cfg.Matcher, "matcher", "", "packet: the receive path's message matcher on every node: "+match.Usage+" (docs/matchers.md; default: none, matching takes no time)")
	trace := -1
	intVar(fs, &trace, "trace", -1, 1<<30, "packet: write RTL node NODE's waveform (one of --rtl-nodes) with a GTKWave save file that opens it at its first message")
	traceFile := fs.String("trace-file", "", "the waveform's file (default build/waves/goal-nodeNODE.fst)")
	mrtl := fs.String("matcher-rtl-nodes", "", "packet: nodes whose matcher runs as RTL beside its Go model, checked against it: "+match.RTLUsage)
	var mem uint64
	uint64Var(fs, &mem, "max-memory", 0, 1<<30, "refuse a schedule estimated to take more than this many MiB (0: the process's memory limit: ulimit -v, its cgroup, GOMEMLIMIT or the memory available, as for the network)")
	fs.StringVar(&cfg.QStat, "qstat", "", "write LogGOPSim's six --qstat files PREFIX-rq-max.data, -uq-max, -rq-hit, -uq-hit, -rq-miss, -uq-miss (docs/goal.md)")
	out := addOutputFlags(fs)
	plot := addPlotFlag(fs, "draw each rank's matching statistics (queue lengths, search depths) to this file (.svg or .png)")
	tl := addTimelineFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if cfg.Schedule == "" {
		return badUsage(fs, errMsg("--schedule FILE is required"))
	}
	if cfg.Network != "loggp" && cfg.Network != "packet" {
		return badUsage(fs, fmt.Errorf("--network %q: want loggp or packet", cfg.Network))
	}
	if cfg.Topology != "" {
		if _, err := checkTopology(fs, "topology", cfg.Topology, cfg.Fabric, 1); err != nil {
			return err
		}
	}
	for _, f := range strings.Split(*rtl, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return badUsage(fs, fmt.Errorf("--rtl-nodes %q: want node numbers separated by commas", *rtl))
		}
		cfg.RTLNodes = append(cfg.RTLNodes, n)
	}
	if cfg.Matcher != "" {
		if _, err := match.Parse(cfg.Matcher); err != nil {
			return badUsage(fs, fmt.Errorf("--matcher: %w", err))
		}
		if cfg.Network != "packet" {
			return badUsage(fs, errMsg("--matcher is for the packet network"))
		}
	}
	var err error
	if cfg.MatcherRTLNodes, err = nodeList(*mrtl); err != nil {
		return badUsage(fs, fmt.Errorf("--matcher-rtl-nodes %q: want node numbers separated by commas", *mrtl))
	}
	if len(cfg.MatcherRTLNodes) > 0 {
		if spec, _ := match.Parse(cfg.Matcher); !spec.RTL() {
			return badUsage(fs, fmt.Errorf("--matcher-rtl-nodes runs as RTL %s, not --matcher %q", match.RTLUsage, cfg.Matcher))
		}
	}
	if len(cfg.RTLNodes) > 0 && cfg.Network != "packet" {
		return badUsage(fs, errMsg("--rtl-nodes puts RTL on the packet network; --network loggp has no nodes"))
	}
	if trace >= 0 {
		if !slices.Contains(cfg.RTLNodes, trace) {
			return badUsage(fs, fmt.Errorf("--trace %d: not one of --rtl-nodes (only an RTL receive path has a waveform)", trace))
		}
		cfg.TraceNode, cfg.Trace = trace, *traceFile
		if cfg.Trace == "" {
			cfg.Trace = fmt.Sprintf("build/waves/goal-node%d.fst", trace)
		}
		if err := os.MkdirAll(filepath.Dir(cfg.Trace), 0o755); err != nil {
			return badUsage(fs, fmt.Errorf("--trace-file: %w", err))
		}
	} else if *traceFile != "" {
		return badUsage(fs, errMsg("--trace-file names the waveform of --trace NODE; give one"))
	}
	if err := cfg.Validate(); err != nil {
		return badUsage(fs, err)
	}
	if err := goal.CheckQStat(cfg.QStat, cfg.Schedule); err != nil {
		return badUsage(fs, err)
	}
	cfg.MaxBytes = mem << 20
	if mem == 0 {
		cfg.MaxBytes = uint64(fabric.MemoryLimit())
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if err := plot.check(fs); err != nil {
		return err
	}
	if err := tl.check(fs); err != nil {
		return err
	}
	if tl.file != "" && cfg.Network != "packet" {
		return badUsage(fs, errMsg("--timeline records the packet network; --network loggp has none"))
	}
	if os.Getenv("GOGC") == "" {
		// A schedule is a few large arrays that live through the run: collecting at 25 %
		// growth instead of 100 % keeps the peak near them at no measurable cost.
		debug.SetGCPercent(25)
	}
	s, err := goal.ReadSchedule(cfg.Schedule, cfg.MaxBytes)
	if err != nil {
		var se *goalsim.SyntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("%s:%d:%d: %s", cfg.Schedule, se.Line, se.Col, se.Msg)
		}
		fmt.Fprintf(os.Stderr, "lhsim goal: %v\n", err)
		return usageError{err}
	}
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	if tl.file != "" && cfg.Trace != "" {
		cfg.TimelineSave = fmt.Sprintf("%s-node%d.gtkw", strings.TrimSuffix(tl.file, filepath.Ext(tl.file)), cfg.TraceNode)
	}
	pr := newProgress(out.json, "goal", int64(s.NumOps), "operations")
	if pr != nil {
		var done int64
		cfg.Progress = func(d, _ int64) { done = d; pr.set(done, "") }
		cfg.Simulated = func(at netsim.Time) { pr.set(done, fmt.Sprintf("at %.6f s simulated", at.Nanoseconds()/1e9)) }
	}
	r, err := goal.RunSchedule(cfg, s)
	pr.finish(err == nil)
	err = tl.end(err)
	if errors.Is(err, goalsim.ErrTooLong) {
		fmt.Fprintf(os.Stderr, "lhsim goal: %s: %v\n", cfg.Schedule, err)
		return usageError{err}
	}
	if r == nil {
		return err
	}
	if werr := out.write(r, r.WriteTable); werr != nil {
		return werr
	}
	if cfg.Trace != "" && err == nil {
		save := strings.TrimSuffix(cfg.Trace, filepath.Ext(cfg.Trace)) + ".gtkw"
		fmt.Fprintf(os.Stderr, "lhsim goal: waveform of node %d: %s (gtkwave %s %s)\n", cfg.TraceNode, cfg.Trace, cfg.Trace, save)
		if cfg.TimelineSave != "" {
			fmt.Fprintf(os.Stderr, "lhsim goal: save file %s opens node %d's waveform at its first message (gtkwave %s %s)\n", cfg.TimelineSave, cfg.TraceNode, cfg.Trace, cfg.TimelineSave)
		}
	}
	if plot.file != "" {
		if perr := r.WritePlot(plot.file); perr != nil {
			return perr
		}
	}
	return err
}

// nsFlag is a float flag in ns (LogGOPSim's unit) stored in ps (the resolution of the
// simulation), read as typed like every numeric flag (numVar).
func nsFlag(fs *flag.FlagSet, ps *uint64, name, usage string) {
	numVar(fs, name, strconv.FormatFloat(float64(*ps)/1000, 'f', -1, 64), usage, func(s string) error {
		v, err := parseFloat(s)
		if err != nil {
			return err
		}
		if v < 0 || v > 1e12 {
			return errors.New("want ns from 0 to 1e12")
		}
		*ps = uint64(math.Round(v * 1000))
		return nil
	})
}

const goalGenSummary = "write a GOAL schedule of one of Schedgen's patterns"

// runGoalGen is lhsim goal gen PATTERN --ranks N --size BYTES [--out FILE].
func runGoalGen(args []string) error {
	c := goalsim.GenConfig{Segment: 1024, Seed: 1}
	fs := newFlags("goal gen", goalGenSummary)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lhsim goal gen PATTERN --ranks N --size BYTES [--out FILE]\n  %s\npatterns: %s\nflags:\n",
			goalGenSummary, strings.Join(goalsim.Patterns(), ", "))
		fs.PrintDefaults()
	}
	c.Ranks, c.Size = 8, 8
	intVar(fs, &c.Ranks, "ranks", 2, 1<<20, "ranks")
	intVar(fs, &c.Size, "size", 1, 1<<40, "bytes per message in a basic step (Schedgen's --datasize)")
	intVar(fs, &c.Segment, "segment", 1, 1<<40, "pipelinedring: bytes per segment (Schedgen's --segmentsize)")
	seedVar(fs, &c.Seed, "seed", "random_bisect, linear_alltoallv: seed of the pairing and the sizes")
	late := int(goalsim.DefaultLateNs)
	intVar(fs, &late, "late-ns", 1, 1<<50, "alltoall_late: ns the receivers compute before posting their receives")
	out := fs.String("out", "", "write the schedule to this file (default: standard output)")
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		c.Pattern, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if c.Pattern == "" {
		return badUsage(fs, errMsg("a PATTERN is required"))
	}
	c.LateNs = int64(late)
	var buf strings.Builder
	if err := goalsim.Generate(&buf, c); err != nil {
		return badUsage(fs, err)
	}
	if *out == "" {
		_, err := os.Stdout.WriteString(buf.String())
		return err
	}
	return replaceFile(*out, func(tmp string) error { return os.WriteFile(tmp, []byte(buf.String()), 0o644) })
}

// nodeList reads node numbers separated by commas ("" is none).
func nodeList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad node %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
