package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Status is the progress of a job array, after each look at it.
type Status struct {
	Job         int
	Done, Total int // units with a result, of the sweep
	Pending     int // array tasks waiting to start
	Running     int
	Ended       int
	States      string // "2 RUNNING, 98 PENDING"
}

// Progress is told of each look at the job.
type Progress func(Status)

// Outcome is what Run did.
type Outcome struct {
	Dir     string            // the work directory
	Results []json.RawMessage // every unit's result, in Sweep.Units order (nil for a dry run)
	Jobs    []int             // the job arrays this run submitted
	Tasks   int               // their array tasks
	Before  int               // units whose results were already in the work directory
	// DryRun: the job script was written (Script) and nothing submitted.
	DryRun bool
	Script string
	// Phases, wall clock: hashing and copying the binaries into the work directory, writing
	// and submitting the job arrays, waiting for them, reading the results.
	Prepare, Submit, Wait, Collect time.Duration
}

// Where says where the units ran, for a command's summary line.
func (o *Outcome) Where() string {
	if len(o.Jobs) == 0 {
		return fmt.Sprintf("Slurm (results already in %s)", o.Dir)
	}
	ids := make([]string, len(o.Jobs))
	for i, j := range o.Jobs {
		ids[i] = fmt.Sprint(j)
	}
	noun := "job"
	if len(ids) > 1 {
		noun = "jobs"
	}
	return fmt.Sprintf("Slurm %s %s (%d array tasks)", noun, strings.Join(ids, ", "), o.Tasks)
}

// Timing is the closing line of a Slurm run: where the time went (merge: the caller's).
func (o *Outcome) Timing(merge time.Duration) string {
	return fmt.Sprintf("slurm: %s; %d results reused; prepare %.1f s, submit %.1f s, run %.1f s, collect %.1f s, merge %.1f s",
		o.Where(), o.Before, o.Prepare.Seconds(), o.Submit.Seconds(), o.Wait.Seconds(), o.Collect.Seconds(), merge.Seconds())
}

// MissingError is a sweep whose units did not all produce a result after the second
// submission: nothing was merged; the results there are kept for the next run.
type MissingError struct {
	Command string
	Noun    string
	Dir     string
	Total   int
	Missing []Unit
	Why     map[string][]string // unit key -> what happened to it, one line per submission
}

func (e *MissingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d %s have no result after two submissions, so nothing was merged: %s\n",
		len(e.Missing), e.Total, e.Noun, Describe(e.Noun, e.Missing))
	for i, u := range e.Missing {
		if i == 20 {
			fmt.Fprintf(&b, "  ... and %d more (each task's log is in %s/submit-N/logs)\n", len(e.Missing)-20, e.Dir)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", u.Label, strings.Join(e.Why[u.Key], "; then "))
	}
	fmt.Fprintf(&b, "the other %d results are kept in %s: the same command submits only the missing ones", e.Total-len(e.Missing), e.Dir)
	return b.String()
}

func (o Options) withDefaults() (Options, error) {
	if o.PerTask < 1 {
		o.PerTask = 1
	}
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.Wait <= 0 {
		o.Wait = 24 * time.Hour
	}
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Settle <= 0 {
		o.Settle = 60 * time.Second
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("slurm: the lhsim binary for the tasks: %w", err)
		}
		o.Binary = exe
	}
	return o, nil
}

