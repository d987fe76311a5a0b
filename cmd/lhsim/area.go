package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"regexp"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/internal/cli"
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
		run, err := o.TaskRun()
		if err != nil {
			return err
		}
		return r.slurmSide().RunTask(run)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if r.slurm.Enabled {
		r.json = o.JSON // the Slurm progress is quiet as the table is
		s := r.slurmSide()
		o.RunAll = area.OnSlurm(s.Args, s.Submit, os.Stderr)
	}
	// A bar over the Yosys runs of this process (a Slurm sweep shows its own).
	var pr *cli.Bar
	if !o.Cached && !r.onSlurm() {
		pr = cli.NewBar(o.JSON, "area", int64(len(o.Jobs())), "Yosys runs")
		if pr != nil {
			o.Progress = func(done, _ int) { pr.Set(int64(done), "") }
		}
	}
	err = area.Command(ctx, o, os.Stdout, pr.Writer())
	pr.Finish(err == nil)
	if !errors.Is(err, area.ErrDryRun) {
		return err
	}
	return nil
}
