package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// callLimit bounds every call of a Slurm command: a controller that does not answer is an
// error naming the command, never a hang.
const callLimit = 60 * time.Second

// command runs a Slurm client command and returns its standard output.
func command(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("%s %s: no answer within %s", name, strings.Join(args, " "), callLimit)
	}
	if err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return out.String(), nil
}

// ErrNoSlurm is returned when the Slurm client commands are not on PATH.
var ErrNoSlurm = errors.New("no Slurm client here")

// lookClients finds sbatch, scontrol and scancel.
func lookClients() error {
	for _, c := range []string{"sbatch", "scontrol", "scancel"} {
		if _, err := exec.LookPath(c); err != nil {
			return fmt.Errorf("%w: %s is not on PATH (scripts/slurm-local.sh start runs a one-node Slurm on this machine; docs/cluster.md)", ErrNoSlurm, c)
		}
	}
	return nil
}

// sbatch submits a script and returns the job id.
func sbatch(ctx context.Context, script string) (int, error) {
	out, err := command(ctx, "sbatch", "--parsable", script)
	if err != nil {
		return 0, err
	}
	// --parsable: "jobid" or "jobid;cluster"
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	n, perr := strconv.Atoi(id)
	if perr != nil {
		return 0, fmt.Errorf("sbatch --parsable %s answered %q, not a job id", script, strings.TrimSpace(out))
	}
	return n, nil
}

// scancel cancels a job with a context of its own: it runs when the caller's is done.
func scancel(job int) error {
	ctx, cancel := context.WithTimeout(context.Background(), callLimit)
	defer cancel()
	_, err := command(ctx, "scancel", strconv.Itoa(job))
	return err
}

// taskState is what slurmctld says of one array task.
type taskState struct {
	State  string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...
	Exit   string // ExitCode: "status:signal"
	Reason string
}

// final reports whether a task in this state will not run again.
func (t taskState) final() bool {
	switch strings.TrimSuffix(t.State, "+") {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED":
		return true
	}
	return false
}

// String is the state for a report: "FAILED (exit status 1)", "FAILED (killed by signal 9)".
func (t taskState) String() string {
	s := t.State
	status, signal, _ := strings.Cut(t.Exit, ":")
	switch {
	case signal != "" && signal != "0":
		s += " (killed by signal " + signal + ")"
	case status != "" && status != "0":
		s += " (exit status " + status + ")"
	}
	if !t.final() && t.Reason != "" && t.Reason != "None" && t.Reason != "(null)" {
		s += " (" + t.Reason + ")"
	}
	return s
}

var (
	fieldRE = func(k string) *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)` + k + `=(\S+)`) }
	reTask  = fieldRE("ArrayTaskId")
	reState = fieldRE("JobState")
	reExit  = fieldRE("ExitCode")
	reWhy   = fieldRE("Reason")
)

// jobTasks asks slurmctld for the state of every task of an array job (`scontrol show job
// -o`: a record per task that has started, one for the tasks still pending). gone is true
// when slurmctld no longer knows the job (it forgets finished jobs after MinJobAge).
func jobTasks(ctx context.Context, job int) (tasks map[int]taskState, gone bool, err error) {
	out, err := command(ctx, "scontrol", "show", "job", "-o", strconv.Itoa(job))
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[int]taskState{}, true, nil
		}
		return nil, false, err
	}
	tasks, err = parseJobTasks(out)
	return tasks, false, err
}

// parseJobTasks reads `scontrol show job -o` of an array job.
func parseJobTasks(out string) (map[int]taskState, error) {
	tasks := map[int]taskState{}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		get := func(re *regexp.Regexp) string {
			if m := re.FindStringSubmatch(line); m != nil {
				return m[1]
			}
			return ""
		}
		ids := get(reTask)
		if ids == "" {
			return nil, fmt.Errorf("scontrol show job: a record without ArrayTaskId: %.200s", line)
		}
		idx, err := expandIndices(ids)
		if err != nil {
			return nil, err
		}
		st := taskState{State: get(reState), Exit: get(reExit), Reason: get(reWhy)}
		for _, i := range idx {
			tasks[i] = st
		}
	}
	return tasks, nil
}

// expandIndices reads an array index list: "3", "2-99", "2-99%4", "1,3,5-7".
func expandIndices(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("scontrol show job: ArrayTaskId %q", s)
		}
		b := a
		if isRange {
			step := 1
			if h, st, ok := strings.Cut(hi, ":"); ok {
				hi = h
				if step, err = strconv.Atoi(st); err != nil || step < 1 {
					return nil, fmt.Errorf("scontrol show job: ArrayTaskId %q", s)
				}
			}
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("scontrol show job: ArrayTaskId %q", s)
			}
			for i := a; i <= b; i += step {
				out = append(out, i)
			}
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

// counts tallies tasks by state, for progress and reports: "2 RUNNING, 98 PENDING".
func counts(tasks map[int]taskState) (pending, running, ended int, text string) {
	by := map[string]int{}
	for _, t := range tasks {
		switch {
		case t.final():
			ended++
		case t.State == "PENDING":
			pending++
		default:
			running++
		}
		k := t.State
		if !t.final() && t.Reason != "" && t.Reason != "None" && t.Reason != "(null)" {
			k += " (" + t.Reason + ")"
		}
		by[k]++
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", by[k], k))
	}
	return pending, running, ended, strings.Join(parts, ", ")
}