// Run runs the sweep's units that have no result yet as a job array, waits for it, submits
// what failed once more, and returns every unit's result in order. log gets one line per
// step (work directory, submission, resubmission); progress, when not nil, each look at the
// job. A cancelled ctx cancels the job (scancel); the results already written are kept.
func Run(ctx context.Context, o Options, sw Sweep, log io.Writer, progress Progress) (*Outcome, error) {
	if err := sw.check(); err != nil {
		return nil, err
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if !o.DryRun {
		if err := lookClients(); err != nil {
			return nil, fmt.Errorf("%w; nothing submitted for %s", err, Describe(sw.Noun, sw.Units))
		}
	}
	t0 := time.Now()
	w, err := openWorkDir(o.Dir, o.Binary, sw)
	if err != nil {
		return nil, err
	}
	defer w.close()
	out := &Outcome{Dir: w.path, Prepare: time.Since(t0)}
	done := w.done()
	out.Before = len(done)
	fmt.Fprintf(log, "slurm: work directory %s: %d of %d %s already done\n", w.path, len(done), len(sw.Units), sw.Noun)

	// A job an earlier run submitted may still be running (that run was interrupted, or
	// gave up waiting): wait for it rather than run its units twice.
	if !o.DryRun {
		for _, j := range w.m.Jobs {
			tasks, gone, err := jobTasks(ctx, j.ID)
			if err != nil {
				return nil, err
			}
			if active(tasks) && !gone {
				fmt.Fprintf(log, "slurm: job %d from an earlier run is still in the queue: waiting for it\n", j.ID)
				if _, err := w.wait(ctx, o, j.ID, progress); err != nil {
					return nil, err
				}
			}
		}
		done = w.done()
		out.Before = len(done)
	}

	why := map[string][]string{}
	for round := 1; ; round++ {
		var missing []Unit
		for _, u := range sw.Units {
			if !done[u.Key] {
				missing = append(missing, u)
			}
		}
		if len(missing) == 0 {
			break
		}
		if round > 2 {
			return nil, &MissingError{Command: sw.Command, Noun: sw.Noun, Dir: w.path, Total: len(sw.Units), Missing: missing, Why: why}
		}
		t0 = time.Now()
		sub, err := w.newSubmission(o, len(w.m.Jobs)+1, missing)
		if err != nil {
			return nil, fmt.Errorf("slurm: writing the job script: %w", err)
		}
		if o.DryRun {
			out.DryRun, out.Script = true, sub.script
			fmt.Fprintf(log, "slurm: dry run: %s would submit %d array tasks for %s; nothing submitted\n",
				sub.scriptFile(), len(sub.tasks), Describe(sw.Noun, missing))
			return out, nil
		}
		job, err := sbatch(ctx, sub.scriptFile())
		if err != nil {
			hint := ""
			if len(sub.tasks) > 1000 {
				hint = fmt.Sprintf(" (%d array tasks: more than many clusters' MaxArraySize allows; --per-task makes fewer)", len(sub.tasks))
			}
			return nil, fmt.Errorf("slurm: sbatch refused the job array for %s%s; nothing of it was submitted (%d results kept in %s): %w",
				Describe(sw.Noun, missing), hint, len(done), w.path, err)
		}
		w.m.Jobs = append(w.m.Jobs, jobRecord{ID: job, Submission: sub.n, Tasks: len(sub.tasks), Units: len(missing), At: time.Now().UTC()})
		if err := w.save(); err != nil {
			return nil, err
		}
		out.Jobs = append(out.Jobs, job)
		out.Tasks += len(sub.tasks)
		out.Submit += time.Since(t0)
		fmt.Fprintf(log, "slurm: submitted job %d: %d array tasks of up to %d %s (%s)\n", job, len(sub.tasks), o.PerTask, sw.Noun, sub.scriptFile())

		t0 = time.Now()
		seen, err := w.wait(ctx, o, job, progress)
		out.Wait += time.Since(t0)
		if err != nil {
			return nil, err
		}
		done = w.settle(o, sub, seen)
		var failed []Unit
		for ti, t := range sub.tasks {
			for _, u := range t {
				if done[u.Key] {
					continue
				}
				failed = append(failed, u)
				why[u.Key] = append(why[u.Key], w.explain(sub, job, ti, seen, u))
			}
		}
		if len(failed) > 0 && round == 1 {
			fmt.Fprintf(log, "slurm: job %d ended with %d %s without a result (%s): submitting them once more\n",
				job, len(failed), sw.Noun, Describe(sw.Noun, failed))
		}
	}

	t0 = time.Now()
	out.Results = make([]json.RawMessage, len(sw.Units))
	for i, u := range sw.Units {
		r, err := w.readResult(u.Key)
		if err != nil {
			return nil, fmt.Errorf("slurm: %s %s: %w (not merged)", sw.Noun, u.Label, err)
		}
		out.Results[i] = r
	}
	out.Collect = time.Since(t0)
	return out, nil
}

func active(tasks map[int]taskState) bool {
	for _, t := range tasks {
		if !t.final() {
			return true
		}
	}
	return false
}

// wait polls the job until none of its tasks can run again, or o.Wait passes, or ctx is done
// (then the job is cancelled). It returns the last state it saw of every task.
func (w *workDir) wait(ctx context.Context, o Options, job int, progress Progress) (map[int]taskState, error) {
	deadline := time.Now().Add(o.Wait)
	interval := o.Poll
	seen := map[int]taskState{}
	failures := 0
	for {
		tasks, gone, err := jobTasks(ctx, job)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			failures++
			if failures >= 10 {
				return seen, fmt.Errorf("slurm: waiting for job %d: scontrol failed %d times in a row: %w", job, failures, err)
			}
		default:
			failures = 0
			for i, t := range tasks {
				seen[i] = t
			}
		}
		if ctx.Err() != nil {
			cerr := scancel(job)
			n := len(w.done())
			msg := fmt.Sprintf("interrupted: cancelled Slurm job %d", job)
			if cerr != nil {
				msg = fmt.Sprintf("interrupted, and could not cancel Slurm job %d (%v): it may go on running", job, cerr)
			}
			return seen, fmt.Errorf("%s; %d of %d %s are done and kept in %s: the same command submits only the other %d: %w",
				msg, n, len(w.m.Units), w.m.Noun, w.path, len(w.m.Units)-n, ctx.Err())
		}
		if err == nil {
			// What it has seen, not only what slurmctld still holds: it forgets finished
			// tasks after MinJobAge, long before a big array ends.
			p, r, e, text := counts(seen)
			if progress != nil {
				progress(Status{Job: job, Done: len(w.done()), Total: len(w.m.Units), Pending: p, Running: r, Ended: e, States: text})
			}
			if gone || !active(tasks) {
				return seen, nil
			}
			if time.Now().After(deadline) {
				n := len(w.done())
				return seen, fmt.Errorf("slurm: waited %s (--slurm-wait) for job %d, whose tasks are still %s; it is left in the queue, and %d of %d %s are done in %s: the same command waits for it and merges",
					o.Wait, job, text, n, len(w.m.Units), w.m.Noun, w.path)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(interval, time.Until(deadline)+time.Millisecond)):
		}
		interval = min(interval*3/2, 5*time.Second)
	}
}

