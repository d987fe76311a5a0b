package slurm

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lhsim/lhsim/slurm/slurmtest"
	"github.com/stretchr/testify/require"
)

// The test binary is also the "lhsim" the array tasks run: `slurm.test sweeptest FLAGS
// -slurm-task=FILE` runs one task of the stand-in sweep below.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sweeptest" {
		if err := sweepTask(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// square is the stand-in unit's result.
type square struct {
	N, Square int
}

// sweepTask is the stand-in command: unit uN returns N*N after -sleep; the unit named by
// -kill kills its own process (a node that dies mid-task), every time, or only the first
// time when -marker names a folder where it leaves a mark; -fail makes a unit return an error.
func sweepTask(args []string) error {
	fs := flag.NewFlagSet("sweeptest", flag.ContinueOnError)
	n := fs.Int("n", 4, "units")
	sleep := fs.Duration("sleep", 0, "per unit")
	kill := fs.String("kill", "", "unit that kills its process")
	marker := fs.String("marker", "", "folder: kill only once")
	fail := fs.String("fail", "", "unit that returns an error")
	var o Options
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	_ = n
	return RunTask(context.Background(), o.Task, "sweeptest", Args(fs), os.Stdout, func(ctx context.Context, u Unit) (any, error) {
		time.Sleep(*sleep)
		if u.Label == *kill {
			mark := filepath.Join(*marker, u.Key)
			if _, err := os.Stat(mark); *marker == "" || err != nil {
				if *marker != "" {
					os.WriteFile(mark, nil, 0o644)
				}
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		if u.Label == *fail {
			return nil, errors.New("the stand-in unit fails as asked")
		}
		k, _ := strconv.Atoi(strings.TrimPrefix(u.Key, "u"))
		return square{k, k * k}, nil
	})
}

// standIn is the stand-in sweep of n units with the given stand-in flags.
func standIn(t *testing.T, n int, flags ...string) Sweep {
	fs := flag.NewFlagSet("sweeptest", flag.ContinueOnError)
	fs.Int("n", 4, "")
	fs.Duration("sleep", 0, "")
	fs.String("kill", "", "")
	fs.String("marker", "", "")
	fs.String("fail", "", "")
	var o Options
	o.AddFlags(fs)
	require.NoError(t, fs.Parse(append(flags, "-n="+strconv.Itoa(n))))
	sw := Sweep{Command: "sweeptest", Noun: "units", Args: Args(fs)}
	for i := 1; i <= n; i++ {
		sw.Units = append(sw.Units, Unit{Key: fmt.Sprintf("u%d", i), Label: fmt.Sprintf("u%d", i)})
	}
	return sw
}

func testOptions(t *testing.T, per int) Options {
	return Options{Enabled: true, PerTask: per, Dir: t.TempDir(), Binary: os.Args[0], Poll: 200 * time.Millisecond, Settle: 2 * time.Second, Wait: 5 * time.Minute}
}

func squares(t *testing.T, out *Outcome) []int {
	t.Helper()
	rs, err := Decode[square](out)
	require.NoError(t, err)
	var got []int
	for _, r := range rs {
		got = append(got, r.Square)
	}
	return got
}

// A sweep runs as one job array of ceil(units / per-task) tasks and comes back whole, in
// unit order; run again, it finds every result and submits nothing.
func TestRunOnSlurm(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 2)
	sw := standIn(t, 5)
	var log bytes.Buffer
	var mu sync.Mutex
	var seen []Status
	out, err := Run(context.Background(), o, sw, &log, func(s Status) { mu.Lock(); seen = append(seen, s); mu.Unlock() })
	require.NoError(t, err, log.String())
	require.Equal(t, []int{1, 4, 9, 16, 25}, squares(t, out))
	require.Len(t, out.Jobs, 1)
	require.Equal(t, 3, out.Tasks, "5 units, 2 per task")
	require.Equal(t, 0, out.Before)
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	require.Equal(t, Status{Job: out.Jobs[0], Done: 5, Total: 5, Ended: 3, States: "3 COMPLETED"}, last)
	require.Contains(t, log.String(), fmt.Sprintf("submitted job %d: 3 array tasks of up to 2 units", out.Jobs[0]))

	script, err := os.ReadFile(filepath.Join(out.Dir, "submit-1", "job.sh"))
	require.NoError(t, err)
	require.Contains(t, string(script), "#SBATCH --array=0-2\n")
	tasks, err := os.ReadFile(filepath.Join(out.Dir, "submit-1", "tasks.txt"))
	require.NoError(t, err)
	require.Equal(t, "u1 u2\nu3 u4\nu5\n", string(tasks))
	taskLog, err := os.ReadFile(filepath.Join(out.Dir, "submit-1", "logs", "task-1.out"))
	require.NoError(t, err)
	require.Regexp(t, `lhsim sweeptest: array task 1 of job \d+ on \S+ \(pid \d+\): 2 units\nu3: done in [0-9.]+ s\nu4: done in`, string(taskLog))

	again, err := Run(context.Background(), o, sw, &log, nil)
	require.NoError(t, err)
	require.Empty(t, again.Jobs, "nothing left to submit")
	require.Equal(t, 5, again.Before)
	require.Equal(t, out.Results, again.Results)
	require.Equal(t, "Slurm (results already in "+out.Dir+")", again.Where())
}

// A task whose process is killed mid-run (a node that dies) leaves its units without a
// result; they are submitted once more, and the sweep comes back whole.
func TestKilledTaskIsSubmittedAgain(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 2)
	sw := standIn(t, 4, "-kill=u3", "-marker="+t.TempDir())
	var log bytes.Buffer
	out, err := Run(context.Background(), o, sw, &log, nil)
	require.NoError(t, err, log.String())
	require.Equal(t, []int{1, 4, 9, 16}, squares(t, out))
	require.Len(t, out.Jobs, 2)
	require.Equal(t, 3, out.Tasks, "two tasks, then one for u3 and u4")
	require.Contains(t, log.String(), fmt.Sprintf("job %d ended with 2 units without a result (units u3, u4): submitting them once more", out.Jobs[0]))
	tasks, err := os.ReadFile(filepath.Join(out.Dir, "submit-2", "tasks.txt"))
	require.NoError(t, err)
	require.Equal(t, "u3 u4\n", string(tasks), "only what was missing")
}

// A unit that kills its task every time is reported by name after the second submission,
// with both tasks' states and logs; nothing is merged, the other results are kept, and the
// next run submits only that unit.
func TestUnitFailingTwiceIsReported(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 1)
	sw := standIn(t, 3, "-kill=u2")
	var log bytes.Buffer
	out, err := Run(context.Background(), o, sw, &log, nil)
	require.Nil(t, out)
	var me *MissingError
	require.ErrorAs(t, err, &me, log.String())
	require.Equal(t, []Unit{{"u2", "u2"}}, me.Missing)
	msg := err.Error()
	require.Contains(t, msg, "1 of 3 units have no result after two submissions, so nothing was merged: units u2")
	require.Regexp(t, `u2: task 1 of job \d+ FAILED \(killed by signal 9\), log \S+/submit-1/logs/task-1.out; then task 0 of job \d+ FAILED \(killed by signal 9\), log \S+/submit-2/logs/task-0.out`, msg)
	require.Contains(t, msg, "the other 2 results are kept in "+me.Dir)
	for _, k := range []string{"u1", "u3"} {
		require.FileExists(t, filepath.Join(me.Dir, "results", k+".json"))
	}
	require.NoFileExists(t, filepath.Join(me.Dir, "results", "u2.json"))

	// A unit that returns an error is reported with it.
	sw = standIn(t, 2, "-fail=u1")
	_, err = Run(context.Background(), o, sw, &log, nil)
	require.ErrorAs(t, err, &me)
	require.Regexp(t, `u1: task 0 of job \d+ FAILED \(exit status 1\): the stand-in unit fails as asked, log `, err.Error())
}

