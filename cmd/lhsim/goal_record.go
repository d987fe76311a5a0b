package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/lhsim/lhsim/apptrace"
	"github.com/lhsim/lhsim/experiment"
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
		if *out == "" {
			*out = filepath.Base(programOf(command)) + ".trace"
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		res, err := apptrace.Record(ctx, apptrace.RecordConfig{Out: *out, Command: command, BuildDir: *build, BuildDirs: buildDirs(),
			Stdout: os.Stdout, Stderr: os.Stderr})
		if err != nil {
			return err
		}
		fmt.Printf("lhsim goal record: %s: %d ranks, %d calls, %d bytes (%.1f per call), %s\n",
			res.Dir, res.Ranks, res.Calls, res.Bytes, float64(res.Bytes)/float64(max(res.Calls, 1)), res.MPI)
		return nil
	}
}

// buildDirs are the folders the tracer is looked for in: the build/ that holds the
// executable (make puts build/bin/lhsim beside build/tracer), and the folder it is in; then
// the build/ of the working folder and of each folder above it (a checkout's, when lhsim runs
// inside it).
func buildDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(filepath.Dir(exe)), filepath.Dir(exe))
		}
	}
	dir, err := os.Getwd()
	for err == nil {
		dirs = append(dirs, filepath.Join(dir, "build"))
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return dirs
}

// programOf is the program in an mpirun command line: the first word after the options
// (an option of Open MPI's or MPICH's that takes a value takes the word after it).
func programOf(cmd []string) string {
	withValue := map[string]bool{"-np": true, "-n": true, "-c": true, "--np": true, "-x": true, "-genv": true,
		"-env": true, "--map-by": true, "--bind-to": true, "--host": true, "-host": true, "-H": true,
		"--hostfile": true, "-hostfile": true, "-f": true, "-ppn": true, "--mca": true, "-mca": true}
	for i := 1; i < len(cmd); i++ {
		a := cmd[i]
		switch {
		case a == "-genv" || a == "--mca" || a == "-mca":
			i += 2
		case withValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return "mpi"
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
		opt := apptrace.Options{Approximate: *approx, ComputeScale: scale, Collectives: map[apptrace.Coll]string{}}
		for _, kv := range splitList(*colls) {
			name, alg, ok := strings.Cut(kv, "=")
			c, known := apptrace.ParseColl(name)
			if !ok || !known {
				return r.usage("--collectives %q: want COLLECTIVE=ALGORITHM, as allreduce=ring", kv)
			}
			opt.Collectives[c] = alg
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
		err = writeFile("", *out, func(file string) error {
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			st, err = apptrace.Convert(f, t, opt)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		})
		if err != nil {
			if errors.Is(err, apptrace.ErrRefused) || !errors.Is(err, os.ErrPermission) {
				return &experiment.InputError{Err: err}
			}
			return err
		}
		fmt.Printf("lhsim goal convert: %s: %d ranks, %d calls, %d operations, %d wildcard receives, %d communicators, %s, collectives: %s\n",
			*out, st.Ranks, st.Calls, st.Ops, st.WildcardRecvs, st.Comms, cancelSummary(st), collList(st.Collectives))
		if st.CrossSpace > 0 || len(st.Unknown) > 0 { // taken with --approximate
			fmt.Printf("lhsim goal convert: approximated: %d any-tag receives that could take another tag space's message; unknown calls dropped: %s\n",
				st.CrossSpace, collList(st.Unknown))
		}
		if *jsonOut != "" {
			return writeResult(false, jsonOut, st, func(io.Writer) error { return nil })
		}
		return nil
	}
}

func collList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []string
	for _, k := range keys {
		b = append(b, fmt.Sprintf("%s x%d", k, m[k]))
	}
	return strings.Join(b, ", ")
}

// cancelSummary says what became of the program's cancels: dropped as cancelled (and how many
// of those by assumption, the trace not saying), and kept because the cancel failed.
func cancelSummary(st apptrace.Stats) string {
	s := fmt.Sprintf("%d cancelled", st.Cancelled)
	if st.CancelUnknown > 0 {
		s += fmt.Sprintf(" (%d with no outcome in the trace, taken as cancelled)", st.CancelUnknown)
	}
	if st.CancelFailed > 0 {
		s += fmt.Sprintf(", %d cancels that failed (kept)", st.CancelFailed)
	}
	return s
}
