package main

import (
	"io"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/internal/flagval"
)

func init() {
	register(
		&command{name: "demo", summary: "send short, long and malformed messages through the receive path; show where each went", flags: demoFlags},
		&command{name: "bench", summary: "simulation speed on one workload: native C++ loop, cgo bridge, Go model, plugin bridge", flags: benchFlags},
	)
}

func demoFlags(r *runner) func() error {
	dev := addDeviceFlags(r.fs)
	lhs := r.fs.Bool("lhs", true, "LHS on (false: every message whole in SO-DIMM, DIMMnet-2 before LHS)")
	seed := uint64(1)
	flagval.Seed(r.fs, &seed, "seed", "seed of the message contents and the board")
	trace := r.traceFile("write an FST waveform of the RTL to this file")
	r.outputs()
	return func() error {
		cfg, err := dev.config(r)
		if err != nil {
			return err
		}
		cfg.Trace, cfg.Board.Seed = *trace, seed
		host, err := dev.host(r, drivers.Config{LHS: *lhs}, 0, "")
		if err != nil {
			return err
		}
		if err := checkTrace(r, cfg.Model, cfg.Trace); err != nil {
			return err
		}
		res, err := rx.Demo(rx.DemoConfig{Device: cfg, Driver: host})
		if err != nil {
			return err
		}
		return r.write(res, func(w io.Writer) error { return rx.PrintDemo(w, res) })
	}
}

// bench compares fixed paths (native, cgo, Go model, plugin), so it takes no device flags.
func benchFlags(r *runner) func() error {
	msgs, seed, repeats := uint64(100000), uint64(1), 3
	flagval.Uint64(r.fs, &msgs, "messages", 1, 1<<32, "messages in the workload")
	flagval.Seed(r.fs, &seed, "seed", "seed of the message sizes")
	flagval.Int(r.fs, &repeats, "repeats", 1, 1000, "runs per path; the fastest counts")
	r.outputs()
	return func() error {
		res, err := rx.Bench(msgs, seed, repeats)
		if err != nil {
			return err
		}
		return r.write(res, func(w io.Writer) error { return rx.PrintBench(w, res) })
	}
}
