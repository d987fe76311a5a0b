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
	register("area", areaSummary, runArea)
}

const areaSummary = "Table 1: LUT/FF/BRAM and Virtex-II Pro slices of LHS and the ALPU (Yosys)"

func runArea(args []string) error {
	var o area.Options
	fs := newFlags("area", areaSummary)
	fs.BoolVar(&o.Cached, "cached", false, "read the checked-in reports instead of running Yosys (seconds instead of minutes)")
	fs.StringVar(&o.Reports, "reports", area.DefaultReports, "reports directory, relative to the repository root (-cached outside the source tree: the checked-in ones built into lhsim)")
	fs.BoolVar(&o.Write, "write", false, "save the reports, summary.json and table1.txt in -reports (what make synth does)")
	fs.BoolVar(&o.JSON, "json", false, "print Table 1 as JSON on stdout (keyed by message count) instead of the tables")
	families := fs.String("families", "xc2vp,xc7", "synth_xilinx families to run")
	only := fs.String("only", "", "run only the sweep's jobs whose family/name this regexp matches (e.g. 'xc2vp/lhs_rx')")
	o.Parallel = 2
	intVar(fs, &o.Parallel, "j", 1, 256, "Yosys processes at once")
	sl := addSlurmFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	var err error
	if o.Families, err = area.ParseFamilies(*families); err != nil {
		return badUsage(fs, err)
	}
	if o.Parallel < 1 {
		return badUsage(fs, errMsg("-j must be at least 1"))
	}
	if *only != "" {
		if o.Only, err = regexp.Compile(*only); err != nil {
			return badUsage(fs, fmt.Errorf("-only: %w", err))
		}
		if o.Write {
			return badUsage(fs, errMsg("-write saves the whole sweep's summary: not with -only"))
		}
		if len(o.Jobs()) == 0 {
			return badUsage(fs, fmt.Errorf("-only %s matches no job of the sweep on %s", *only, *families))
		}
	}
	if err := checkSlurm(fs, sl); err != nil {
		return err
	}
	if (sl.Enabled || sl.Task != "") && o.Cached {
		return badUsage(fs, errMsg("-cached runs no Yosys: nothing to hand to Slurm"))
	}
	// What the tasks synthesize does not depend on these.
	outputs := []string{"json", "j"}
	if sl.Task != "" {
		r, err := o.Runner()
		if err != nil {
			return err
		}
		if err := r.Check(); err != nil {
			return err
		}
		jobs := map[string]area.Job{}
		for _, j := range o.Jobs() {
			jobs[slurm.KeyOf(j.String())] = j
		}
		return runTask(sl, fs, "area", outputs, func(ctx context.Context, u slurm.Unit) (any, error) {
			j, ok := jobs[u.Key]
			if !ok {
				return nil, fmt.Errorf("%s is not a job of this sweep", u.Label)
			}
			return r.Run(ctx, j)
		})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if sl.Enabled {
		o.RunAll = func(ctx context.Context, r area.Runner, jobs []area.Job, _ func(area.Report, time.Duration)) ([]area.Report, error) {
			sw := slurm.Sweep{Command: "area", Noun: "synthesis jobs", Args: slurm.Args(fs, outputs...)}
			for _, j := range jobs {
				sw.Units = append(sw.Units, slurm.Unit{Key: slurm.KeyOf(j.String()), Label: j.String()})
			}
			// The reports depend on the sources Yosys reads, besides lhsim itself.
			for _, pat := range []string{"rtl/*.v", "rtl/*.vh"} {
				m, err := filepath.Glob(filepath.Join(r.Root, pat))
				if err != nil {
					return nil, err
				}
				sw.Identity = append(sw.Identity, m...)
			}
			res, err := submit(ctx, sl, sw, o.JSON)
			if err != nil {
				return nil, err
			}
			if res == nil {
				return nil, errDryRun // the job script is printed: no table
			}
			defer slurmTiming(res, time.Now())
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
	if !o.Cached && !sl.Enabled && sl.Task == "" {
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
