package slurm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TaskFunc runs one unit inside an array task and returns its result (written as JSON).
type TaskFunc func(ctx context.Context, u Unit) (any, error)

// RunTask is an array task's side: the units on line $SLURM_ARRAY_TASK_ID of the task table
// o.Task, each run with run and its result written to the work directory whole. It first
// checks that the work directory's manifest is the sweep this command line describes
// (command and args), so a task never writes results into another sweep. A unit whose run
// fails has its error kept in the submission's errors/ folder, and the others still run; the
// task then exits with an error, which Slurm records as FAILED. Units run one at a time,
// or $SLURM_CPUS_PER_TASK at a time when the job asked for more CPUs per task.
func RunTask(ctx context.Context, file, command string, args []string, log io.Writer, run TaskFunc) error {
	idx, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_ID"))
	if err != nil {
		return errNotInTask
	}
	sub, _ := filepath.Abs(filepath.Dir(file))
	dir := filepath.Dir(sub)
	m, err := readManifest(dir)
	if err != nil {
		return fmt.Errorf("slurm task: %w", err)
	}
	if m.Command != command || strings.Join(m.Args, "\x00") != strings.Join(args, "\x00") {
		return fmt.Errorf("slurm task: %s is the sweep `lhsim %s %s`, not `lhsim %s %s`: not running",
			dir, m.Command, strings.Join(m.Args, " "), command, strings.Join(args, " "))
	}
	keys, err := taskLine(file, idx)
	if err != nil {
		return err
	}
	units := map[string]Unit{}
	for _, u := range m.Units {
		units[u.Key] = u
	}
	w := &workDir{path: dir, m: m}
	host, _ := os.Hostname()
	fmt.Fprintf(log, "lhsim %s: array task %d of job %s on %s (pid %d): %d %s\n",
		command, idx, os.Getenv("SLURM_ARRAY_JOB_ID"), host, os.Getpid(), len(keys), m.Noun)

	workers := 1
	if n, err := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK")); err == nil && n > 1 {
		workers = n
	}
	var mu sync.Mutex
	var failed []string
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(workers, max(1, len(keys))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range work {
				u, ok := units[key]
				if !ok {
					mu.Lock()
					failed = append(failed, key)
					mu.Unlock()
					fmt.Fprintf(log, "unit %q is not in %s/manifest.json\n", key, dir)
					continue
				}
				if _, err := w.readResult(key); err == nil {
					fmt.Fprintf(log, "%s: already done\n", u.Label)
					continue
				}
				t0 := time.Now()
				res, err := run(ctx, u)
				if err == nil {
					err = w.writeResult(key, res)
				}
				if err != nil {
					mu.Lock()
					failed = append(failed, u.Label)
					mu.Unlock()
					os.WriteFile(filepath.Join(sub, "errors", key+".txt"), []byte(err.Error()+"\n"), 0o644)
					fmt.Fprintf(log, "%s: FAILED after %.2f s: %v\n", u.Label, time.Since(t0).Seconds(), err)
					continue
				}
				fmt.Fprintf(log, "%s: done in %.2f s\n", u.Label, time.Since(t0).Seconds())
			}
		}()
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("slurm task %d: %d of %d %s failed: %s", idx, len(failed), len(keys), m.Noun, strings.Join(failed, ", "))
	}
	return nil
}

// taskLine reads line idx (from 0) of a task table.
func taskLine(file string, idx int) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("slurm task: no task table %s", file)
		}
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for i := 0; sc.Scan(); i++ {
		if i == idx {
			return strings.Fields(sc.Text()), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("slurm task: %s has no line for array task %d", file, idx)
}

// TaskBinary is where, inside an array task running task table file, the binary the
// submitting side named name (Sweep.Files) is.
func TaskBinary(file, name string) string {
	abs, _ := filepath.Abs(file)
	return filepath.Join(filepath.Dir(filepath.Dir(abs)), "bin", name)
}
