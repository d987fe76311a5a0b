package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/lhsim/lhsim/apptrace"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// goalTraceCommand runs lhsim goal record or convert, its errors reported under that name.
func goalTraceCommand(name string, args []string) error {
	run := runGoalRecord
	if name == "convert" {
		run = runGoalConvert
	}
	if err := run(args); err != nil {
		return subcommandError{"goal " + name, err}
	}
	return nil
}

const goalRecordSummary = "run an MPI program with lhsim's tracer in every rank and keep its trace (docs/apps.md)"

func runGoalRecord(args []string) error {
	fs := newFlags("goal record", goalRecordSummary)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lhsim goal record [--out DIR] -- mpirun -np N PROGRAM ARGS...\n  %s\nflags:\n", goalRecordSummary)
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "the trace directory (default PROGRAM.trace); it must not exist or be empty")
	build := fs.String("build", "", "where make put the tracer, build/tracer/MPI/liblhtrace.so (default: the first build/ with a tracer in this folder or above it)")
	i := slices.Index(args, "--")
	if i < 0 {
		if err := parse(fs, args); err != nil {
			return err
		}
		return badUsage(fs, errMsg("the MPI command is required after --: lhsim goal record -- mpirun -np N PROGRAM ARGS..."))
	}
	if err := parse(fs, args[:i]); err != nil {
		return err
	}
	command := args[i+1:]
	if len(command) < 2 {
		return badUsage(fs, errMsg("want -- mpirun -np N PROGRAM ARGS... after --"))
	}
	if *out == "" {
		*out = filepath.Base(programOf(command)) + ".trace"
	}
	if *build == "" {
		*build = findBuild()
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

// findBuild is the first build/ holding a tracer in the working folder or above it (a
// checkout's, when lhsim runs inside it), else build.
func findBuild() string {
	dir, err := os.Getwd()
	for err == nil {
		b := filepath.Join(dir, "build")
		if m, _ := filepath.Glob(filepath.Join(b, "tracer", "*", "liblhtrace.so")); len(m) > 0 {
			return b
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "build"
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

const goalConvertSummary = "turn a trace of lhsim goal record into a GOAL schedule (docs/apps.md: what each call becomes)"

func runGoalConvert(args []string) error {
	fs := newFlags("goal convert", goalConvertSummary)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lhsim goal convert DIR --out FILE.goal [flags]\n  %s\nflags:\n", goalConvertSummary)
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "the schedule file to write")
	approx := fs.Bool("approximate", false, "convert what cannot be converted faithfully, as docs/apps.md says: drop unknown MPI calls, keep any-tag receives that could take another communicator's message")
	colls := fs.String("collectives", "", "algorithm per collective, as allreduce=ring,bcast=binomial (default: Open MPI 4.1's tuned choice)")
	scale := 1.0
	fs.Float64Var(&scale, "compute-scale", 1, "multiply the computation between calls by this")
	jsonOut := fs.String("json", "", "also write the conversion's statistics as JSON to this file")
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if dir == "" {
		return badUsage(fs, errMsg("the trace directory DIR is required"))
	}
	if *out == "" {
		return badUsage(fs, errMsg("--out FILE.goal is required"))
	}
	if scale <= 0 {
		return badUsage(fs, fmt.Errorf("--compute-scale %v: want a positive number", scale))
	}
	opt := apptrace.Options{Approximate: *approx, ComputeScale: scale, Collectives: map[apptrace.Coll]string{}}
	for _, kv := range strings.Split(*colls, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, alg, ok := strings.Cut(kv, "=")
		c, known := apptrace.ParseColl(name)
		if !ok || !known {
			return badUsage(fs, fmt.Errorf("--collectives %q: want COLLECTIVE=ALGORITHM, as allreduce=ring", kv))
		}
		opt.Collectives[c] = alg
	}
	t, err := apptrace.ReadDirLimit(dir, fabric.MemoryLimit())
	if err != nil {
		var fe *apptrace.FormatError
		if errors.As(err, &fe) || errors.Is(err, os.ErrNotExist) {
			return &experiment.InputError{Err: err}
		}
		return err
	}
	var st apptrace.Stats
	err = replaceFile(*out, func(tmp string) error {
		f, err := os.Create(tmp)
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
	fmt.Printf("lhsim goal convert: %s: %d ranks, %d calls, %d operations, %d wildcard receives, %d communicators, %d cancelled, collectives: %s\n",
		*out, st.Ranks, st.Calls, st.Ops, st.WildcardRecvs, st.Comms, st.Cancelled, collList(st.Collectives))
	if st.CrossSpace > 0 || len(st.Unknown) > 0 { // taken with --approximate
		fmt.Printf("lhsim goal convert: approximated: %d any-tag receives that could take another tag space's message; unknown calls dropped: %s\n",
			st.CrossSpace, collList(st.Unknown))
	}
	if *jsonOut != "" {
		return replaceFile(*jsonOut, func(tmp string) error {
			f, err := os.Create(tmp)
			if err != nil {
				return err
			}
			defer f.Close()
			return writeJSON(f, st)
		})
	}
	return nil
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
