package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/formal"
	"github.com/lhsim/lhsim/internal/cli"
)

func init() {
	register(&command{name: "formal", summary: "prove the receive path's properties with yosys-smtbmc and print the table (docs/formal.md)", flags: formalFlags})
}

func formalFlags(r *runner) func() error {
	fs := r.fs
	fast := fs.Bool("fast", false, "only the fast proofs (those make test runs)")
	only := fs.String("run", "", "only the proofs whose name matches this regular expression")
	dir := fs.String("dir", "build/formal", "work folder: models, logs and counterexample waveforms, a folder per proof")
	solver := fs.String("solver", formal.DefaultSolver, "SMT solver for yosys-smtbmc")
	timeout := fs.Duration("timeout", formal.DefaultTimeout, "limit of one tool run of a proof")
	parallel := 1
	intVar(fs, &parallel, "j", 1, 256, "proofs at once (an induction runs its base case and step as two processes)")
	r.outputs()
	return func() error {
		return runFormal(r, *fast, *only, *dir, *solver, *timeout, parallel)
	}
}

func runFormal(r *runner, fast bool, only, dir, solver string, timeout time.Duration, parallel int) error {
	var re *regexp.Regexp
	if only != "" {
		var err error
		if re, err = regexp.Compile(only); err != nil {
			return r.usage("--run: %w", err)
		}
	}
	if timeout <= 0 {
		return r.usage("--timeout must be positive")
	}
	proofs := formal.Select(fast, re)
	if len(proofs) == 0 {
		return r.usage("--run %q matches no proof", only)
	}
	root, err := area.FindRoot(".")
	if err != nil {
		return err
	}
	fr := formal.Runner{Root: root, Dir: dir, Solver: solver, Timeout: timeout, Parallel: parallel}
	if err := fr.Check(); err != nil {
		return err
	}
	start := time.Now()
	// A line per proof, above a bar over the proofs (or with a line every few seconds).
	pr := cli.NewBar(r.json, "formal", int64(len(proofs)), "proofs")
	if !r.json {
		var mu sync.Mutex
		done := 0
		fr.Log = func(res formal.Result) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(pr.Writer(), "formal: %-70s %s (%.1f s)\n", res.Proof.Name, res.Text(), res.Seconds)
			done++
			pr.Set(int64(done), "")
		}
	}
	results := fr.RunAll(context.Background(), proofs)
	pr.Finish(true)
	err = r.write(results, func(w io.Writer) error {
		if err := formal.Table(w, results); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "%d proofs in %.0f s (%s, -j %d)\n", len(results), time.Since(start).Seconds(), fr.Solver, parallel)
		return err
	})
	if err != nil {
		return err
	}
	if !formal.Passed(results) {
		return formal.ErrFailed
	}
	return nil
}
