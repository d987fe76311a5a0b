package cli

import (
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// --cpuprofile and --memprofile, on every command (cmd/lhsim's runner defines them and starts
// the profiles once the command line is good; they are finished when the command returns):
// the files `go tool pprof` reads, as `go test -cpuprofile` writes them. Each is written
// beside its name and renamed into place (output.go).

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

// StartProfiles starts the profiles the flags ask for (paths already checked).
func StartProfiles(cpu, mem string) error {
	if cpu != "" {
		f, err := Create(cpu)
		if err != nil {
			return Named("--cpuprofile", cpu, err)
		}
		out := &errWriter{w: f}
		if err := pprof.StartCPUProfile(out); err != nil {
			Commit(f, cpu, false)
			return Named("--cpuprofile", cpu, err)
		}
		profiling.cpu, profiling.cpuOut, profiling.cpuFile = f, out, cpu
	}
	profiling.memFile = mem
	return nil
}

// StopProfiles finishes the profiles StartProfiles started: the CPU profile is flushed,
// closed and renamed, the heap profile written (after a collection, so that it shows what
// the command kept, as go test -memprofile does).
func StopProfiles() error {
	var errs []error
	if f := profiling.cpu; f != nil {
		pprof.StopCPUProfile()
		err := profiling.cpuOut.err
		if cerr := Commit(f, profiling.cpuFile, err == nil); err == nil {
			err = cerr
		}
		errs = append(errs, Named("--cpuprofile", profiling.cpuFile, err))
	}
	if mem := profiling.memFile; mem != "" {
		runtime.GC()
		errs = append(errs, WriteTo("--memprofile", mem, func(w io.Writer) error { return pprof.Lookup("allocs").WriteTo(w, 0) }))
	}
	profiling.cpu, profiling.cpuFile, profiling.memFile = nil, "", ""
	return errors.Join(errs...)
}
