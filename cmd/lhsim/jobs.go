package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/slurm"
)

// --jobs: the parts of a network sweep (experiment.Part) run at once on this machine, each
// on its own goroutine with its own engine, and are merged with the merge function --slurm
// uses; the result is the one the whole sweep gives run as one, byte for byte, but for what
// measures the machine (wall and CPU times and the rates made from them).

// addSweepFlags defines the --slurm flags and --jobs on a sweep command's flag set.
func addSweepFlags(fs *flag.FlagSet) *slurm.Options {
	o := addSlurmFlags(fs)
	jobs := runtime.NumCPU()
	intVar(fs, &jobs, "jobs", 1, 1024, "parts of the sweep run at once, each with its own network (default: the number of cores); the output is the same for any")
	return o
}

// addJobsFlag defines --jobs on a sweep command without --slurm (runParts).
func addJobsFlag(fs *flag.FlagSet) {
	jobs := runtime.NumCPU()
	intVar(fs, &jobs, "jobs", 1, 1024, "parts of the sweep run at once (default: the number of cores); the output is the same for any")
}

// runParts runs a sweep here: its parts --jobs at a time, merged, or the whole
// configuration as one run when one job would run them all (sweep does the same after its
// Slurm cases).
func runParts[C any, R any](fs *flag.FlagSet, command string, whole C, parts []experiment.Part[C],
	run func(C) (*R, error), merge func([]*R) (*R, error)) (*R, error) {
	if jobs := fitJobs(command, jobsOf(fs), parts); jobs > 1 {
		return runJobs(jobs, parts, run, merge)
	}
	return run(whole)
}

// callsProgress is a Progress for a sweep's parts run at once (--jobs): each part counts its
// own runs, so the bar counts the calls, up to the whole sweep's total the bar was made with.
func callsProgress(pr *progress) func(int, int) {
	var mu sync.Mutex
	var done int64
	return func(int, int) {
		mu.Lock()
		defer mu.Unlock()
		done++
		pr.set(done, "")
	}
}

// jobsOf is fs's --jobs, 1 on a command without it or when --timeline records the run (one
// file, written in the order the runs happen).
func jobsOf(fs *flag.FlagSet) int {
	if f := fs.Lookup("timeline"); f != nil && f.Value.String() != "" {
		return 1
	}
	if f := fs.Lookup("jobs"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// jobMemory is what one part of a sweep may take, when its configuration says
// (experiment's JobMemory methods), else 0.
func jobMemory[C any](parts []experiment.Part[C]) int64 {
	var most int64
	for _, p := range parts {
		if m, ok := any(p.Config).(interface{ JobMemory() int64 }); ok {
			most = max(most, m.JobMemory())
		}
	}
	return most
}

// fitJobs is how many of parts may run at once: at most jobs and the number of parts, and
// no more than the machine's memory (fabric.MemoryLimit) holds, each taking jobMemory; when
// memory lowers --jobs, a line on stderr says so.
func fitJobs[C any](command string, jobs int, parts []experiment.Part[C]) int {
	jobs = min(jobs, len(parts))
	each, lim := jobMemory(parts), memlimit.Current()
	if limit := lim.Bytes; each > 0 && int64(jobs)*each > limit {
		fit := int(max(limit/each, 1))
		fmt.Fprintf(os.Stderr, "lhsim %s: --jobs %d lowered to %d: a part may take %s (its estimate: docs/performance.md) and %s is available (%s)\n",
			command, jobs, fit, sizeString(each), sizeString(limit), lim.Source)
		jobs = fit
	}
	return max(jobs, 1)
}

// sizeString is b bytes in GiB, or MiB below one GiB.
func sizeString(b int64) string {
	if b < 1<<30 {
		return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB"
}

// runJobs runs parts, jobs at a time, in Parts order as workers free up, and merges their
// results in Parts order. The first error stops parts not yet started and is returned.
// A merged result that can (Remeasure) is given the whole run's wall time and the CPU
// time the process used meanwhile.
func runJobs[C any, R any](jobs int, parts []experiment.Part[C], run func(C) (*R, error), merge func([]*R) (*R, error)) (*R, error) {
	cpu0, _ := cputime.Process()
	start := time.Now()
	results := make([]*R, len(parts))
	errs := make([]error, len(parts))
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if failed || next == len(parts) {
			return -1
		}
		next++
		return next - 1
	}
	for range jobs {
		wg.Go(func() {
			for i := take(); i >= 0; i = take() {
				results[i], errs[i] = run(parts[i].Config)
				if errs[i] != nil {
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the error the whole sweep meets first, as --jobs 1 reports it
		}
	}
	res, err := merge(results)
	if err != nil {
		return nil, err
	}
	if m, ok := any(res).(interface{ Remeasure(wallS, cpuS float64) }); ok {
		cpu1, _ := cputime.Process()
		m.Remeasure(time.Since(start).Seconds(), (cpu1 - cpu0).Seconds())
	}
	return res, nil
}
