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
)

func init() {
	register("formal", formalSummary, runFormal)
}

const formalSummary = "prove the receive path's properties with yosys-smtbmc and print the table (docs/formal.md)"

func runFormal(args []string) error {
	fs := newFlags("formal", formalSummary)
	fast := fs.Bool("fast", false, "only the fast proofs (those make test runs)")
	only := fs.String("run", "", "only the proofs whose name matches this regular expression")
	dir := fs.String("dir", "build/formal", "work folder: models, logs and counterexample waveforms, a folder per proof")
	solver := fs.String("solver", formal.DefaultSolver, "SMT solver for yosys-smtbmc")
	timeout := fs.Duration("timeout", formal.DefaultTimeout, "limit of one tool run of a proof")
	parallel := new(int)
	*parallel = 1
	intVar(fs, parallel, "j", 1, 256, "proofs at once (an induction runs its base case and step as two processes)")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	var re *regexp.Regexp
	if *only != "" {
		var err error
		if re, err = regexp.Compile(*only); err != nil {
			return badUsage(fs, fmt.Errorf("--run: %w", err))
		}
	}
	if *parallel < 1 {
		return badUsage(fs, errMsg("-j must be at least 1"))
	}
	if *timeout <= 0 {
		return badUsage(fs, errMsg("--timeout must be positive"))
	}
	proofs := formal.Select(*fast, re)
	if len(proofs) == 0 {
		return badUsage(fs, fmt.Errorf("--run %q matches no proof", *only))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	root, err := area.FindRoot(".")
	if err != nil {
		return err
	}
	r := formal.Runner{Root: root, Dir: *dir, Solver: *solver, Timeout: *timeout, Parallel: *parallel}
	if err := r.Check(); err != nil {
		return err
	}
	start := time.Now()
	// A line per proof, above a bar over the proofs (or with a line every few seconds).
	pr := newProgress(out.json, "formal", int64(len(proofs)), "proofs")
	if !out.json {
		var mu sync.Mutex
		done := 0
		r.Log = func(res formal.Result) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(pr.writer(), "formal: %-70s %s (%.1f s)\n", res.Proof.Name, res.Text(), res.Seconds)
			done++
			pr.set(int64(done), "")
		}
	}
	results := r.RunAll(context.Background(), proofs)
	pr.finish(true)
	err = out.write(results, func(w io.Writer) error {
		if err := formal.Table(w, results); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "%d proofs in %.0f s (%s, -j %d)\n", len(results), time.Since(start).Seconds(), r.Solver, *parallel)
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
