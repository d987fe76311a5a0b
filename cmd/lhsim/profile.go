package main

import (
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// --cpuprofile and --memprofile, on every command (newRunner defines them, parse starts the
// CPU profile once the command line is good, dispatch finishes both when the command
// returns): the files `go tool pprof` reads, as `go test -cpuprofile` writes them. Each is
// written beside its name and renamed into place (output.go).

// profiling is the profile of the running command: its CPU profile's file (beside its
// name), and where each goes.
var profiling struct {
	cpu     *os.File
	cpuOut  *errWriter
	cpuFile string
	memFile string
}

// errWriter keeps the first error of its writes: pprof's CPU profile writer drops them.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

// startProfiles starts the profiles the flags ask for (paths already checked).
func startProfiles(cpu, mem string) error {
	if cpu != "" {
		f, err := create(cpu)
		if err != nil {
			return named("--cpuprofile", cpu, err)
		}
		out := &errWriter{w: f}
		if err := pprof.StartCPUProfile(out); err != nil {
			commit(f, cpu, false)
			return named("--cpuprofile", cpu, err)
		}
		profiling.cpu, profiling.cpuOut, profiling.cpuFile = f, out, cpu
	}
	profiling.memFile = mem
	return nil
}

// stopProfiles finishes the profiles startProfiles started: the CPU profile is flushed,
// closed and renamed, the heap profile written (after a collection, so that it shows what
// the command kept, as go test -memprofile does).
func stopProfiles() error {
	var errs []error
	if f := profiling.cpu; f != nil {
		pprof.StopCPUProfile()
		err := profiling.cpuOut.err
		if cerr := commit(f, profiling.cpuFile, err == nil); err == nil {
			err = cerr
		}
		errs = append(errs, named("--cpuprofile", profiling.cpuFile, err))
	}
	if mem := profiling.memFile; mem != "" {
		runtime.GC()
		errs = append(errs, writeFile("--memprofile", mem, func(file string) error {
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}))
	}
	profiling.cpu, profiling.cpuFile, profiling.memFile = nil, "", ""
	return errors.Join(errs...)
}
