package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment/ib"
)

func init() {
	register(&command{name: "ib", summary: "InfiniBand HCA model of the PM/InfiniBand-FJ paper (Sumimoto et al.): rtt, bandwidth, buffers, cpr, run (lhsim ib help)",
		args: "model, parameters and their sources: docs/ib.md", subs: []*command{
			{name: "ib rtt", summary: "pmtest round trip with and without Data on WQE on GC-LE and E7501 (Table 4)", flags: ibRTTFlags},
			{name: "ib bandwidth", summary: "message and RDMA bandwidth against size (Figures 5-6, Table 5)", flags: ibBandwidthFlags},
			{name: "ib buffers", summary: "receive-buffer memory against node count, and a shared receive queue running dry (§5.4)", flags: ibBuffersFlags},
			{name: "ib cpr", summary: "time of stop/save/restore/resume with range commands against one per QP (§5.5)", flags: ibCPRFlags},
			{name: "ib run", summary: "mixed traffic on many nodes, checkpointed (--checkpoint-at, --checkpoint) and resumed (--resume)", flags: ibRunFlags},
		}})
}

func ibRTTFlags(r *runner) func() error {
	cfg := ib.DefaultRTT()
	intVar(r.fs, &cfg.Size, "size", 16, 48, "message bytes, 16..48 (the largest that fits a WQE; the message carries a 16-byte check header)")
	intVar(r.fs, &cfg.Iterations, "iterations", 1, 1_000_000, "round trips timed")
	intVar(r.fs, &cfg.Warmup, "warmup", 0, 1_000_000, "round trips before the timing starts")
	r.outputs()
	r.sweep()
	return func() error {
		res, err := runSweep(r, cfg, ib.RunRTT)
		return report(r, res, err)
	}
}

