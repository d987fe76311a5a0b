package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// --cpuprofile and --memprofile, on every command (newFlags defines them, parse starts the
// CPU profile once the command line is good, dispatch finishes both when the command
// returns): the files `go tool pprof` reads, as `go test -cpuprofile` writes them.

// addProfileFlags defines the two flags on a command's flag set.
func addProfileFlags(fs *flag.FlagSet) {
	fs.String("cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	fs.String("memprofile", "", "write a memory profile (what the command allocated, and kept when it ended) to this file (go tool pprof)")
}

// profiling is the profile of the running command: its CPU profile's file, and where the
// heap profile goes.
var profiling struct {
	cpu *os.File
	mem string
}

// startProfiles starts the profiles fs's flags ask for; a file that cannot be created is a
// mistake on the command line. A command that parses a second flag set (a subcommand)
// keeps the first profile.
func startProfiles(fs *flag.FlagSet) error {
	if profiling.cpu != nil || profiling.mem != "" {
		return nil
	}
	flagValue := func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	cpu, mem := flagValue("cpuprofile"), flagValue("memprofile")
	if mem != "" {
		if err := canCreate(mem); err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			os.Remove(cpu)
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		profiling.cpu = f
	}
	profiling.mem = mem
	return nil
}

// stopProfiles finishes the profiles startProfiles started: the CPU profile is flushed and
// closed, the heap profile written (after a collection, so that it shows what the command
// kept, as go test -memprofile does).
func stopProfiles() error {
	var errs []error
	if f := profiling.cpu; f != nil {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
	}
	if mem := profiling.mem; mem != "" {
		runtime.GC()
		err := replaceFile(mem, func(tmp string) error {
			f, err := os.Create(tmp)
			if err != nil {
				return err
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	profiling.cpu, profiling.mem = nil, ""
	return errors.Join(errs...)
}
