package slurm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// submission is one job array: its folder (job.sh, tasks.txt, logs/, errors/) and the units
// of each task, in array index order.
type submission struct {
	n      int
	dir    string
	tasks  [][]Unit
	script string
}

func (s *submission) tasksFile() string  { return filepath.Join(s.dir, "tasks.txt") }
func (s *submission) scriptFile() string { return filepath.Join(s.dir, "job.sh") }
func (s *submission) logFile(task int) string {
	return filepath.Join(s.dir, "logs", fmt.Sprintf("task-%d.out", task))
}
func (s *submission) errorFile(key string) string { return filepath.Join(s.dir, "errors", key+".txt") }

// chunk splits units into tasks of at most per units, in order.
func chunk(units []Unit, per int) [][]Unit {
	var out [][]Unit
	for len(units) > 0 {
		n := min(per, len(units))
		out = append(out, units[:n])
		units = units[n:]
	}
	return out
}

// newSubmission writes submission n of the missing units: the task table (line i: the keys of
// array task i) and the job script.
func (w *workDir) newSubmission(o Options, n int, missing []Unit) (*submission, error) {
	s := &submission{n: n, dir: w.submitDir(n), tasks: chunk(missing, o.PerTask)}
	if err := os.RemoveAll(s.dir); err != nil { // a dry run's, never submitted
		return nil, err
	}
	for _, d := range []string{filepath.Join(s.dir, "logs"), filepath.Join(s.dir, "errors")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var table strings.Builder
	for _, t := range s.tasks {
		for i, u := range t {
			if i > 0 {
				table.WriteByte(' ')
			}
			table.WriteString(u.Key)
		}
		table.WriteByte('\n')
	}
	if err := writeAtomic(s.tasksFile(), []byte(table.String()), 0o644); err != nil {
		return nil, err
	}
	script, err := w.script(o, s)
	if err != nil {
		return nil, err
	}
	s.script = script
	if err := writeAtomic(s.scriptFile(), []byte(script), 0o755); err != nil {
		return nil, err
	}
	return s, nil
}

// script is the job array's batch script. Every choice is an #SBATCH line, so that what
// --dry-run prints is the whole job; the LHSIM_* environment of the submitting shell is
// exported explicitly (it is part of the sweep's identity, and --export=NONE would drop it).
func (w *workDir) script(o Options, s *submission) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	extra, err := sbatchDirectives(o.SbatchArgs)
	if err != nil {
		return "", err
	}
	per := len(s.tasks[0])
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# lhsim %s as a Slurm job array, written by lhsim (docs/cluster.md): %d %s in %d tasks of up to %d.\n",
		w.m.Command, countUnits(s.tasks), w.m.Noun, len(s.tasks), per)
	fmt.Fprintf(&b, "# Each task runs the lhsim copied into %s/bin on its line of tasks.txt and writes one\n", w.path)
	fmt.Fprintf(&b, "# result file per unit to %s/results.\n", w.path)
	fmt.Fprintf(&b, "#SBATCH --job-name=lhsim-%s\n", strings.Join(strings.Fields(w.m.Command), "-"))
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", len(s.tasks)-1)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(s.dir, "logs", "task-%a.out"))
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", cwd)
	for _, f := range []struct{ name, v string }{{"partition", o.Partition}, {"time", o.TimeLimit}, {"account", o.Account}} {
		if f.v != "" {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", f.name, f.v)
		}
	}
	for _, d := range extra {
		fmt.Fprintf(&b, "#SBATCH %s\n", d)
	}
	for _, e := range w.m.Env {
		k, v, _ := strings.Cut(e, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	args := []string{shellQuote(w.bin("lhsim"))}
	for _, word := range strings.Fields(w.m.Command) { // a subcommand is its words: ib rtt
		args = append(args, shellQuote(word))
	}
	for _, a := range w.m.Args {
		args = append(args, shellQuote(a))
	}
	args = append(args, shellQuote("-slurm-task="+s.tasksFile()))
	fmt.Fprintf(&b, "exec %s\n", strings.Join(args, " "))
	return b.String(), nil
}

func countUnits(tasks [][]Unit) int {
	n := 0
	for _, t := range tasks {
		n += len(t)
	}
	return n
}

// sbatchDirectives splits --sbatch-args into one directive per flag: "--mem=2G --qos short"
// gives "--mem=2G" and "--qos short". Quotes are not interpreted: a value with spaces
// cannot be given here.
func sbatchDirectives(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.ContainsAny(f, `"'`) {
			return nil, fmt.Errorf("--sbatch-args %q: quotes are not interpreted; give values without spaces", s)
		}
		if !strings.HasPrefix(f, "-") {
			if len(out) == 0 {
				return nil, fmt.Errorf("--sbatch-args %q: %q is not a flag", s, f)
			}
			out[len(out)-1] += " " + f
			continue
		}
		out = append(out, f)
	}
	for _, d := range out {
		name, _, _ := strings.Cut(strings.TrimLeft(d, "-"), "=")
		name, _, _ = strings.Cut(name, " ")
		switch name {
		case "array", "a", "output", "o", "error", "e", "chdir", "D", "job-name", "J", "parsable", "wait", "W":
			return nil, fmt.Errorf("--sbatch-args: %s is lhsim's to set (the array, its logs and its folder make the merge work)", d)
		}
	}
	return out, nil
}

// shellQuote quotes s for bash when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:@+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
