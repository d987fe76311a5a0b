package main

import (
	"context"
	"os"

	"github.com/lhsim/lhsim/area"
)

func init() {
	register("area", areaSummary, runArea)
}

const areaSummary = "Table 1: LUT/FF/BRAM and Virtex-II Pro slices of LHS and the ALPU (Yosys)"

func runArea(args []string) error {
	var o area.Options
	fs := newFlags("area", areaSummary)
	fs.BoolVar(&o.Cached, "cached", false, "read the checked-in reports instead of running Yosys (seconds instead of minutes)")
	fs.StringVar(&o.Reports, "reports", "synth-reports", "reports directory, relative to the repository root")
	fs.BoolVar(&o.Write, "write", false, "save the reports, summary.json and table1.txt in -reports (what make synth does)")
	fs.BoolVar(&o.JSON, "json", false, "print Table 1 as JSON on stdout (keyed by message count) instead of the tables")
	families := fs.String("families", "xc2vp,xc7", "synth_xilinx families to run")
	fs.IntVar(&o.Parallel, "j", 2, "Yosys processes at once")
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
	return area.Command(context.Background(), o, os.Stdout, os.Stderr)
}
