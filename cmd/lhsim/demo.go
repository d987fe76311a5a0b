package main

import (
	"io"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment/rx"
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
	seed := new(uint64)
	*seed = 1
	seedVar(fs, seed, "seed", "seed of the message contents and the board")
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
	r, err := rx.Demo(rx.DemoConfig{Device: cfg, Driver: host})
	if err != nil {
		return err
	}
	return out.write(r, func(w io.Writer) error { return rx.PrintDemo(w, r) })
}

// bench compares fixed paths (native, cgo, Go model, plugin), so it takes no device flags.
func runBench(args []string) error {
	fs := newFlags("bench", benchSummary)
	msgs, seed, repeats := new(uint64), new(uint64), new(int)
	*msgs, *seed, *repeats = 100000, 1, 3
	uint64Var(fs, msgs, "messages", 1, 1<<32, "messages in the workload")
	seedVar(fs, seed, "seed", "seed of the message sizes")
	intVar(fs, repeats, "repeats", 1, 1000, "runs per path; the fastest counts")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	r, err := rx.Bench(*msgs, *seed, *repeats)
	if err != nil {
		return err
	}
	return out.write(r, func(w io.Writer) error { return rx.PrintBench(w, r) })
}
