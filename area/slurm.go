package area

// On Slurm the synthesis sweep is a job array of its Yosys jobs (lhsim area --slurm,
// docs/cluster.md): an array task runs its share of the jobs (TaskRun), and the submitting
// side hands the jobs over and takes their reports back in job order (OnSlurm), as
// Runner.RunAll gives them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/lhsim/lhsim/slurm"
)

// ErrDryRun stops the sweep once Slurm's dry run has printed the job script: no table.
var ErrDryRun = errors.New("dry run: nothing submitted")

// TaskRun is an array task's run of a unit, one of o's jobs (checked to be one).
func (o Options) TaskRun() (slurm.TaskFunc, error) {
	ar, err := o.Runner()
	if err != nil {
		return nil, err
	}
	if err := ar.Check(); err != nil {
		return nil, err
	}
	jobs := map[string]Job{}
	for _, j := range o.Jobs() {
		jobs[slurm.KeyOf(j.String())] = j
	}
	return func(ctx context.Context, u slurm.Unit) (any, error) {
		j, ok := jobs[u.Key]
		if !ok {
			return nil, fmt.Errorf("%s is not a job of this sweep", u.Label)
		}
		return ar.Run(ctx, j)
	}, nil
}

// OnSlurm is an Options.RunAll that hands the jobs to Slurm with submit (each array task
// running with args) and returns their reports in job order, the time taken written to log;
// ErrDryRun after a dry run.
func OnSlurm(args []string, submit func(context.Context, slurm.Sweep) (*slurm.Outcome, error), log io.Writer) func(context.Context, Runner, []Job, func(Report, time.Duration)) ([]Report, error) {
	return func(ctx context.Context, ar Runner, jobs []Job, _ func(Report, time.Duration)) ([]Report, error) {
		sw := slurm.Sweep{Command: "area", Noun: "synthesis jobs", Args: args}
		for _, j := range jobs {
			sw.Units = append(sw.Units, slurm.Unit{Key: slurm.KeyOf(j.String()), Label: j.String()})
		}
		// The reports depend on the sources Yosys reads, besides lhsim itself.
		for _, pat := range []string{"rtl/*.v", "rtl/*.vh"} {
			m, err := filepath.Glob(filepath.Join(ar.Root, pat))
			if err != nil {
				return nil, err
			}
			sw.Identity = append(sw.Identity, m...)
		}
		res, err := submit(ctx, sw)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, ErrDryRun // the job script is printed: no table
		}
		defer func(start time.Time) { fmt.Fprintln(log, res.Timing(time.Since(start))) }(time.Now())
		reps, err := slurm.Decode[Report](res)
		if err != nil {
			return nil, err
		}
		for i, rep := range reps {
			if rep.Job.String() != jobs[i].String() {
				return nil, fmt.Errorf("slurm: the report for %s in %s is of %s: not merged", jobs[i], res.Dir, rep.Job)
			}
		}
		return reps, nil
	}
}
