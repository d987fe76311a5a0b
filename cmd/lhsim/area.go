package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"time"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/slurm"
)

func init() {
	register(&command{name: "area", summary: "Table 1: LUT/FF/BRAM and Virtex-II Pro slices of LHS and the ALPU (Yosys)", flags: areaFlags})
}

func areaFlags(r *runner) func() error {
	var o area.Options
	fs := r.fs
	fs.BoolVar(&o.Cached, "cached", false, "read the checked-in reports instead of running Yosys (seconds instead of minutes)")
	fs.StringVar(&o.Reports, "reports", area.DefaultReports, "reports directory, relative to the repository root (-cached outside the source tree: the checked-in ones built into lhsim)")
	fs.BoolVar(&o.Write, "write", false, "save the reports, summary.json and table1.txt in -reports (what make synth does)")
	fs.BoolVar(&o.JSON, "json", false, "print Table 1 as JSON on stdout (keyed by message count) instead of the tables")
	families := fs.String("families", "xc2vp,xc7", "synth_xilinx families to run")
	only := fs.String("only", "", "run only the sweep's jobs whose family/name this regexp matches (e.g. 'xc2vp/lhs_rx'); with -write the other jobs keep the reports they have")
	o.Parallel = 2
	intVar(fs, &o.Parallel, "j", 1, 256, "Yosys processes at once")
	r.slurmFlags()
	return func() error { return runArea(r, o, *families, *only) }
}

func runArea(r *runner, o area.Options, families, only string) error {
	var err error
	if o.Families, err = area.ParseFamilies(families); err != nil {
		return r.badUsage(err)
	}
	if only != "" {
		if o.Only, err = regexp.Compile(only); err != nil {
			return r.usage("-only: %w", err)
		}
		if len(o.Jobs()) == 0 {
			return r.usage("-only %s matches no job of the sweep on %s", only, families)
		}
	}
	if r.onSlurm() && o.Cached {
		return r.usage("-cached runs no Yosys: nothing to hand to Slurm")
	}
	if r.slurm.Task != "" {
		ar, err := o.Runner()
		if err != nil {
			return err
		}
		if err := ar.Check(); err != nil {
			return err
		}
		jobs := map[string]area.Job{}
		for _, j := range o.Jobs() {
			jobs[slurm.KeyOf(j.String())] = j
		}
		return r.runTask(func(ctx context.Context, u slurm.Unit) (any, error) {
			j, ok := jobs[u.Key]
			if !ok {
				return nil, fmt.Errorf("%s is not a job of this sweep", u.Label)
			}
			return ar.Run(ctx, j)
		})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if r.slurm.Enabled {
		r.json = o.JSON // the Slurm progress is quiet as the table is
		o.RunAll = func(ctx context.Context, ar area.Runner, jobs []area.Job, _ func(area.Report, time.Duration)) ([]area.Report, error) {
			sw := slurm.Sweep{Command: "area", Noun: "synthesis jobs", Args: r.taskArgs()}
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
			res, err := r.submit(ctx, sw)
			if err != nil {
				return nil, err
			}
			if res == nil {
				return nil, errDryRun // the job script is printed: no table
			}
			defer func(start time.Time) { fmt.Fprintln(os.Stderr, res.Timing(time.Since(start))) }(time.Now())
			reps, err := slurm.Decode[area.Report](res)
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
	// A bar over the Yosys runs of this process (a Slurm sweep shows its own).
	var pr *progress
	if !o.Cached && !r.onSlurm() {
		pr = newProgress(o.JSON, "area", int64(len(o.Jobs())), "Yosys runs")
		if pr != nil {
			o.Progress = func(done, _ int) { pr.set(int64(done), "") }
		}
	}
	err = area.Command(ctx, o, os.Stdout, pr.writer())
	pr.finish(err == nil)
	if !errors.Is(err, errDryRun) {
		return err
	}
	return nil
}

// errDryRun stops the area sweep after --dry-run printed the job script.
var errDryRun = errors.New("dry run: nothing submitted")