// Interrupting the submitting command cancels the job; the results written so far are kept,
// and the same command then submits only the rest.
func TestInterruptKeepsResults(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 1)
	sw := standIn(t, 6, "-sleep=1s")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log bytes.Buffer
	_, err := Run(ctx, o, sw, &log, func(s Status) {
		if s.Done >= 2 {
			cancel()
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Regexp(t, `interrupted: cancelled Slurm job \d+; \d of 6 units are done and kept in \S+: the same command submits only the other \d`, err.Error())
	dir := filepath.Join(o.Dir, filepath.Base(firstDir(t, o.Dir)))
	done := len(resultFiles(t, dir))
	require.GreaterOrEqual(t, done, 2)
	require.Less(t, done, 6)

	out, err := Run(context.Background(), o, sw, &log, nil)
	require.NoError(t, err, log.String())
	require.Equal(t, []int{1, 4, 9, 16, 25, 36}, squares(t, out))
	require.GreaterOrEqual(t, out.Before, done, "every result of the interrupted run counted")
	tasks, err := os.ReadFile(filepath.Join(out.Dir, fmt.Sprintf("submit-%d", 2), "tasks.txt"))
	require.NoError(t, err)
	require.Equal(t, 6-out.Before, strings.Count(string(tasks), "\n"), "only the missing units submitted: %s", tasks)
}

// Tasks cancelled from outside (scancel) are submitted once more.
func TestCancelledTasksSubmittedAgain(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 1)
	sw := standIn(t, 4, "-sleep=2s")
	var once sync.Once
	var log bytes.Buffer
	out, err := Run(context.Background(), o, sw, &log, func(s Status) {
		once.Do(func() {
			require.NoError(t, exec.Command("scancel", fmt.Sprint(s.Job)).Run())
		})
	})
	require.NoError(t, err, log.String())
	require.Equal(t, []int{1, 4, 9, 16}, squares(t, out))
	require.Len(t, out.Jobs, 2)
	require.Contains(t, log.String(), "submitting them once more")
}

// sbatch refusing the job (a partition that does not exist) is an error naming the units and
// sbatch's own words; no job is recorded.
func TestSbatchRefuses(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 1)
	o.Partition = "nosuch"
	var log bytes.Buffer
	_, err := Run(context.Background(), o, standIn(t, 3), &log, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "sbatch refused the job array for units u1, u2, u3; nothing of it was submitted")
	require.Contains(t, err.Error(), "invalid partition")
	m, err := readManifest(firstDir(t, o.Dir))
	require.NoError(t, err)
	require.Empty(t, m.Jobs)
}

