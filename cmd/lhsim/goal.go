package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/goal"
)

// lhsim goal runs a schedule; its subcommands (gen, ...) are each a command of their own in
// goalCommands: a new one is its flags and one call, added there.
func init() {
	register(&command{name: "goal", summary: "run a GOAL schedule (LogGOPSim's language) in the LogGOPS model or on the simulated network; lhsim goal gen PATTERN writes one; lhsim goal record -- mpirun ... traces an MPI program, lhsim goal convert DIR turns its trace into one",
		flags: goalFlags, subs: goalCommands})
}

var goalCommands = []*command{
	{name: "goal gen", summary: "write a GOAL schedule of one of Schedgen's patterns", args: " PATTERN", flags: goalGenFlags},
	{name: "goal record", summary: "run an MPI program with lhsim's tracer in every rank and keep its trace (docs/apps.md)", args: " -- mpirun -np N PROGRAM ARGS...", tail: true, flags: goalRecordFlags},
	{name: "goal convert", summary: "turn a trace of lhsim goal record into a GOAL schedule (docs/apps.md: what each call becomes)", args: " DIR", flags: goalConvertFlags},
}

func goalFlags(r *runner) func() error {
	cfg := goal.DefaultConfig()
	fs := r.fs
	schedule := r.inFile("schedule", "the schedule file, in GOAL (docs/goal.md)")
	fs.StringVar(&cfg.Network, "network", cfg.Network, "loggp (LogGOPSim's LogGOPS model) or packet (the simulated fabric)")
	// LogGOPSim's parameters, in its units (ns, ns per byte), its defaults (loggopsim_cmdline.ggo).
	nsFlag(fs, &cfg.LogGP.L, "L", "loggp: latency L in ns")
	nsFlag(fs, &cfg.LogGP.O, "o", "loggp: overhead o per message in ns")
	nsFlag(fs, &cfg.LogGP.G, "g", "loggp: gap g between messages in ns")
	nsFlag(fs, &cfg.LogGP.PerByteG, "G", "loggp: gap G per byte in ns")
	nsFlag(fs, &cfg.LogGP.PerByteO, "O", "loggp: overhead O per byte in ns")
	uint64Var(fs, &cfg.LogGP.S, "S", 0, math.MaxInt64, "messages above S bytes go by rendezvous (loggp: LogGOPSim's S)")
	fs.BoolVar(&cfg.StdSort, "stdsort", false, "loggp: start operations freed together in LogGOPSim's order (libstdc++'s std::sort by type) instead of by type in the order written (docs/goal.md)")
	topo := topologyVar(fs, &cfg.Topology, "topology", true, "packet: crossbar:N, fattree:KxN or torus:XxYxZ; rank r runs on node r (default: a torus sized to the schedule)")
	timeVar(fs, &cfg.Cluster.NodeLatency, "node-latency", delayUS, "packet: node latency in µs (the NSIM-ACE paper's section 5.1)")
	nodesVar(fs, &cfg.RTLNodes, "rtl-nodes", false, "packet: nodes whose receive path is the LHS RTL (numbers and ranges: 0-3,17), the receive path of the others being the DMA to memory")
	fs.StringVar(&cfg.Matcher, "matcher", "", "packet: the receive path's message matcher on every node: "+goal.MatcherUsage+" (docs/matchers.md; default: none, matching takes no time)")
	trace := -1
	intVar(fs, &trace, "trace", -1, 1<<30, "packet: write RTL node NODE's waveform (one of --rtl-nodes) with a GTKWave save file that opens it at its first message")
	traceFile := r.regularFile("trace-file", "the waveform's file (default build/waves/goal-nodeNODE.fst)")
	nodesVar(fs, &cfg.MatcherRTLNodes, "matcher-rtl-nodes", false, "packet: nodes whose matcher runs as RTL beside its Go model, checked against it: "+goal.MatcherRTLUsage)
	var mem uint64
	uint64Var(fs, &mem, "max-memory", 0, 1<<30, "refuse a schedule estimated to take more than this many MiB (0: the process's memory limit: ulimit -v, its cgroup, GOMEMLIMIT or the memory available, as for the network)")
	qstat := fs.String("qstat", "", "write LogGOPSim's six --qstat files PREFIX-rq-max.data, -uq-max, -rq-hit, -uq-hit, -rq-miss, -uq-miss (docs/goal.md)")
	r.outputs()
	r.plotFlag("draw each rank's matching statistics (queue lengths, search depths) to this file (.svg or .png)")
	threads := r.threadsFlag()
	r.timeline()
	return func() (err error) {
		cfg.Schedule, cfg.QStat = *schedule, *qstat
		if cfg.Schedule == "" {
			return r.usage("--schedule FILE is required")
		}
		if trace >= 0 {
			cfg.TraceNode, cfg.Trace = trace, defaultWaveform(*traceFile, "goal", trace)
		} else if *traceFile != "" {
			return r.usage("--trace-file names the waveform of --trace NODE; give one")
		}
		if *r.tl.file != "" && cfg.Network != "packet" {
			return r.usage("--timeline records the packet network; --network loggp has none")
		}
		cfg.MaxBytes = mem << 20
		if mem == 0 {
			cfg.MaxBytes = uint64(experiment.MemoryLimit().Bytes)
		}
		if err := topo.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if err := goal.CheckQStat(cfg.QStat, cfg.Schedule); err != nil {
			return r.badUsage(err)
		}
		if err := makeFolder(cfg.Trace); err != nil {
			return err
		}
		if os.Getenv("GOGC") == "" {
			// A schedule is a few large arrays that live through the run: collecting at 25 %
			// growth instead of 100 % keeps the peak near them at no measurable cost.
			debug.SetGCPercent(25)
		}
		s, err := goal.ReadInput(cfg)
		if err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.TimelineSave = timelineSave(r, cfg.Trace, cfg.TraceNode)
		cfg.Progress = r.progress("goal", "operations")
		if cfg.Network == "packet" {
			var split stderrLines
			cfg.Threads = r.splitThreads(*threads, 1, func(t int) (int, string) {
				c := cfg
				c.Threads = t
				return goal.Threads(c, s)
			}, &split)
			if r.set("threads") || cfg.Threads > 1 { // (a run kept on one thread that asked for none says nothing)
				successLines.add(split.lines...)
			}
			cfg.Windows = windowsTo("goal")
		} else if r.set("threads") {
			return r.usage("--threads cuts the packet network into parts; --network loggp has none")
		}
		res, err := call(r, func() (*goal.Result, error) { return goal.RunSchedule(cfg, s) })
		if res == nil || (err != nil && !errors.Is(err, goal.ErrUnmatched)) {
			return err
		}
		// A run that left operations unmatched reports what it did, then fails.
		if werr := report(r, res, nil); werr != nil {
			return werr
		}
		if cfg.Trace != "" && err == nil {
			save := strings.TrimSuffix(cfg.Trace, filepath.Ext(cfg.Trace)) + ".gtkw"
			fmt.Fprintf(os.Stderr, "lhsim goal: waveform of node %d: %s (gtkwave %s %s)\n", cfg.TraceNode, cfg.Trace, cfg.Trace, save)
			if cfg.TimelineSave != "" {
				fmt.Fprintf(os.Stderr, "lhsim goal: save file %s opens node %d's waveform at its first message (gtkwave %s %s)\n", cfg.TimelineSave, cfg.TraceNode, cfg.Trace, cfg.TimelineSave)
			}
		}
		return err
	}
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

// goalGenFlags is lhsim goal gen PATTERN --ranks N --size BYTES [--out FILE].
func goalGenFlags(r *runner) func() error {
	c := goal.DefaultGen()
	fs := r.fs
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lhsim goal gen PATTERN --ranks N --size BYTES [--out FILE]\n  %s\npatterns: %s\nflags:\n",
			r.cmd.summary, strings.Join(goal.Patterns(), ", "))
		fs.PrintDefaults()
	}
	intVar(fs, &c.Ranks, "ranks", 2, 1<<20, "ranks")
	intVar(fs, &c.Size, "size", 1, 1<<40, "bytes per message in a basic step (Schedgen's --datasize)")
	intVar(fs, &c.Segment, "segment", 1, 1<<40, "pipelinedring: bytes per segment (Schedgen's --segmentsize)")
	seedVar(fs, &c.Seed, "seed", "random_bisect, linear_alltoallv: seed of the pairing and the sizes")
	int64Var(fs, &c.LateNs, "late-ns", 1, 1<<50, "alltoall_late: ns the receivers compute before posting their receives")
	out := r.outFile("out", "write the schedule to this file (default: standard output)")
	return func() error {
		if c.Pattern = r.arg; c.Pattern == "" {
			return r.usage("a PATTERN is required")
		}
		var buf strings.Builder
		if err := goal.Generate(&buf, c); err != nil {
			return r.check(err)
		}
		if *out == "" {
			_, err := os.Stdout.WriteString(buf.String())
			return err
		}
		return writeBytes("--out", *out, []byte(buf.String()))
	}
}
