package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/slurm"
)

// The --slurm layer of the sweep commands (regress, area, barrier, alltoall, traffic): the
// same flags on each (package slurm), and the same three ways to run: here, as a Slurm job
// array that this command waits for and merges, or as one array task (--slurm-task, set by
// the job script). docs/cluster.md.

// errDryRun stops a command after --dry-run printed the job script.
var errDryRun = errors.New("dry run: nothing submitted")

// addSlurmFlags defines the --slurm flags on a command's flag set.
func addSlurmFlags(fs *flag.FlagSet) *slurm.Options {
	o := &slurm.Options{}
	o.AddFlags(fs)
	return o
}

// checkSlurm reports a --slurm flag that makes no sense as a usage mistake.
func checkSlurm(fs *flag.FlagSet, o *slurm.Options) error {
	if err := o.Check(fs); err != nil {
		return badUsage(fs, err)
	}
	return nil
}

// runTask is a command's array-task side: its share of the units, each run with run.
func runTask(o *slurm.Options, fs *flag.FlagSet, command string, skip []string, run slurm.TaskFunc) error {
	return slurm.RunTask(context.Background(), o.Task, command, slurm.Args(fs, skip...), os.Stdout, run)
}

// submit hands a sweep to Slurm, shows its progress on stderr (a bar on a terminal, else a
// line now and then) and returns the outcome; nil with no error after a dry run, whose job
// script it printed on stdout.
func submit(ctx context.Context, o *slurm.Options, sw slurm.Sweep, quiet bool) (*slurm.Outcome, error) {
	bar := newProgress(quiet, "slurm", int64(len(sw.Units)), sw.Noun)
	res, err := slurm.Run(ctx, *o, sw, bar.writer(), slurmProgress(bar, os.Stderr, sw.Noun))
	bar.finish(err == nil)
	if err != nil {
		return nil, err
	}
	if res.DryRun {
		fmt.Print(res.Script)
		return nil, nil
	}
	return res, nil
}

// slurmProgress shows the job as it goes: the bar, or without one a line whenever another
// tenth of the units is done, and at least every minute.
func slurmProgress(bar *progress, w io.Writer, noun string) slurm.Progress {
	start := time.Now()
	last, step := time.Time{}, -1
	return func(s slurm.Status) {
		note := fmt.Sprintf("job %d: %s", s.Job, s.States)
		if bar != nil {
			bar.set(int64(s.Done), note)
			return
		}
		tenth := 0
		if s.Total > 0 {
			tenth = s.Done * 10 / s.Total
		}
		if tenth == step && time.Since(last) < time.Minute {
			return
		}
		step, last = tenth, time.Now()
		fmt.Fprintf(w, "[%*d/%d] %s done; %s  %5.1f s\n", len(fmt.Sprint(s.Total)), s.Done, s.Total, noun, note, time.Since(start).Seconds())
	}
}

// slurmTiming closes a Slurm run on stderr: where it ran and where the time went.
func slurmTiming(res *slurm.Outcome, mergeStart time.Time) {
	fmt.Fprintln(os.Stderr, res.Timing(time.Since(mergeStart)))
}

// sweep runs a network sweep: here (run on the whole configuration, or its parts --jobs at
// a time, merged: jobs.go), as this command's share of an array task, or as a Slurm job
// array of its parts, then merged. It returns nil with no error when there is nothing to print (an array task, a dry run).
func sweep[C any, R any](o *slurm.Options, fs *flag.FlagSet, command string, quiet bool, whole C, parts []experiment.Part[C],
	run func(C) (*R, error), merge func([]*R) (*R, error)) (*R, error) {
	outputs := []string{"json", "out", "plot", "jobs", "cpuprofile", "memprofile"}
	units := make([]slurm.Unit, len(parts))
	byKey := map[string]C{}
	for i, p := range parts {
		units[i] = slurm.Unit{Key: slurm.KeyOf(p.Label), Label: p.Label}
		byKey[units[i].Key] = p.Config
	}
	switch {
	case o.Task != "":
		return nil, runTask(o, fs, command, outputs, func(_ context.Context, u slurm.Unit) (any, error) {
			c, ok := byKey[u.Key]
			if !ok {
				return nil, fmt.Errorf("%s is not a part of this sweep", u.Label)
			}
			return run(c)
		})
	case o.Enabled:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		res, err := submit(ctx, o, slurm.Sweep{Command: command, Noun: "configurations", Args: slurm.Args(fs, outputs...), Units: units}, quiet)
		if err != nil || res == nil {
			return nil, err
		}
		merge0 := time.Now()
		got, err := slurm.Decode[R](res)
		if err != nil {
			return nil, err
		}
		ptrs := make([]*R, len(got))
		for i := range got {
			ptrs[i] = &got[i]
		}
		r, err := merge(ptrs)
		if err != nil {
			return nil, err
		}
		slurmTiming(res, merge0)
		return r, nil
	}
	return runParts(fs, command, whole, parts, run, merge)
}