// The wait has a limit; past it the error names the job and what its tasks are doing, and
// leaves it to run; the next run waits for that job instead of submitting its units again.
func TestWaitLimit(t *testing.T) {
	slurmtest.Require(t)
	o := testOptions(t, 2)
	o.Wait = 500 * time.Millisecond
	sw := standIn(t, 2, "-sleep=4s")
	var log bytes.Buffer
	_, err := Run(context.Background(), o, sw, &log, nil)
	require.Error(t, err)
	require.Regexp(t, `waited 500ms \(--slurm-wait\) for job \d+, whose tasks are still 1 (PENDING|RUNNING)[^;]*; it is left in the queue, and 0 of 2 units are done in \S+: the same command waits for it and merges`, err.Error())

	o.Wait = 2 * time.Minute
	out, err := Run(context.Background(), o, sw, &log, nil)
	require.NoError(t, err, log.String())
	require.Empty(t, out.Jobs, "the earlier job finished the units")
	require.Equal(t, []int{1, 4}, squares(t, out))
	require.Regexp(t, `job \d+ from an earlier run is still in the queue: waiting for it`, log.String())
}

// No Slurm client: an error saying so and naming the units; nothing written.
func TestNoSbatch(t *testing.T) {
	t.Setenv("PATH", "/nonexistent")
	o := testOptions(t, 1)
	_, err := Run(context.Background(), o, standIn(t, 3), &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, ErrNoSlurm)
	require.Contains(t, err.Error(), "sbatch is not on PATH")
	require.Contains(t, err.Error(), "nothing submitted for units u1, u2, u3")
	entries, _ := os.ReadDir(o.Dir)
	require.Empty(t, entries)
}

// --dry-run writes the job script and returns it without submitting; the script holds every
// choice as an #SBATCH line, the LHSIM_* environment, and the task command line.
func TestDryRun(t *testing.T) {
	t.Setenv("PATH", "/nonexistent") // needs no Slurm
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); strings.HasPrefix(k, "LHSIM_") {
			t.Setenv(k, "") // restored after the test
			os.Unsetenv(k)
		}
	}
	t.Setenv("LHSIM_MODEL", "go")
	o := testOptions(t, 2)
	o.DryRun, o.Partition, o.TimeLimit, o.Account, o.SbatchArgs = true, "short", "10:00", "hw", "--mem=2G --qos low"
	var log bytes.Buffer
	sw := standIn(t, 3, "-sleep=1s")
	out, err := Run(context.Background(), o, sw, &log, nil)
	require.NoError(t, err)
	require.True(t, out.DryRun)
	require.Empty(t, out.Jobs)
	file, err := os.ReadFile(filepath.Join(out.Dir, "submit-1", "job.sh"))
	require.NoError(t, err)
	require.Equal(t, string(file), out.Script)
	cwd, _ := os.Getwd()
	want := fmt.Sprintf(`#!/bin/bash
# lhsim sweeptest as a Slurm job array, written by lhsim (docs/cluster.md): 3 units in 2 tasks of up to 2.
# Each task runs the lhsim copied into %[1]s/bin on its line of tasks.txt and writes one
# result file per unit to %[1]s/results.
#SBATCH --job-name=lhsim-sweeptest
#SBATCH --array=0-1
#SBATCH --output=%[1]s/submit-1/logs/task-%%a.out
#SBATCH --chdir=%[2]s
#SBATCH --partition=short
#SBATCH --time=10:00
#SBATCH --account=hw
#SBATCH --mem=2G
#SBATCH --qos low
export LHSIM_MODEL=go
exec %[1]s/bin/lhsim sweeptest -n=3 -sleep=1s -slurm-task=%[1]s/submit-1/tasks.txt
`, out.Dir, cwd)
	require.Equal(t, want, out.Script)
	require.Contains(t, log.String(), "dry run: "+out.Dir+"/submit-1/job.sh would submit 2 array tasks for units u1, u2, u3; nothing submitted")
}

