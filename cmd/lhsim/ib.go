package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/experiment/ib"
	"github.com/lhsim/lhsim/netsim"
	ibsim "github.com/lhsim/lhsim/netsim/ib"
)

func init() {
	register("ib", ibSummary, runIB)
	ibCommands = map[string]command{
		"rtt":       {ibRTTSummary, runIBRTT},
		"bandwidth": {ibBandwidthSummary, runIBBandwidth},
		"buffers":   {ibBuffersSummary, runIBBuffers},
		"cpr":       {ibCPRSummary, runIBCPR},
		"run":       {ibRunSummary, runIBRun},
	}
}

const ibSummary = "InfiniBand HCA model of the PM/InfiniBand-FJ paper (Sumimoto et al.): rtt, bandwidth, buffers, cpr, run (lhsim ib help)"

const (
	ibRTTSummary       = "pmtest round trip with and without Data on WQE on GC-LE and E7501 (Table 4)"
	ibBandwidthSummary = "message and RDMA bandwidth against size (Figures 5-6, Table 5)"
	ibBuffersSummary   = "receive-buffer memory against node count, and a shared receive queue running dry (§5.4)"
	ibCPRSummary       = "time of stop/save/restore/resume with range commands against one per QP (§5.5)"
	ibRunSummary       = "mixed traffic on many nodes, checkpointed (--checkpoint-at, --checkpoint) and resumed (--resume)"
)

// ibCommands are lhsim ib's subcommands.
var ibCommands map[string]command

func ibUsage(w *os.File) {
	fmt.Fprintln(w, "usage: lhsim ib SUBCOMMAND [flags]   (lhsim ib SUBCOMMAND -h for its flags)")
	listCommands(w, ibCommands, 9)
	fmt.Fprintln(w, "model, parameters and their sources: docs/ibsim.md")
}

func runIB(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "lhsim ib needs a subcommand")
		ibUsage(os.Stderr)
		return usageError{errors.New("lhsim ib needs a subcommand")}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 2 {
			if _, ok := ibCommands[args[1]]; ok {
				return ibCommands[args[1]].run([]string{"-h"})
			}
		}
		ibUsage(os.Stdout)
		return flag.ErrHelp
	}
	c, ok := ibCommands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "lhsim ib: unknown subcommand %q\n", args[0])
		ibUsage(os.Stderr)
		return usageError{fmt.Errorf("unknown subcommand %q", args[0])}
	}
	if err := c.run(args[1:]); err != nil {
		return subcommandError{"ib " + args[0], err}
	}
	return nil
}

// intList parses a comma-separated list of whole numbers in [lo, hi].
func intList(fs *flag.FlagSet, name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < lo || v > hi {
			return nil, badUsage(fs, fmt.Errorf("--%s: %q: want whole numbers %d..%d", name, f, lo, hi))
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, badUsage(fs, fmt.Errorf("--%s: want at least one value", name))
	}
	return out, nil
}

func runIBRTT(args []string) error {
	cfg := ib.DefaultRTT()
	fs := newFlags("ib rtt", ibRTTSummary)
	intVar(fs, &cfg.Size, "size", 16, 48, "message bytes, 16..48 (the largest that fits a WQE; the message carries a 16-byte check header)")
	intVar(fs, &cfg.Iterations, "iterations", 1, 1_000_000, "round trips timed")
	intVar(fs, &cfg.Warmup, "warmup", 0, 1_000_000, "round trips before the timing starts")
	out := addOutputFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	res, err := runParts(fs, "ib rtt", cfg, cfg.Parts(), ib.RunRTT, ib.MergeRTT)
	if err != nil {
		return err
	}
	return out.write(res, res.WriteTable)
}

