package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/regress"
	"github.com/lhsim/lhsim/slurm"
)

func init() {
	register(
		&command{name: "regress", summary: "the randomized tests over many seeds in parallel: progress, summary, JUnit XML", flags: regressFlags},
		&command{name: "junit", summary: "convert `go test -json` on stdin into a JUnit XML report", flags: junitFlags},
		&command{name: "coverage", summary: "line, branch and toggle coverage per RTL module from a Verilator coverage.dat", flags: coverageFlags},
	)
}

func regressFlags(r *runner) func() error {
	fs := r.fs
	n, first := 200, uint64(1)
	intVar(fs, &n, "seeds", 1, 1_000_000, "number of seeds")
	uint64Var(fs, &first, "first", 0, 1<<63, "first seed")
	r.jobsFlag(runtime.NumCPU(), "test processes at a time")
	run := fs.String("run", "Random", "go test -run pattern of the randomized tests")
	pkg := fs.String("pkg", "./testbench", "package of the randomized tests")
	model := fs.String("model", "", "LHSIM_MODEL of the tests (rtl, go, lockstep; default: the tests' own, lockstep)")
	bridge := fs.String("bridge", "", "LHSIM_BRIDGE of the tests (cgo, plugin; default: the tests' own, cgo)")
	tags := fs.String("tags", "", "build tags of the test binary (lhscoverage: the coverage build)")
	junit := r.outFile("junit", "also write the results as JUnit XML to this file")
	r.outputs()
	r.slurmFlags()
	return func() error {
		cfg := regress.Config{Package: *pkg, Run: *run, Jobs: r.jobs, Model: *model, Bridge: *bridge, Tags: *tags}
		for i := range n {
			cfg.Seeds = append(cfg.Seeds, first+uint64(i))
		}
		return runRegress(r, cfg, *junit)
	}
}

func runRegress(r *runner, cfg regress.Config, junit string) error {
	dev, err := device.FromEnv(device.Config{Model: device.Model(cfg.Model), Bridge: device.Bridge(cfg.Bridge)})
	if err != nil {
		return r.badUsage(err)
	}
	if r.slurm.Task != "" {
		cfg.Binary = slurm.TaskBinary(r.slurm.Task, regress.BinaryName)
		return r.slurmSide().RunTask(func(ctx context.Context, u slurm.Unit) (any, error) { return regress.RunUnit(ctx, cfg, u) })
	}
	// It compiles the tests of the source tree (go test -c), so it runs inside one.
	if _, err := area.FindRoot("."); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(os.Stderr, "building %s ...\n", cfg.Package)
	cfg, err = regress.Build(ctx, cfg)
	if err != nil {
		return err
	}
	if names, err := regress.List(ctx, cfg); err != nil {
		return err
	} else if len(names) == 0 {
		return r.usage("--run %s matches no test in %s", cfg.Run, cfg.Package)
	}
	var rep *regress.Report
	if r.slurm.Enabled {
		files := map[string]string{}
		if dev.Bridge == device.Plugin {
			// Beside the test binary, where the tests look for it first (plugin.Locate).
			p, err := plugin.Locate()
			if err != nil {
				return err
			}
			files[plugin.BinaryName] = p
		}
		s := r.slurmSide()
		start := time.Now()
		res, err := s.Submit(ctx, cfg.Sweep(s.Args, files))
		if err != nil || res == nil {
			return err
		}
		merge := time.Now()
		if rep, err = regress.Merge(cfg, res, start); err != nil {
			return err
		}
		defer func() { fmt.Fprintln(os.Stderr, res.Timing(time.Since(merge))) }()
	} else {
		bar := cli.NewBar(r.json, "regress", int64(len(cfg.Seeds)), "seeds")
		rep, err = regress.Run(ctx, cfg, regressProgress(bar, os.Stderr))
		bar.Finish(err == nil)
		if err != nil && rep == nil {
			return err
		}
	}
	if perr := r.write(rep, rep.WriteTable); perr != nil {
		return perr
	}
	if junit != "" {
		if jerr := writeJUnit("--junit", junit, rep.JUnit()); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return fmt.Errorf("stopped after %d of %d seeds: %w", len(rep.Results), len(cfg.Seeds), err)
	}
	if rep.Failed() > 0 {
		return fmt.Errorf("%d of %d seeds failed", rep.Failed(), len(rep.Results))
	}
	return nil
}

// regressProgress shows the regression as it goes: a progress bar on a terminal (shared with
// the other long commands, cli.Bar), a line every tenth of the seeds otherwise; a failed
// seed is announced when it fails, above the bar.
func regressProgress(bar *cli.Bar, w io.Writer) regress.Progress {
	start := time.Now()
	step := 0
	return func(done, total, failed int, last regress.SeedResult) {
		if !last.Passed {
			bar.Log("seed %d FAILED: %s", last.Seed, strings.Join(last.Failed, " "))
		}
		if bar != nil {
			bar.Set(int64(done), fmt.Sprintf("(%d failed)", failed))
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

// writeJUnit writes r as JUnit XML to path (the folder made), flag naming it in errors.
func writeJUnit(flag, path string, r *regress.JUnit) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return cli.WriteTo(flag, path, func(w io.Writer) error { return regress.WriteJUnit(w, r) })
}

func junitFlags(r *runner) func() error {
	out := r.outFile("out", "JUnit XML file to write")
	*out = "build/junit.xml"
	r.fs.Lookup("out").DefValue = *out
	return func() error {
		rep, err := regress.FromTestJSON(os.Stdin, os.Stdout)
		if err != nil {
			return err
		}
		if err := writeJUnit("--out", *out, rep); err != nil {
			return err
		}
		tests, failed, skipped := regress.Counts(rep)
		fmt.Printf("JUnit report %s: %d tests, %d failed, %d skipped\n", *out, tests, failed, skipped)
		if failed > 0 {
			return fmt.Errorf("%d tests failed", failed)
		}
		return nil
	}
}

func coverageFlags(r *runner) func() error {
	uncovered := r.fs.Bool("uncovered", false, "also list the line and branch points never reached")
	file := r.inFile("dat", "the Verilator coverage.dat to read")
	*file = "build/coverage/coverage.dat"
	r.fs.Lookup("dat").DefValue = *file
	return func() error { return printCoverage(*file, *uncovered) }
}

// printCoverage prints the coverage file holds, and the points never reached.
func printCoverage(file string, uncovered bool) error {
	f, err := os.Open(file)
	if err != nil {
		return experiment.Input(err) // the input is missing: exit 2
	}
	defer f.Close()
	c, err := regress.ReadCoverage(f)
	if err != nil {
		return err
	}
	if err := c.Print(os.Stdout); err != nil {
		return err
	}
	if uncovered {
		fmt.Println("line and branch points never reached:")
		return c.PrintUncovered(os.Stdout)
	}
	return nil
}
