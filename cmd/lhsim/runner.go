package main

// The one runner: every command is a value (its name, summary and flags) whose Run turns the
// flags into a typed config and makes one call, as the Go tool's base.Command; the life of a
// run is written once: the command line parsed here, then, in package cli, every path checked
// against the others before any work, profiles, progress, the timeline, the parts of a sweep
// on every core or on Slurm (runSweep), and the report (table, --json, --out, --plot).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/internal/flagval"
	"github.com/lhsim/lhsim/slurm"
)

// command is one subcommand. Flags defines its flags on the runner and returns its Run.
type command struct {
	name    string // "barrier", "ib run"
	summary string
	args    string // what the usage line shows after the flags' place ("PATTERN"), if anything
	tail    bool   // takes a command line after -- (goal record)
	flags   func(r *runner) func() error
	subs    []*command // the subcommands of a command that is only their group (ib)
}

// pathFlag is a flag that names a file: an input read, or an output written.
type pathFlag = cli.PathFlag

// runner is one run of one command: its flag set and what the runner's flags chose.
type runner struct {
	cmd   *command
	fs    *flag.FlagSet
	paths []pathFlag

	json    bool    // --json: print the result as JSON
	out     *string // --out: also write it to this file
	plot    *string // --plot: draw it
	jobs    int     // --jobs (1 without the flag)
	slurm   *slurm.Options
	tl      *timelineFlags
	bar     *cli.Bar
	counted *experiment.Progress // what the bar shows (progress)
	arg     string               // the argument before the flags, on a command whose usage shows one
	tail    []string             // what follows --, on a command that takes it (nil: no --)
}

func newRunner(c *command) *runner {
	r := &runner{cmd: c, fs: flag.NewFlagSet(c.name, flag.ContinueOnError), jobs: 1}
	r.fs.Usage = func() {
		fmt.Fprintf(r.fs.Output(), "usage: lhsim %s [flags]%s\n  %s\nflags:\n", c.name, c.args, c.summary)
		r.fs.PrintDefaults()
	}
	r.outFile("cpuprofile", "write a CPU profile of the command to this file (go tool pprof)")
	r.outFile("memprofile", "write a memory profile (what the command allocated, and kept when it ended) to this file (go tool pprof)")
	return r
}

// inFile defines a flag naming a file the command reads.
func (r *runner) inFile(name, usage string) *string {
	p := r.fs.String(name, "", usage)
	r.paths = append(r.paths, pathFlag{Name: name, Value: p, Input: true})
	return p
}

// outFile defines a flag naming a file the command writes (cli.CheckPaths checks it).
func (r *runner) outFile(name, usage string) *string {
	p := r.fs.String(name, "", usage)
	r.paths = append(r.paths, pathFlag{Name: name, Value: p})
	return p
}

// regularFile defines a flag naming an output its own writer makes (a waveform Verilator
// writes and seeks in, a checkpoint or a GTKWave save file with files beside it): only a
// regular file (or none yet) can take it, checked with the other paths.
func (r *runner) regularFile(name, usage string) *string {
	p := r.outFile(name, usage)
	r.paths[len(r.paths)-1].Regular = true
	return p
}

// outputs defines --json and --out, the same on every command that reports a result.
func (r *runner) outputs() {
	r.fs.BoolVar(&r.json, "json", false, "print the result as JSON on stdout instead of the table")
	r.out = r.outFile("out", "also write the result as JSON to this file")
}

// plotFlag defines --plot, drawn by report from the result (an experiment.Figure).
func (r *runner) plotFlag(usage string) { r.plot = r.outFile("plot", usage) }

// sweep defines --jobs and the --slurm flags: every sweep has them, the same way.
func (r *runner) sweep() {
	r.slurmFlags()
	r.jobsFlag(runtime.NumCPU(), "parts of the sweep run at once, each with its own machine (default: the number of cores); the output is the same for any")
}

// jobsFlag defines --jobs with its default and meaning (bench-net measures rows one at a time
// unless asked; regress runs test processes).
func (r *runner) jobsFlag(def int, usage string) {
	r.jobs = def
	intVar(r.fs, &r.jobs, "jobs", 1, 1024, usage)
}

// slurmFlags defines the --slurm flags alone (area and regress keep their own -j and --jobs).
func (r *runner) slurmFlags() {
	r.slurm = &slurm.Options{}
	r.slurm.AddFlags(r.fs)
}

// onSlurm reports whether this process hands its work to Slurm or runs an array task.
func (r *runner) onSlurm() bool { return r.slurm != nil && (r.slurm.Enabled || r.slurm.Task != "") }

