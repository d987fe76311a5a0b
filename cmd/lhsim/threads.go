package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/flagval"
)

// --threads: one run's network cut into parts, each on its own thread (netsim.Parts); the
// output is the same for any number. With --jobs, jobs x threads stay within the cores: a
// sweep of P parts takes min(P, cores) jobs and the cores left as threads, a single run every
// core; a line on stderr says how they were split.

// threadsFlag defines --threads; 0 (the flag not given) leaves the split to splitThreads.
func (r *runner) threadsFlag() *int {
	t := 0
	usage := "threads each run takes, its network cut into as many parts (default: the cores --jobs leaves; a single run takes every core); the output is the same for any"
	if r.fs.Lookup("jobs") == nil { // a command of one run
		usage = "threads the run takes, its network cut into as many parts (default: every core); the output is the same for any"
	}
	flagval.Int(r.fs, &t, "threads", 1, 4096, usage)
	r.fs.Lookup("threads").DefValue = "" // 0, not given: splitThreads chooses
	return &t
}

// splitThreads is how many threads each of a sweep's runs takes (parts of them at once, at
// most --jobs): --threads if given (and --jobs, if not given, lowered to the cores it leaves),
// else the cores the jobs leave. fit says how many threads a run of the sweep really gets
// and why fewer (a topology's parts, a router that runs on one; with several topologies, the
// most any gets and why some get fewer). The split line and the
// windows' lines go to lines, printed when the run has succeeded (bad input gets its one
// line alone).
func (r *runner) splitThreads(threads, parts int, fit func(int) (int, string), lines *stderrLines) int {
	cores := runtime.NumCPU()
	if threads > 0 && !r.set("jobs") {
		r.jobs = max(1, cores/threads)
	}
	jobs := min(r.jobs, max(parts, 1))
	t := threads
	if t == 0 {
		t = max(1, cores/jobs)
	}
	got, why := fit(t)
	line := fmt.Sprintf("lhsim %s: %d cores: %d job(s) at once x %d thread(s) each", r.cmd.name, cores, jobs, got)
	if why != "" {
		line += fmt.Sprintf(" (%d asked: %s)", t, why)
	}
	lines.add(line)
	return got
}

// successLines are printed on stderr once the command has done all its work, its outputs and
// profiles written: a command that fails says only what failed, in one line.
var successLines stderrLines

// stderrLines are lines for stderr, gathered from a run's parts (at once) and printed at its
// end.
type stderrLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *stderrLines) add(s ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s...)
}

// print writes the lines, in the order they came.
func (l *stderrLines) print() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		fmt.Fprintln(os.Stderr, s)
	}
	l.lines = nil
}

// windowsTo adds a parallel run's windows line to the success lines.
func windowsTo(command string) func(what string, ws experiment.WindowStats) {
	return func(what string, ws experiment.WindowStats) {
		if s := windowsLine(command, what, ws); s != "" {
			successLines.add(s)
		}
	}
}

// windowsLine is a parallel run's windows, for stderr.
func windowsLine(command, what string, ws experiment.WindowStats) string {
	if ws.Windows == 0 {
		return ""
	}
	wait := 0.0
	if all := ws.Wait + ws.Busy; all > 0 {
		wait = 100 * float64(ws.Wait) / float64(all)
	}
	line := fmt.Sprintf("lhsim %s: %s: %d threads, %d windows of %v, %.0f events a window, threads waited %.0f%% of their time (%v)",
		command, what, ws.Parts, ws.Windows, ws.Lookahead, float64(ws.Events)/float64(ws.Windows), wait, ws.Wait.Round(time.Millisecond))
	if ws.OneThread > 0 {
		line += fmt.Sprintf("; %d windows ran on one thread, the threads giving less than their hand-over cost", ws.OneThread)
	}
	return line
}
