package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/lhsim/lhsim/apptrace"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
)

func goalRecordFlags(r *runner) func() error {
	out := r.outFile("out", "the trace directory (default PROGRAM.trace); it must not exist or be empty")
	build := r.fs.String("build", "", "where make put the tracer, build/tracer/MPI/liblhtrace.so (default: the build/ lhsim is in, as make puts build/bin/lhsim, then the first build/ in this folder or above it)")
	return func() error {
		command := r.tail
		if command == nil {
			return r.usage("the MPI command is required after --: lhsim goal record -- mpirun -np N PROGRAM ARGS...")
		}
		if len(command) < 2 {
			return r.usage("want -- mpirun -np N PROGRAM ARGS... after --")
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		res, err := apptrace.Record(ctx, apptrace.RecordConfig{Out: *out, Command: command, BuildDir: *build, Stdout: os.Stdout, Stderr: os.Stderr})
		if err != nil {
			return err
		}
		fmt.Printf("lhsim goal record: %s: %d ranks, %d calls, %d bytes (%.1f per call), %s\n",
			res.Dir, res.Ranks, res.Calls, res.Bytes, float64(res.Bytes)/float64(max(res.Calls, 1)), res.MPI)
		return nil
	}
}

func goalConvertFlags(r *runner) func() error {
	fs := r.fs
	out := r.outFile("out", "the schedule file to write")
	approx := fs.Bool("approximate", false, "convert what cannot be converted faithfully, as docs/apps.md says: drop unknown MPI calls, keep any-tag receives that could take another communicator's message")
	colls := fs.String("collectives", "", "algorithm per collective, as allreduce=ring,bcast=binomial (default: Open MPI 4.1's tuned choice)")
	scale := 1.0
	floatVar(fs, &scale, "compute-scale", 1e-9, 1e9, "multiply the computation between calls by this")
	jsonOut := r.outFile("json", "also write the conversion's statistics as JSON to this file")
	return func() error {
		dir := r.arg
		if dir == "" {
			return r.usage("the trace directory DIR is required")
		}
		if *out == "" {
			return r.usage("--out FILE.goal is required")
		}
		algs, err := apptrace.ParseCollectives(splitList(*colls))
		if err != nil {
			return r.usage("--collectives %w", err)
		}
		t, err := apptrace.ReadDirLimit(dir, experiment.MemoryLimit().Bytes)
		if err != nil {
			var fe *apptrace.FormatError
			if errors.As(err, &fe) || errors.Is(err, os.ErrNotExist) {
				return &experiment.InputError{Err: err}
			}
			return err
		}
		var st apptrace.Stats
		err = cli.WriteTo("", *out, func(w io.Writer) (err error) {
			st, err = apptrace.Convert(w, t, apptrace.Options{Approximate: *approx, ComputeScale: scale, Collectives: algs})
			return err
		})
		if err != nil {
			if errors.Is(err, apptrace.ErrRefused) || !errors.Is(err, os.ErrPermission) {
				return &experiment.InputError{Err: err}
			}
			return err
		}
		fmt.Printf("lhsim goal convert: %s: %s\n", *out, st.Summary())
		if a := st.Approximated(); a != "" { // taken with --approximate
			fmt.Printf("lhsim goal convert: approximated: %s\n", a)
		}
		if *jsonOut != "" {
			return writeResult(false, jsonOut, st, func(io.Writer) error { return nil })
		}
		return nil
	}
}
