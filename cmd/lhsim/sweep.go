package main

import (
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/slurm"
)

// runSweep runs cfg, a sweep, with run: here (the whole configuration as one run, or its
// parts --jobs at a time, merged: cli.RunJobs), as this command's share of an array task, or
// as a Slurm job array of its parts, merged (cli.SlurmSweep). It returns nil with no error
// when there is nothing to print (an array task, a dry run). docs/cluster.md.
func runSweep[C experiment.Sweep[C, R], R any](r *runner, cfg C, run func(C) (*R, error)) (*R, error) {
	return call(r, func() (*R, error) {
		parts := cfg.Parts()
		if err := cli.PartFits(parts); err != nil {
			return nil, err
		}
		if r.onSlurm() {
			return cli.SlurmSweep(r.slurmSide(), parts, run, cfg.Merge)
		}
		if jobs := cli.FitJobs(r.cmd.name, r.partsAtOnce(), parts); jobs > 1 {
			r.counted.Parts(len(parts))
			return cli.RunJobs(jobs, parts, run, cfg.Merge)
		}
		return run(cfg)
	})
}

// partsAtOnce is --jobs, or 1 when --timeline records the run: one file, written in the
// order the runs happen.
func (r *runner) partsAtOnce() int {
	if r.tl != nil && *r.tl.file != "" {
		return 1
	}
	return r.jobs
}

// slurmSide is the command's side of a Slurm job array. An array task runs with all the
// flags the user gave but those that only say how to report or how many to run here
// (outputs, --json, --jobs, -j).
func (r *runner) slurmSide() cli.Slurm {
	skip := []string{"json", "jobs", "j"}
	for _, p := range r.paths {
		if !p.Input {
			skip = append(skip, p.Name)
		}
	}
	return cli.Slurm{Options: *r.slurm, Command: r.cmd.name, Args: slurm.Args(r.fs, skip...), Quiet: r.json}
}
