package main

import (
	"io"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment"
)

func init() {
	register("demo", demoSummary, runDemo)
	register("bench", benchSummary, runBench)
}

const (
	demoSummary  = "send short, long and malformed messages through the receive path; show where each went"
	benchSummary = "simulation speed on one workload: native C++ loop, cgo bridge, Go model, plugin bridge"
)

func runDemo(args []string) error {
	fs := newFlags("demo", demoSummary)
	dev := addDeviceFlags(fs)
	lhs := fs.Bool("lhs", true, "LHS on (false: every message whole in SO-DIMM, DIMMnet-2 before LHS)")
	seed := fs.Uint64("seed", 1, "seed of the message contents and the board")
	trace := fs.String("trace", "", "write an FST waveform of the RTL to this file")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := dev.config(fs)
	if err != nil {
		return err
	}
	cfg.Trace, cfg.Board.Seed = *trace, *seed
	host, err := dev.host(fs, drivers.Config{LHS: *lhs})
	if err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if err := checkTrace(fs, cfg); err != nil {
		return err
	}
	r, err := experiment.Demo(experiment.DemoConfig{Device: cfg, Host: host})
	if err != nil {
		return err
	}
	return out.write(r, func(w io.Writer) error { return experiment.PrintDemo(w, r) })
}

// bench compares fixed paths (native, cgo, Go model, plugin), so it takes no device flags.
func runBench(args []string) error {
	fs := newFlags("bench", benchSummary)
	msgs := fs.Uint64("messages", 100000, "messages in the workload")
	seed := fs.Uint64("seed", 1, "seed of the message sizes")
	repeats := fs.Int("repeats", 3, "runs per path; the fastest counts")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *msgs == 0 || *repeats < 1 {
		return badUsage(fs, errMsg("--messages and --repeats must be at least 1"))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	r, err := experiment.Bench(*msgs, *seed, *repeats)
	if err != nil {
		return err
	}
	return out.write(r, func(w io.Writer) error { return experiment.PrintBench(w, r) })
}
