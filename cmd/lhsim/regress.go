package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/regress"
	"github.com/lhsim/lhsim/slurm"
)

func init() {
	register("regress", regressSummary, runRegress)
	register("junit", junitSummary, runJUnit)
	register("coverage", coverageSummary, runCoverage)
}

const (
	regressSummary  = "the randomized tests over many seeds in parallel: progress, summary, JUnit XML"
	junitSummary    = "convert `go test -json` on stdin into a JUnit XML report"
	coverageSummary = "line, branch and toggle coverage per RTL module from a Verilator coverage.dat"
)

func runRegress(args []string) error {
	fs := newFlags("regress", regressSummary)
	n, first, jobs := new(int), new(uint64), new(int)
	*n, *first, *jobs = 200, 1, runtime.NumCPU()
	intVar(fs, n, "seeds", 1, 1_000_000, "number of seeds")
	uint64Var(fs, first, "first", 0, 1<<63, "first seed")
	intVar(fs, jobs, "jobs", 1, 1024, "test processes at a time")
	run := fs.String("run", "Random", "go test -run pattern of the randomized tests")
	pkg := fs.String("pkg", "./testbench", "package of the randomized tests")
	model := fs.String("model", "", "LHSIM_MODEL of the tests (rtl, go, lockstep; default: the tests' own, lockstep)")
	bridge := fs.String("bridge", "", "LHSIM_BRIDGE of the tests (cgo, plugin; default: the tests' own, cgo)")
	tags := fs.String("tags", "", "build tags of the test binary (lhscoverage: the coverage build)")
	junit := fs.String("junit", "", "also write the results as JUnit XML to this file")
	out := addOutputFlags(fs)
	sl := addSlurmFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dev, err := device.FromEnv(device.Config{Model: device.Model(*model), Bridge: device.Bridge(*bridge)})
	if err != nil {
		return badUsage(fs, err)
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	cfg := regress.Config{Package: *pkg, Run: *run, Jobs: *jobs, Model: *model, Bridge: *bridge, Tags: *tags}
	for i := 0; i < *n; i++ {
		cfg.Seeds = append(cfg.Seeds, *first+uint64(i))
	}
	// What the tasks run does not depend on these: they only say how to report, or how
	// many processes to run here.
	outputs := []string{"jobs", "junit", "json", "out"}
	if sl.Task != "" {
		cfg.Binary = slurm.TaskBinary(sl.Task, regressBinary)
		return runTask(sl, fs, "regress", outputs, func(ctx context.Context, u slurm.Unit) (any, error) {
			seed, err := strconv.ParseUint(u.Label, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("unit %q is not a seed", u.Label)
			}
			return regress.RunSeed(ctx, cfg, seed), nil
		})
	}
	// It compiles the tests of the source tree (go test -c), so it runs inside one.
	if _, err := area.FindRoot("."); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(os.Stderr, "building %s ...\n", *pkg)
	cfg, err = regress.Build(ctx, cfg)
	if err != nil {
		return err
	}
	if names, err := regress.List(ctx, cfg); err != nil {
		return err
	} else if len(names) == 0 {
		return badUsage(fs, fmt.Errorf("--run %s matches no test in %s", *run, *pkg))
	}
	var r *regress.Report
	if sl.Enabled {
		sw := slurm.Sweep{Command: "regress", Noun: "seeds", Args: slurm.Args(fs, outputs...),
			Files: map[string]string{regressBinary: cfg.Binary}}
		if dev.Bridge == device.Plugin {
			// Beside the test binary, where the tests look for it first (plugin.Locate).
			p, err := plugin.Locate()
			if err != nil {
				return err
			}
			sw.Files[plugin.BinaryName] = p
		}
		for _, s := range cfg.Seeds {
			sw.Units = append(sw.Units, slurm.Unit{Key: fmt.Sprintf("seed-%d", s), Label: fmt.Sprint(s)})
		}
		start := time.Now()
		res, err := submit(ctx, sl, sw, out.json)
		if err != nil || res == nil {
			return err
		}
		merge := time.Now()
		results, err := slurm.Decode[regress.SeedResult](res)
		if err != nil {
			return err
		}
		for i, s := range results {
			if s.Seed != cfg.Seeds[i] {
				return fmt.Errorf("slurm: the result of seed %d in %s says seed %d: not merged", cfg.Seeds[i], res.Dir, s.Seed)
			}
		}
		r = &regress.Report{Config: cfg, Results: results, Elapsed: time.Since(start), Where: res.Where()}
		defer slurmTiming(res, merge)
	} else {
		bar := newProgress(out.json, "regress", int64(len(cfg.Seeds)), "seeds")
		r, err = regress.Run(ctx, cfg, regressProgress(bar, os.Stderr))
		bar.finish(err == nil)
		if err != nil && r == nil {
			return err
		}
	}
	if perr := out.write(r, func(w io.Writer) error {
		if err := r.Print(w); err != nil {
			return err
		}
		for _, s := range r.Results {
			if s.Waveform != "" {
				fmt.Fprintf(w, "seed %d: waveform %s\n", s.Seed, s.Waveform)
			}
		}
		return nil
	}); perr != nil {
		return perr
	}
	if *junit != "" {
		if jerr := writeJUnit(*junit, r.JUnit()); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return fmt.Errorf("stopped after %d of %d seeds: %w", len(r.Results), len(cfg.Seeds), err)
	}
	if r.Failed() > 0 {
		return fmt.Errorf("%d of %d seeds failed", r.Failed(), len(r.Results))
	}
	return nil
}

// regressBinary is the test binary's name in a Slurm work directory's bin/.
const regressBinary = "regress.test"

// regressProgress shows the regression as it goes: a progress bar on a terminal (shared with
// the other long commands, progress.go), a line every tenth of the seeds otherwise; a failed
// seed is announced when it fails, above the bar.
func regressProgress(bar *progress, w io.Writer) regress.Progress {
	start := time.Now()
	step := 0
	return func(done, total, failed int, last regress.SeedResult) {
		if !last.Passed {
			bar.log("seed %d FAILED: %s", last.Seed, strings.Join(last.Failed, " "))
		}
		if bar != nil {
			bar.set(int64(done), fmt.Sprintf("(%d failed)", failed))
			return
		}
		if done == total || done*10/total > step {
			step = done * 10 / total
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(done) * float64(total-done))
			fmt.Fprintf(w, "[%*d/%d] %d passed, %d failed  %5.1f s, about %.0f s to go\n", len(fmt.Sprint(total)), done, total,
				done-failed, failed, el.Seconds(), eta.Seconds())
		}
	}
}