// The same command, flags and binaries find the same work directory; other flags, another
// LHSIM_* environment or a changed input file give another.
func TestWorkDirIdentity(t *testing.T) {
	parent := t.TempDir()
	input := filepath.Join(t.TempDir(), "rtl.v")
	require.NoError(t, os.WriteFile(input, []byte("module a; endmodule\n"), 0o644))
	dir := func(sw Sweep) string {
		sw.Identity = []string{input}
		w, err := openWorkDir(parent, os.Args[0], sw)
		require.NoError(t, err)
		w.close()
		return w.path
	}
	a := dir(standIn(t, 3))
	require.Equal(t, a, dir(standIn(t, 3)))
	require.NotEqual(t, a, dir(standIn(t, 3, "-sleep=1s")))
	t.Setenv("LHSIM_BRIDGE", "plugin")
	require.NotEqual(t, a, dir(standIn(t, 3)))
	os.Unsetenv("LHSIM_BRIDGE")
	require.NoError(t, os.WriteFile(input, []byte("module b; endmodule\n"), 0o644))
	require.NotEqual(t, a, dir(standIn(t, 3)))

	// A second submitter of the same sweep is refused while the first holds it.
	w, err := openWorkDir(parent, os.Args[0], standIn(t, 3))
	require.NoError(t, err)
	_, err = openWorkDir(parent, os.Args[0], standIn(t, 3))
	require.ErrorContains(t, err, "another lhsim is submitting this sweep now")
	w.close()
}

// A result file that belongs to another sweep or unit is never merged.
func TestForeignResultRefused(t *testing.T) {
	w, err := openWorkDir(t.TempDir(), os.Args[0], standIn(t, 2))
	require.NoError(t, err)
	defer w.close()
	require.NoError(t, w.writeResult("u1", square{1, 1}))
	_, err = w.readResult("u1")
	require.NoError(t, err)
	data, err := os.ReadFile(w.resultFile("u1"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(w.resultFile("u2"), data, 0o644))
	_, err = w.readResult("u2")
	require.ErrorContains(t, err, `belongs to sweep `+w.m.Sweep+` unit "u1", not `+w.m.Sweep+` "u2"`)
}

// A task refuses to run units of a work directory whose manifest is another sweep.
func TestTaskChecksItsSweep(t *testing.T) {
	o := testOptions(t, 1)
	o.DryRun = true
	t.Setenv("PATH", "/nonexistent")
	out, err := Run(context.Background(), o, standIn(t, 2), &bytes.Buffer{}, nil)
	require.NoError(t, err)
	t.Setenv("SLURM_ARRAY_TASK_ID", "0")
	err = RunTask(context.Background(), filepath.Join(out.Dir, "submit-1", "tasks.txt"), "sweeptest", []string{"-n=3"}, &bytes.Buffer{},
		func(context.Context, Unit) (any, error) { t.Fatal("ran a unit of another sweep"); return nil, nil })
	require.ErrorContains(t, err, "is the sweep `lhsim sweeptest -n=2`, not `lhsim sweeptest -n=3`: not running")
	os.Unsetenv("SLURM_ARRAY_TASK_ID")
	err = RunTask(context.Background(), filepath.Join(out.Dir, "submit-1", "tasks.txt"), "sweeptest", []string{"-n=2"}, &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, errNotInTask)
}

func firstDir(t *testing.T, parent string) string {
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	return filepath.Join(parent, entries[0].Name())
}

func resultFiles(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "results", "*.json"))
	require.NoError(t, err)
	return m
}