func ibBandwidthFlags(r *runner) func() error {
	cfg := ib.DefaultBandwidth()
	var names []string
	for _, p := range cfg.Chipsets {
		names = append(names, p.Chipset)
	}
	chips := r.fs.String("chipset", strings.Join(names, ","), "comma-separated chipsets: gc-le, e7501")
	intsVar(r.fs, &cfg.Sizes, "sizes", []int{16, 64, 256, 1024, 2048, 4096, 8192}, 16, 8192, "comma-separated message sizes in bytes (16..8192); RDMA also goes on by fours to --rdma-max")
	intVar(r.fs, &cfg.RDMAMax, "rdma-max", 16, 1<<26, "largest RDMA write in bytes")
	r.plotFlag("draw bandwidth against size to this .svg or .png")
	r.outputs()
	r.sweep()
	return func() (err error) {
		if cfg.Chipsets, err = ib.ParseChipsets(splitList(*chips)); err != nil {
			return r.check(err)
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		res, err := runSweep(r, cfg, ib.RunBandwidth)
		return report(r, res, err)
	}
}

func ibBuffersFlags(r *runner) func() error {
	cfg := ib.DefaultBuffers()
	fs := r.fs
	intsVar(fs, &cfg.Nodes, "nodes", []int{2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}, 2, 4096, "comma-separated node counts (2..4096)")
	intVar(fs, &cfg.PerPeer, "per-peer", 1, 65536, "receive buffers per RC QP (PM/InfiniBand-FJ paper §5.4: at least 128)")
	intVar(fs, &cfg.SRQDepth, "srq-depth", 1, 65536, "buffers in the shared receive queue (PM/InfiniBand-FJ paper §6: 8 MB of 8 KB)")
	intVar(fs, &cfg.Senders, "senders", 1, 255, "run-dry study: nodes sending to one receiver")
	intVar(fs, &cfg.Messages, "messages", 1, 100000, "run-dry study: messages from each sender")
	intVar(fs, &cfg.Size, "size", 16, 8192, "run-dry study: message bytes (16..8192)")
	timeVar(fs, &cfg.Consume, "consume", consumeUS, "run-dry study: µs the receiving host takes per message")
	intsVar(fs, &cfg.Depths, "depths", []int{64, 256}, 1, 65536, "run-dry study: comma-separated shared receive queue depths")
	floatsVar(fs, &cfg.RatesKps, "rates", 1e-3, 1e6, "run-dry study: comma-separated offered rates at the receiver, thousand messages a second")
	r.plotFlag("draw memory per node against node count to this .svg or .png")
	r.outputs()
	r.sweep()
	return func() error {
		res, err := runSweep(r, cfg, ib.RunBuffers)
		return report(r, res, err)
	}
}

func ibCPRFlags(r *runner) func() error {
	cfg := ib.DefaultCPR()
	intsVar(r.fs, &cfg.QPs, "qps", []int{1, 3, 15, 63, 255, 1023, 4095}, 1, 65536, "comma-separated QP counts on the HCA (1..65536)")
	chip := r.fs.String("chipset", "gc-le", "gc-le or e7501")
	r.outputs()
	r.sweep()
	return func() (err error) {
		if cfg.Params, err = ib.ParseChipset(*chip); err != nil {
			return r.check(err)
		}
		res, err := runSweep(r, cfg, ib.RunCPR)
		return report(r, res, err)
	}
}

func ibRunFlags(r *runner) func() error {
	cfg := ib.DefaultRun()
	fs := r.fs
	intVar(fs, &cfg.Machine.Nodes, "nodes", 2, 256, "nodes on one switch (2..256)")
	intVar(fs, &cfg.Workload.Messages, "messages", 1, 100000, "messages from each node to each other node")
	seedVar(fs, &cfg.Workload.Seed, "seed", "seed of the sizes, gaps and host times")
	intVar(fs, &cfg.Machine.RecvDepth, "recv-depth", 1, 65536, "receive buffers in the shared queue (srq) or per QP (rc)")
	receive := fs.String("receive", string(cfg.Machine.Receive), "receive buffers: srq (one shared queue) or rc (per peer)")
	chip := fs.String("chipset", "gc-le", "gc-le or e7501")
	timeVar(fs, &cfg.CheckpointAt, "checkpoint-at", checkpointUS, "take a checkpoint at this simulated time, µs (default: none)")
	noDefault(fs, "checkpoint-at")
	fs.BoolVar(&cfg.Bulk, "bulk", cfg.Bulk, "checkpoint with one range command per node and step (false: one per QP)")
	ckpt := r.regularFile("checkpoint", "write the checkpoint to this file and stop there (needs --checkpoint-at)")
	resume := r.inFile("resume", "go on with the run saved in this checkpoint file (the run's flags come from it)")
	r.outputs()
	r.timeline()
	return func() (err error) {
		if *r.tl.file != "" && (*resume != "" || cfg.CheckpointAt > 0) {
			return r.usage("--timeline records a whole run in this process; leave out --checkpoint-at and --resume")
		}
		if *resume != "" {
			if err := checkResume(r, "nodes", "messages", "seed", "recv-depth", "receive", "chipset", "checkpoint-at", "bulk", "checkpoint"); err != nil {
				return err
			}
			if _, err := os.Stat(*resume); err != nil {
				return r.usage("--resume: %w", err)
			}
			res, err := call(r, func() (*ib.RunResult, error) { return ib.Resume(*resume) })
			return report(r, res, err)
		}
		cfg.Checkpoint = *ckpt
		if err := cfg.Choose(*receive, *chip); err != nil {
			return r.check(err)
		}
		cfg.Machine.RDMABytes = cfg.Machine.Nodes * 4096
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		if cfg.CheckpointAt == 0 {
			cfg.Progress = r.progress("ib run", "sends")
		}
		res, err := call(r, func() (*ib.RunResult, error) { return ib.Run(cfg) })
		if err != nil || res.Saved == "" || r.json {
			return report(r, res, err)
		}
		// Stopped into a checkpoint: the table goes to stderr, with how to resume.
		if err := res.WriteTable(os.Stderr); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "lhsim ib run: saved %s (resume with: lhsim ib run --resume %s)\n", res.Saved, res.Saved)
		if *r.out == "" {
			return nil
		}
		return writeResult(false, r.out, res, func(io.Writer) error { return nil })
	}
}

// checkResume refuses, beside --resume, any of runFlags: the run is the checkpoint's, and a
// flag that would change it is a mistake, not ignored.
func checkResume(r *runner, runFlags ...string) error {
	var clash []string
	r.fs.Visit(func(f *flag.Flag) {
		if slices.Contains(runFlags, f.Name) {
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return r.usage("--resume takes the run from the checkpoint; leave out %s", strings.Join(clash, ", "))
	}
	return nil
}