func runIBBandwidth(args []string) error {
	cfg := ib.DefaultBandwidth()
	fs := newFlags("ib bandwidth", ibBandwidthSummary)
	chips := fs.String("chipset", strings.Join(cfg.Chipsets, ","), "comma-separated chipsets: gc-le, e7501")
	sizes := fs.String("sizes", "16,64,256,1024,2048,4096,8192", "comma-separated message sizes in bytes (16..8192); RDMA also goes on by fours to --rdma-max")
	intVar(fs, &cfg.RDMAMax, "rdma-max", 16, 1<<26, "largest RDMA write in bytes")
	plotOut := addPlotFlag(fs, "draw bandwidth against size to this .svg or .png")
	out := addOutputFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg.Chipsets = nil
	for _, c := range splitList(*chips) {
		if _, err := ibsim.ParseChipset(c); err != nil {
			return badUsage(fs, fmt.Errorf("--chipset: %w", err))
		}
		cfg.Chipsets = append(cfg.Chipsets, c)
	}
	if len(cfg.Chipsets) == 0 {
		return badUsage(fs, errors.New("--chipset: want gc-le, e7501 or both"))
	}
	var err error
	if cfg.Sizes, err = intList(fs, "sizes", *sizes, 16, 8192); err != nil {
		return err
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	res, err := runParts(fs, "ib bandwidth", cfg, cfg.Parts(), ib.RunBandwidth, ib.MergeBandwidth)
	if err != nil {
		return err
	}
	return report(out, plotOut, res)
}

func runIBBuffers(args []string) error {
	cfg := ib.DefaultBuffers()
	fs := newFlags("ib buffers", ibBuffersSummary)
	nodes := fs.String("nodes", "2,4,8,16,32,64,128,256,512,1024,2048,4096", "comma-separated node counts (2..4096)")
	intVar(fs, &cfg.PerPeer, "per-peer", 1, 65536, "receive buffers per RC QP (PM/InfiniBand-FJ paper §5.4: at least 128)")
	intVar(fs, &cfg.SRQDepth, "srq-depth", 1, 65536, "buffers in the shared receive queue (PM/InfiniBand-FJ paper §6: 8 MB of 8 KB)")
	intVar(fs, &cfg.Senders, "senders", 1, 255, "run-dry study: nodes sending to one receiver")
	intVar(fs, &cfg.Messages, "messages", 1, 100000, "run-dry study: messages from each sender")
	intVar(fs, &cfg.Size, "size", 16, 8192, "run-dry study: message bytes (16..8192)")
	timeVar(fs, &cfg.Consume, "consume", timeSpec{netsim.Microsecond, "µs", netsim.Picosecond, netsim.Second}, "run-dry study: µs the receiving host takes per message")
	depths := fs.String("depths", "64,256", "run-dry study: comma-separated shared receive queue depths")
	rates := fs.String("rates", "80,120,200", "run-dry study: comma-separated offered rates at the receiver, thousand messages a second")
	plotOut := addPlotFlag(fs, "draw memory per node against node count to this .svg or .png")
	out := addOutputFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	var err error
	if cfg.Nodes, err = intList(fs, "nodes", *nodes, 2, 4096); err != nil {
		return err
	}
	if cfg.Depths, err = intList(fs, "depths", *depths, 1, 65536); err != nil {
		return err
	}
	cfg.RatesKps = nil
	for _, r := range splitList(*rates) {
		v, err := checkFloat(r, 1e-3, 1e6)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--rates %s: %w (thousands of messages a second)", r, err))
		}
		cfg.RatesKps = append(cfg.RatesKps, v)
	}
	if len(cfg.RatesKps) == 0 {
		return badUsage(fs, errors.New("--rates: want at least one rate"))
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	res, err := runParts(fs, "ib buffers", cfg, cfg.Parts(), ib.RunBuffers, ib.MergeBuffers)
	if err != nil {
		return err
	}
	return report(out, plotOut, res)
}

func runIBCPR(args []string) error {
	cfg := ib.DefaultCPR()
	fs := newFlags("ib cpr", ibCPRSummary)
	qps := fs.String("qps", "1,3,15,63,255,1023,4095", "comma-separated QP counts on the HCA (1..65536)")
	chip := fs.String("chipset", "gc-le", "gc-le or e7501")
	out := addOutputFlags(fs)
	addJobsFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	var err error
	if cfg.QPs, err = intList(fs, "qps", *qps, 1, 65536); err != nil {
		return err
	}
	if cfg.Params, err = ibsim.ParseChipset(*chip); err != nil {
		return badUsage(fs, fmt.Errorf("--chipset: %w", err))
	}
	if err := out.check(fs); err != nil {
		return err
	}
	res, err := runParts(fs, "ib cpr", cfg, cfg.Parts(), ib.RunCPR, ib.MergeCPR)
	if err != nil {
		return err
	}
	return out.write(res, res.WriteTable)
}

func runIBRun(args []string) error {
	cfg := ib.DefaultRun()
	fs := newFlags("ib run", ibRunSummary)
	intVar(fs, &cfg.Machine.Nodes, "nodes", 2, 256, "nodes on one switch (2..256)")
	intVar(fs, &cfg.Workload.Messages, "messages", 1, 100000, "messages from each node to each other node")
	seedVar(fs, &cfg.Workload.Seed, "seed", "seed of the sizes, gaps and host times")
	intVar(fs, &cfg.Machine.RecvDepth, "recv-depth", 1, 65536, "receive buffers in the shared queue (srq) or per QP (rc)")
	receive := fs.String("receive", string(cfg.Machine.Receive), "receive buffers: srq (one shared queue) or rc (per peer)")
	chip := fs.String("chipset", "gc-le", "gc-le or e7501")
	timeVar(fs, &cfg.CheckpointAt, "checkpoint-at", timeSpec{netsim.Microsecond, "µs", netsim.Picosecond, netsim.MaxInput}, "take a checkpoint at this simulated time, µs (default: none)")
	noDefault(fs, "checkpoint-at")
	fs.BoolVar(&cfg.Bulk, "bulk", cfg.Bulk, "checkpoint with one range command per node and step (false: one per QP)")
	fs.StringVar(&cfg.Checkpoint, "checkpoint", "", "write the checkpoint to this file and stop there (needs --checkpoint-at)")
	resume := fs.String("resume", "", "go on with the run saved in this checkpoint file (the run's flags come from it)")
	out := addOutputFlags(fs)
	tl := addTimelineFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if tl.file != "" && (*resume != "" || cfg.CheckpointAt > 0) {
		return badUsage(fs, errors.New("--timeline records a whole run in this process; leave out --checkpoint-at and --resume"))
	}
	if err := tl.check(fs); err != nil {
		return err
	}
	if *resume != "" {
		if err := checkResume(fs, "nodes", "messages", "seed", "recv-depth", "receive", "chipset", "checkpoint-at", "bulk", "checkpoint"); err != nil {
			return err
		}
		if _, err := os.Stat(*resume); err != nil {
			return badUsage(fs, fmt.Errorf("--resume: %w", err))
		}
		if err := out.check(fs); err != nil {
			return err
		}
		res, err := ib.Resume(*resume)
		if err != nil {
			return err
		}
		return out.write(res, res.WriteTable)
	}
	cfg.Machine.Receive = ibsim.ReceiveMode(*receive)
	p, err := ibsim.ParseChipset(*chip)
	if err != nil {
		return badUsage(fs, fmt.Errorf("--chipset: %w", err))
	}
	cfg.Machine.Params = p
	cfg.Machine.RDMABytes = cfg.Machine.Nodes * 4096
	if cfg.Checkpoint != "" && cfg.CheckpointAt == 0 {
		return badUsage(fs, errors.New("--checkpoint needs --checkpoint-at"))
	}
	if err := cfg.Machine.Validate(); err != nil {
		return badUsage(fs, err)
	}
	if cfg.Checkpoint != "" {
		if err := checkpoint.CanWrite(cfg.Checkpoint); err != nil {
			return badUsage(fs, fmt.Errorf("--checkpoint: %w", err))
		}
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if cfg.Timeline, err = tl.open(); err != nil {
		return err
	}
	var pr *progress
	if cfg.CheckpointAt == 0 {
		cfg.Progress = func(done, total int64) {
			if pr == nil {
				pr = newProgress(out.json, "ib run", total, "sends")
			}
			pr.set(done, "")
		}
	}
	res, err := ib.Run(cfg)
	pr.finish(err == nil)
	err = tl.end(err)
	if err != nil {
		return err
	}
	if res.Saved != "" && !out.json {
		if err := res.WriteTable(os.Stderr); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "lhsim ib run: saved %s (resume with: lhsim ib run --resume %s)\n", res.Saved, res.Saved)
		if out.out == "" {
			return nil
		}
		return out.write(res, func(io.Writer) error { return nil })
	}
	return out.write(res, res.WriteTable)
}