// scontrol's records of an array job, as Slurm 22.05 prints them.
func TestParseJobTasks(t *testing.T) {
	out := "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=j.sh UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 RunTime=00:00:01\n" +
		"JobId=2 ArrayJobId=1 ArrayTaskId=0 JobName=j.sh JobState=CANCELLED Reason=None ExitCode=0:15\n" +
		"JobId=1 ArrayJobId=1 ArrayTaskId=3-7%2 JobName=j.sh JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0\n" +
		"JobId=9 ArrayJobId=1 ArrayTaskId=1 JobName=j.sh JobState=RUNNING Reason=None ExitCode=0:0\n"
	tasks, err := parseJobTasks(out)
	require.NoError(t, err)
	require.Len(t, tasks, 8)
	require.Equal(t, "FAILED (exit status 3)", tasks[2].String())
	require.Equal(t, "CANCELLED (killed by signal 15)", tasks[0].String())
	require.Equal(t, "PENDING (JobArrayTaskLimit)", tasks[7].String())
	require.True(t, active(tasks))
	p, r, e, text := counts(tasks)
	require.Equal(t, []int{5, 1, 2}, []int{p, r, e})
	require.Equal(t, "1 CANCELLED, 1 FAILED, 5 PENDING (JobArrayTaskLimit), 1 RUNNING", text)

	idx, err := expandIndices("1,3,5-9:2")
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 5, 7, 9}, idx)
	for _, bad := range []string{"x", "5-2", "1-"} {
		_, err := expandIndices(bad)
		require.Error(t, err, bad)
	}
	_, err = parseJobTasks("JobId=3 JobName=x JobState=RUNNING\n")
	require.ErrorContains(t, err, "without ArrayTaskId")
}

func TestFlags(t *testing.T) {
	newFS := func() (*flag.FlagSet, *Options) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.Int("seeds", 200, "")
		fs.String("junit", "", "")
		var o Options
		o.AddFlags(fs)
		return fs, &o
	}
	fs, o := newFS()
	require.NoError(t, fs.Parse([]string{"--seeds", "7", "--slurm", "--per-task", "3", "--junit", "x.xml", "--partition", "p"}))
	require.NoError(t, o.Check(fs))
	require.Equal(t, []string{"-seeds=7"}, Args(fs, "junit"), "the --slurm flags and outputs are not the task's")
	fs, _ = newFS()
	require.NoError(t, fs.Parse([]string{"--seeds", "200"}))
	require.Empty(t, Args(fs), "a flag set to its default names the same sweep as no flag")

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--partition", "p", "--per-task", "2"}, "--partition, --per-task: only with --slurm"},
		{[]string{"--slurm", "--per-task", "0"}, "--per-task 0: want 1 or more"},
		{[]string{"--slurm", "--slurm-wait", "0s"}, "--slurm-wait 0s: want a positive duration"},
		{[]string{"--slurm", "--sbatch-args", "--array=1-3"}, "--array=1-3 is lhsim's to set"},
		{[]string{"--slurm", "--sbatch-args", "-o x"}, "-o x is lhsim's to set"},
		{[]string{"--slurm", "--sbatch-args", `--comment="a b"`}, "quotes are not interpreted"},
		{[]string{"--slurm", "--sbatch-args", "short"}, `"short" is not a flag`},
		{[]string{"--slurm", "--slurm-task", "x"}, "--slurm-task runs inside an array task"},
	} {
		fs, o := newFS()
		require.NoError(t, fs.Parse(c.args))
		require.ErrorContains(t, o.Check(fs), c.says, "%v", c.args)
	}
}

func TestDescribe(t *testing.T) {
	var seeds []Unit
	for _, s := range []int{1, 2, 3, 4, 6, 8, 9} {
		seeds = append(seeds, Unit{Key: fmt.Sprintf("seed-%d", s), Label: fmt.Sprint(s)})
	}
	require.Equal(t, "seeds 1-4, 6, 8-9", Describe("seeds", seeds))
	var jobs []Unit
	for i := range 10 {
		jobs = append(jobs, Unit{Key: KeyOf(fmt.Sprintf("xc7/j%d", i)), Label: fmt.Sprintf("xc7/j%d", i)})
	}
	require.Equal(t, "xc7-j0", jobs[0].Key)
	require.Equal(t, "jobs xc7/j0, xc7/j1, xc7/j2, xc7/j3, xc7/j4, xc7/j5, xc7/j6, xc7/j7, and 2 more", Describe("jobs", jobs))
	require.Equal(t, "crossbar-64-1.0us", KeyOf("crossbar:64 @ 1.0us"))
	require.Equal(t, `'it'\''s'`, shellQuote("it's"))
	require.Equal(t, "-n=3", shellQuote("-n=3"))
}
