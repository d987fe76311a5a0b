package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/ib"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/session"
)

func init() {
	register(&command{name: "run", summary: "a long checked run; stops into a checkpoint (--checkpoint-at, Ctrl-C) and resumes (--resume)", flags: runFlags})
}

// progressCycles is how far a run goes between two updates of its progress bar.
const progressCycles = 100_000

func runFlags(r *runner) func() error {
	fs := r.fs
	cfg := session.DefaultConfig(10000)
	dev := addDeviceFlags(fs)
	uint64Var(fs, &cfg.Messages, "messages", 1, 1<<40, "messages in the stream")
	seedVar(fs, &cfg.Seed, "seed", "seed of the stream and the board")
	intVar(fs, &cfg.MaxLen, "max-len", 16, 65535, "longest message in bytes (16..65535)")
	intVar(fs, &cfg.Board.IdlePercent, "idle", 0, 99, "percent of idle cycles at the network input (0..99; at 100 no message would ever arrive)")
	resume := r.inFile("resume", "go on with the run saved in this checkpoint (the run's own flags are taken from it)")
	ckpt := r.regularFile("checkpoint", "checkpoint file to write when the run stops early, or every --checkpoint-every cycles")
	var at, every uint64
	uint64Var(fs, &at, "checkpoint-at", 1, 1<<62, "stop at this cycle (the first point between host operations at or after it) and save --checkpoint")
	uint64Var(fs, &every, "checkpoint-every", 1, 1<<62, "also save --checkpoint every this many cycles, and go on")
	noDefault(fs, "checkpoint-at", "checkpoint-every")
	trace := r.traceFile("write an FST waveform of the RTL to this file (from this process's start or resume)")
	r.outputs()
	return func() error {
		return runRun(r, cfg, dev, *resume, *ckpt, at, every, *trace)
	}
}

func runRun(r *runner, cfg session.Config, dev *deviceFlags, resume, ckpt string, at, every uint64, trace string) error {
	if resume != "" {
		if err := checkResume(r, "messages", "seed", "max-len", "idle", "model", "entries", "split-pos", "size-pos"); err != nil {
			return err
		}
	}
	if (at != 0 || every != 0) && ckpt == "" {
		return r.usage("--checkpoint-at and --checkpoint-every need --checkpoint FILE")
	}
	dc, err := dev.config(r)
	if err != nil {
		return err
	}
	if dc.Bridge == device.Plugin {
		return r.usage("--bridge plugin: a run keeps its device in this process, to checkpoint its state (use --bridge cgo)")
	}
	cfg.Model, cfg.Entries = dc.Model, dc.Entries
	if cfg.Host, err = dev.host(r, cfg.Host, 12, "the run's messages"); err != nil {
		return err
	}
	if resume != "" {
		if _, err := os.Stat(resume); err != nil {
			return r.usage("--resume: %w", err)
		}
		if ib.IsCheckpointFile(resume) {
			return r.usage("--resume: %s is an InfiniBand run's checkpoint: resume it with lhsim ib run --resume %s", resume, resume)
		}
		dc.Model = "" // the checkpoint's; session.Resume checks it against the trace
	}
	if err := checkTrace(r, dc.Model, trace); err != nil {
		return err
	}

	var s *session.Session
	if resume != "" {
		s, err = session.Resume(resume, trace)
	} else {
		s, err = session.New(cfg, trace)
	}
	if err != nil {
		return err
	}
	defer func() {
		if s != nil {
			s.Close()
		}
	}()

	// Ctrl-C stops the run into the checkpoint (when one is named) instead of losing it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	stopAt := uint64(math.MaxUint64)
	if at != 0 {
		stopAt = at
	}
	start := time.Now()
	bar := cli.NewBar(r.json, "run", int64(s.Config().Messages), "messages")
	finished := false
	defer func() { bar.Finish(finished) }()
	for {
		next := stopAt
		if every != 0 {
			next = min(next, (s.Cycle()/(every)+1)*(every))
		}
		limit := next
		if bar != nil {
			// Stopping between host operations changes nothing: the run goes on from there.
			limit = min(limit, s.Cycle()+progressCycles)
		}
		done, err := s.Run(ctx, limit)
		bar.Set(int64(s.Checked()), fmt.Sprintf("(cycle %d)", s.Cycle()))
		if err != nil {
			return err
		}
		if done {
			break
		}
		if s.Cycle() < next && ctx.Err() == nil {
			continue // only a step of the progress bar
		}
		if ckpt != "" {
			if err := s.Save(ckpt); err != nil {
				return err
			}
		}
		if s.Cycle() >= stopAt || ctx.Err() != nil {
			if ckpt == "" {
				return fmt.Errorf("interrupted at cycle %d (no --checkpoint to save to)", s.Cycle())
			}
			finished = true
			bar.Finish(true)
			bar = nil
			fmt.Fprintf(os.Stderr, "lhsim run: stopped at cycle %d after %d of %d messages; saved %s (resume with: lhsim run --resume %s)\n",
				s.Cycle(), s.Checked(), s.Config().Messages, ckpt, ckpt)
			return nil
		}
	}
	finished = true
	bar.Finish(true)
	bar = nil
	res := s.Result()
	err = s.Close()
	s = nil
	if err != nil {
		return err
	}
	wall := time.Since(start)
	return r.write(res, func(w io.Writer) error { return printRun(w, res, wall) })
}

func printRun(w io.Writer, r session.Result, wall time.Duration) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("model", "messages", "bytes", "cycles", "stalls", "digest of messages", "digest of memory")
	if err := t.Append(r.Model, fmt.Sprint(r.Messages), fmt.Sprint(r.Bytes), fmt.Sprint(r.Cycles),
		fmt.Sprint(r.Counters.Stalls), r.Digest[:16], r.Memory[:16]); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if r.ResumedAt != 0 {
		fmt.Fprintf(w, "resumed at cycle %d; ", r.ResumedAt)
	}
	_, err := fmt.Fprintf(w, "every message checked byte for byte; %.1f s wall\n", wall.Seconds())
	return err
}