// usageError is a mistake on the command line, already reported with the command's usage.
type usageError struct{ error }

// badUsage reports a flag value that parses but makes no sense, with the usage.
func (r *runner) badUsage(err error) error {
	fmt.Fprintf(os.Stderr, "lhsim %s: %s\n", r.cmd.name, oneLine(r.cmd.name, err))
	r.fs.SetOutput(os.Stderr)
	r.fs.Usage()
	return usageError{err}
}

// usage is badUsage of a message.
func (r *runner) usage(format string, args ...any) error {
	return r.badUsage(fmt.Errorf(format, args...))
}

// check returns err, a refused configuration (an experiment's Validate), as a mistake on the
// command line; any other error as it is.
func (r *runner) check(err error) error {
	if err != nil && experiment.IsInput(err) {
		return r.badUsage(err)
	}
	return err
}

// parse parses args. -h prints the usage on stdout (flag.ErrHelp: exit 0); any other
// mistake, a stray argument among them, is reported on stderr with the usage (exit 2). Then,
// before any work, every path is checked (cli.CheckPaths) and the profiles start.
func (r *runner) parse(args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			r.fs.SetOutput(os.Stdout)
			r.fs.Usage()
			return flag.ErrHelp
		}
	}
	// The flag package's own message is replaced by one under the command's prefix; a
	// number flag says what is wrong with the value as typed (flagval.Explain).
	if r.cmd.args != "" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		r.arg, args = args[0], args[1:]
	}
	if i := slices.Index(args, "--"); r.cmd.tail && i >= 0 {
		args, r.tail = args[:i], args[i+1:]
	}
	r.fs.SetOutput(io.Discard)
	if err := r.fs.Parse(args); err != nil {
		return r.badUsage(flagval.Explain(r.fs, err))
	}
	if r.fs.NArg() > 0 {
		return r.badUsage(fmt.Errorf("unexpected argument %q", r.fs.Arg(0)))
	}
	if r.slurm != nil {
		if err := r.slurm.Check(r.fs); err != nil {
			return r.badUsage(err)
		}
	}
	if r.tl != nil {
		if err := r.tl.check(r); err != nil {
			return err
		}
	}
	if err := cli.CheckPaths(r.paths); err != nil {
		return err
	}
	return cli.StartProfiles(r.value("cpuprofile"), r.value("memprofile"))
}

// value is the text of flag name ("" when the command has no such flag).
func (r *runner) value(name string) string {
	if f := r.fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// set reports whether the user gave flag name.
func (r *runner) set(name string) bool {
	given := false
	r.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// progress is a Progress shown on stderr as name's bar (or lines), counting in unit; nil
// with --json, or when the work is Slurm's.
func (r *runner) progress(name, unit string) *experiment.Progress {
	if r.json || r.onSlurm() {
		return nil
	}
	r.counted = experiment.NewProgress(func(done, total int64, note string) {
		if r.bar == nil {
			r.bar = cli.NewBar(false, name, total, unit)
		}
		r.bar.SetTotal(total)
		r.bar.Set(done, note)
	})
	return r.counted
}

// call makes a command's one call: then the bar and the timeline end, whatever the outcome.
func call[R any](r *runner, run func() (*R, error)) (*R, error) {
	res, err := run()
	r.bar.Finish(err == nil)
	r.bar = nil
	if r.tl != nil {
		err = r.tl.open.End(err)
	}
	return res, err
}

// report writes the result of a command's one call, if it has one (an array task, a dry run
// have none): the table (or JSON) on stdout, JSON to --out, and the plot to --plot.
func report[R any, P interface {
	*R
	experiment.Table
}](r *runner, res P, err error) error {
	if err != nil || res == nil {
		return err
	}
	return r.write(res, res.WriteTable)
}

// write is report with the table written by table.
func (r *runner) write(res any, table func(io.Writer) error) error {
	if err := writeResult(r.json, r.out, res, table); err != nil {
		return err
	}
	if r.plot != nil && *r.plot != "" {
		fig, ok := res.(experiment.Figure)
		if !ok {
			return errors.New("this result draws no plot")
		}
		return writeFile("--plot", *r.plot, fig.WritePlot)
	}
	return nil
}

// pathError is a path the command cannot use, found by the command itself (a waveform's
// folder that cannot be made): one line, exit 2, as cli.PathError, CheckPaths' refusal.
type pathError struct{ error }

// The files a command writes go through package cli: checked before the run, written beside
// and renamed into place.
var (
	writeFile   = cli.WriteFile
	writeBytes  = cli.WriteBytes
	writeResult = cli.WriteResult
)