// settle returns the units with a result once the job has ended. A task that COMPLETED wrote
// all of its units; when some do not show yet (a shared file system's attribute cache), it
// looks again for up to o.Settle before counting them missing.
func (w *workDir) settle(o Options, sub *submission, seen map[int]taskState) map[string]bool {
	deadline := time.Now().Add(o.Settle)
	for {
		done := w.done()
		waiting := false
		for ti, t := range sub.tasks {
			if seen[ti].State != "COMPLETED" {
				continue
			}
			for _, u := range t {
				if !done[u.Key] {
					waiting = true
				}
			}
		}
		if !waiting || time.Now().After(deadline) {
			return done
		}
		time.Sleep(time.Second)
	}
}

// explain says what became of a unit without a result: its task's state, its error, its log.
func (w *workDir) explain(sub *submission, job, task int, seen map[int]taskState, u Unit) string {
	st, ok := seen[task]
	state := "state unknown (slurmctld forgot the task before lhsim saw it end)"
	if ok {
		state = st.String()
	}
	s := fmt.Sprintf("task %d of job %d %s", task, job, state)
	if data, err := os.ReadFile(sub.errorFile(u.Key)); err == nil {
		s += ": " + firstLines(strings.TrimSpace(string(data)), 3)
	}
	return s + ", log " + sub.logFile(task)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, " / ")
}

// Decode unmarshals each result into an R.
func Decode[R any](o *Outcome) ([]R, error) {
	out := make([]R, len(o.Results))
	for i, raw := range o.Results {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("slurm: result %d in %s: %w", i, o.Dir, err)
		}
	}
	return out, nil
}

var errNotInTask = errors.New("slurm: --slurm-task runs inside a Slurm array task (SLURM_ARRAY_TASK_ID is not set)")
