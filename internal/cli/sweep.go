package cli

// A sweep's parts (experiment.Sweep) run here, --jobs at a time, each on its own goroutine
// with its own machine, and merge with the merge --slurm uses (RunJobs); or run as a Slurm
// job array that this command waits for and merges (SlurmSweep); or as one array task's share
// (--slurm-task, set by the job script). The result is the one the whole sweep gives run as
// one, byte for byte, but for what measures the machine (wall and CPU times and the rates
// made from them). docs/cluster.md.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/slurm"
)

// Slurm is a command's side of a Slurm job array: the --slurm flags it was given, its name,
// the flags an array task runs with, and whether its progress is quiet (--json).
type Slurm struct {
	slurm.Options
	Command string
	Args    []string
	Quiet   bool
}

// SlurmSweep is a sweep on Slurm: the array task's side (its share of parts, each run with
// run, written for the submitter), or the submitting side (the parts' results merged with
// merge, as RunJobs merges them). It returns nil with no error when there is nothing to
// print (an array task, a dry run).
func SlurmSweep[C any, R any](s Slurm, parts []experiment.Part[C], run func(C) (*R, error), merge func([]*R) (*R, error)) (*R, error) {
	units := make([]slurm.Unit, len(parts))
	byKey := map[string]C{}
	for i, p := range parts {
		units[i] = slurm.Unit{Key: slurm.KeyOf(p.Label), Label: p.Label}
		byKey[units[i].Key] = p.Config
	}
	if s.Task != "" {
		return nil, s.RunTask(func(_ context.Context, u slurm.Unit) (any, error) {
			c, ok := byKey[u.Key]
			if !ok {
				return nil, fmt.Errorf("%s is not a part of this sweep", u.Label)
			}
			return run(c)
		})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := s.Submit(ctx, slurm.Sweep{Command: s.Command, Noun: "configurations", Args: s.Args, Units: units})
	if err != nil || res == nil {
		return nil, err
	}
	merge0 := time.Now()
	got, err := slurm.Decode[R](res)
	if err != nil {
		return nil, err
	}
	ptrs := make([]*R, len(got))
	for i := range got {
		ptrs[i] = &got[i]
	}
	m, err := merge(ptrs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, res.Timing(time.Since(merge0)))
	return m, nil
}

// RunTask is a command's array-task side: its share of the units, each run with run.
func (s Slurm) RunTask(run slurm.TaskFunc) error {
	return slurm.RunTask(context.Background(), s.Task, s.Command, s.Args, os.Stdout, run)
}

// Submit hands a sweep to Slurm, shows its progress on stderr (a bar on a terminal, else a
// line now and then) and returns the outcome; nil with no error after a dry run, whose job
// script it printed on stdout.
func (s Slurm) Submit(ctx context.Context, sw slurm.Sweep) (*slurm.Outcome, error) {
	bar := NewBar(s.Quiet, "slurm", int64(len(sw.Units)), sw.Noun)
	res, err := slurm.Run(ctx, s.Options, sw, bar.Writer(), slurmProgress(bar, os.Stderr, sw.Noun))
	bar.Finish(err == nil)
	if err != nil {
		return nil, err
	}
	if res.DryRun {
		fmt.Print(res.Script)
		return nil, nil
	}
	return res, nil
}

// slurmProgress shows the job as it goes: the bar, or without one a line whenever another
// tenth of the units is done, and at least every minute.
func slurmProgress(bar *Bar, w io.Writer, noun string) slurm.Progress {
	start := time.Now()
	last, step := time.Time{}, -1
	return func(s slurm.Status) {
		note := fmt.Sprintf("job %d: %s", s.Job, s.States)
		if bar != nil {
			bar.Set(int64(s.Done), note)
			return
		}
		tenth := 0
		if s.Total > 0 {
			tenth = s.Done * 10 / s.Total
		}
		if tenth == step && time.Since(last) < time.Minute {
			return
		}
		step, last = tenth, time.Now()
		fmt.Fprintf(w, "[%*d/%d] %s done; %s  %5.1f s\n", len(fmt.Sprint(s.Total)), s.Done, s.Total, noun, note, time.Since(start).Seconds())
	}
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

// PartFits refuses, before any work, a sweep whose largest part's estimate (its JobMemory)
// passes the process's memory limit even alone: --jobs lowered to 1 does not make it fit
// (lhsim matchers --ranks 1024 under a 2 GiB limit ran, and would die out of memory). Exit
// 2, one line, naming the limit. The estimate already holds the collector's headroom.
func PartFits[C any](parts []experiment.Part[C]) error {
	each, lim := jobMemory(parts), experiment.MemoryLimit()
	if each <= lim.Bytes {
		return nil
	}
	return fmt.Errorf("%w: a part of this run may take about %s (its estimate: docs/performance.md), and the limit is %s (%s)",
		memlimit.ErrTooBig, sizeString(each), sizeString(lim.Bytes), lim.Source)
}

// FitJobs is how many of parts may run at once: at most jobs and the number of parts, and
// no more than the machine's memory (experiment.MemoryLimit) holds, each taking jobMemory;
// when memory lowers --jobs, a line on stderr says so.
func FitJobs[C any](command string, jobs int, parts []experiment.Part[C]) int {
	jobs = min(jobs, len(parts))
	each, lim := jobMemory(parts), experiment.MemoryLimit()
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

// RunJobs runs parts, jobs at a time, in Parts order as workers free up, and merges their
// results in Parts order. The first error stops parts not yet started and is returned.
// A merged result that can (Remeasure) is given the whole run's wall time and the CPU
// time the process used meanwhile.
func RunJobs[C any, R any](jobs int, parts []experiment.Part[C], run func(C) (*R, error), merge func([]*R) (*R, error)) (*R, error) {
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
