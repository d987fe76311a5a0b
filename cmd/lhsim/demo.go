package main

import (
	"encoding/json"
	"flag"
	"os"

	"github.com/lhsim/lhsim/experiment"
)

func init() {
	register("demo", "send short, long and malformed messages through the receive path; show where each went", runDemo)
	register("bench", "simulation speed on one workload: native C++ loop, cgo bridge, Go model, plugin bridge", runBench)
}

func runDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	model := fs.String("model", "rtl", "rtl (Verilated, through cgo), go (golden model) or lockstep (both, compared every cycle)")
	lhs := fs.Bool("lhs", true, "LHS on (false: every message whole in SO-DIMM, DIMMnet-2 before LHS)")
	seed := fs.Uint64("seed", 1, "seed of the message contents")
	trace := fs.String("trace", "", "write an FST waveform of the RTL to this file")
	asJSON := fs.Bool("json", false, "print JSON")
	bridge := bridgeFlag(fs)
	fs.Parse(args)
	if err := useBridge(bridge); err != nil {
		return err
	}
	r, err := experiment.Demo(experiment.DemoConfig{Model: *model, LHS: *lhs, Seed: *seed, Trace: *trace})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(r)
	}
	return experiment.PrintDemo(os.Stdout, r)
}

func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	msgs := fs.Uint64("messages", 100000, "messages in the workload")
	seed := fs.Uint64("seed", 1, "seed of the message sizes")
	repeats := fs.Int("repeats", 3, "runs per path; the fastest counts")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Parse(args)
	r, err := experiment.Bench(*msgs, *seed, *repeats)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(r)
	}
	return experiment.PrintBench(os.Stdout, r)
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