func writeJUnit(path string, r *regress.JUnit) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := regress.WriteJUnit(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func runJUnit(args []string) error {
	fs := newFlags("junit", junitSummary)
	out := fs.String("out", "build/junit.xml", "JUnit XML file to write")
	if err := parse(fs, args); err != nil {
		return err
	}
	r, err := regress.FromTestJSON(os.Stdin, os.Stdout)
	if err != nil {
		return err
	}
	if err := writeJUnit(*out, r); err != nil {
		return err
	}
	tests, failed, skipped := regress.Counts(r)
	fmt.Printf("JUnit report %s: %d tests, %d failed, %d skipped\n", *out, tests, failed, skipped)
	if failed > 0 {
		return fmt.Errorf("%d tests failed", failed)
	}
	return nil
}

func runCoverage(args []string) error {
	fs := newFlags("coverage", coverageSummary)
	uncovered := fs.Bool("uncovered", false, "also list the line and branch points never reached")
	file := fs.String("dat", "build/coverage/coverage.dat", "the Verilator coverage.dat to read")
	if err := parse(fs, args); err != nil {
		return err
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	c, err := regress.ReadCoverage(f)
	if err != nil {
		return err
	}
	if err := c.Print(os.Stdout); err != nil {
		return err
	}
	if *uncovered {
		fmt.Println("line and branch points never reached:")
		return c.PrintUncovered(os.Stdout)
	}
	return nil
}
