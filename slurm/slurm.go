// Package slurm runs a sweep as one Slurm job array and hands the results back to the command.
package slurm

// slurm runs a sweep — regression seeds, synthesis jobs, network configurations — as
// one Slurm job array and hands the results back to the command that asked, which merges them
// exactly as its local run would. Every command that sweeps (lhsim regress, area, barrier,
// alltoall, traffic) uses it the same way: the user's --slurm flags (Options), the sweep as a
// list of units with stable keys (Sweep), Run on the submitting side and RunTask inside each
// array task.
//
// The work directory (Options.Dir/<command>-<hash>, on a file system every node sees) holds
// everything: the lhsim binary and the other binaries the tasks run, copied once, so that a
// rebuild on the login node cannot change a running job; a manifest (command, flags, units,
// LHSIM_* environment, content hashes); each submission's job script, task table and logs;
// and one result file per unit, written whole by the task that ran it (a temporary file
// renamed into place). The hash covers the command, its flags and the binaries' and sources'
// contents, so the same command finds its earlier results (re-running submits only what is
// missing) and a changed build starts a new directory instead of merging stale results.
//
// The submitting side waits by polling `scontrol show job` (no accounting database needed;
// the task states it saw are kept for the report), with a limit (Options.Wait). Tasks that
// failed or were cancelled are submitted once more; units still without a result are then
// reported by name, with each task's state, exit code and log, and nothing is merged.

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Options are the user's --slurm choices, the same flags on every command (AddFlags).
type Options struct {
	Enabled    bool          // --slurm: run as a job array
	PerTask    int           // --per-task: units per array task
	Partition  string        // --partition
	TimeLimit  string        // --time-limit: sbatch --time of each task
	Account    string        // --account
	SbatchArgs string        // --sbatch-args: more sbatch flags, space-separated
	DryRun     bool          // --dry-run: write the job script, print it, submit nothing
	Dir        string        // --slurm-dir: parent of the work directories
	Wait       time.Duration // --slurm-wait: the longest wait for a job array
	Task       string        // --slurm-task: inside an array task, its submission's task table

	// Binary is the lhsim executable the tasks run (default: this process's). Tests set it.
	Binary string
	// Poll is the first interval between looks at the job (default 500 ms; it grows to 5 s).
	Poll time.Duration
	// Settle is how long a result a finished task wrote may take to become visible here
	// (NFS attribute caching) before its unit counts as missing (default 60 s).
	Settle time.Duration
}

// flagNames are the flags AddFlags defines: no task needs them and no result depends on them.
var flagNames = map[string]bool{
	"slurm": true, "per-task": true, "partition": true, "time-limit": true, "account": true,
	"sbatch-args": true, "dry-run": true, "slurm-dir": true, "slurm-wait": true, "slurm-task": true,
}

// DefaultDir is where work directories go unless --slurm-dir says otherwise.
const DefaultDir = "build/slurm"

// AddFlags defines the --slurm flags on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "slurm", false, "run as a Slurm job array on a shared work directory, wait, then merge the results as a local run would (docs/cluster.md)")
	fs.IntVar(&o.PerTask, "per-task", 1, "with --slurm: units (seeds, synthesis jobs, configurations) per array task")
	fs.StringVar(&o.Partition, "partition", "", "with --slurm: sbatch --partition")
	fs.StringVar(&o.TimeLimit, "time-limit", "", "with --slurm: sbatch --time of each array task (e.g. 30:00)")
	fs.StringVar(&o.Account, "account", "", "with --slurm: sbatch --account")
	fs.StringVar(&o.SbatchArgs, "sbatch-args", "", `with --slurm: more sbatch flags, space-separated (e.g. "--mem=2G --qos=short")`)
	fs.BoolVar(&o.DryRun, "dry-run", false, "with --slurm: write the job script and print it; submit nothing")
	fs.StringVar(&o.Dir, "slurm-dir", DefaultDir, "with --slurm: where the work directory goes; on a file system every node sees")
	fs.DurationVar(&o.Wait, "slurm-wait", 24*time.Hour, "with --slurm: the longest wait for the job array (it is then left to run: the same command collects it later)")
	fs.StringVar(&o.Task, "slurm-task", "", "internal: run one array task's share (the job script sets it)")
}

// Check finds --slurm flags that make no sense, before any work: a --slurm-only flag without
// --slurm, --per-task below 1, a wait that is not positive.
func (o *Options) Check(fs *flag.FlagSet) error {
	var stray []string
	fs.Visit(func(f *flag.Flag) {
		if flagNames[f.Name] && f.Name != "slurm" && f.Name != "slurm-task" && !o.Enabled {
			stray = append(stray, "--"+f.Name)
		}
	})
	switch {
	case len(stray) > 0:
		return fmt.Errorf("%s: only with --slurm", strings.Join(stray, ", "))
	case o.PerTask < 1:
		return fmt.Errorf("--per-task %d: want 1 or more", o.PerTask)
	case o.Wait <= 0:
		return fmt.Errorf("--slurm-wait %s: want a positive duration", o.Wait)
	case o.Enabled && o.Task != "":
		return errors.New("--slurm-task runs inside an array task: not with --slurm")
	}
	if _, err := sbatchDirectives(o.SbatchArgs); err != nil {
		return err
	}
	return nil
}

// Args are the flags the user set on fs, as -name=value in name order, leaving out the
// --slurm flags, the ones named in skip (outputs: --json, --out, --junit ...) and any set to
// its default: what every array task runs, and what names the work directory.
func Args(fs *flag.FlagSet, skip ...string) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if flagNames[f.Name] || contains(skip, f.Name) || f.Value.String() == f.DefValue {
			return
		}
		out = append(out, "-"+f.Name+"="+f.Value.String())
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Unit is one piece of a sweep that runs on its own: a seed, a synthesis job, a configuration.
type Unit struct {
	Key   string `json:"key"`   // stable and file-safe (KeyOf): names the unit's result file
	Label string `json:"label"` // how reports name it: "17", "xc2vp/alpu_CELLS512"
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// KeyOf makes a unit key out of a label: runs of characters other than letters, digits, '.',
// '_' and '-' become one '-'.
func KeyOf(label string) string {
	return strings.Trim(unsafeKey.ReplaceAllString(label, "-"), "-")
}

// Sweep is what a command hands to Slurm.
type Sweep struct {
	Command string   // the lhsim subcommand every task runs: "regress"
	Noun    string   // what a unit is, in the plural: "seeds", "synthesis jobs"
	Args    []string // its flags (Args): the same for every task
	Units   []Unit
	// Files are more binaries the tasks run (name in the work directory's bin/ -> path here),
	// copied like lhsim itself: the regression's test binary.
	Files map[string]string
	// Identity are more files whose contents the results depend on (the RTL sources of a
	// synthesis sweep): a change gives a new work directory.
	Identity []string
}

// check refuses a sweep that could not be merged back: no units, keys empty or twice.
func (s Sweep) check() error {
	if s.Command == "" || len(s.Units) == 0 {
		return fmt.Errorf("slurm: nothing to run (%q, %d units)", s.Command, len(s.Units))
	}
	seen := map[string]bool{}
	for _, u := range s.Units {
		if u.Key == "" || u.Key != KeyOf(u.Key) {
			return fmt.Errorf("slurm: unit %q has key %q: want letters, digits, '.', '_', '-'", u.Label, u.Key)
		}
		if seen[u.Key] {
			return fmt.Errorf("slurm: unit key %q twice", u.Key)
		}
		seen[u.Key] = true
	}
	return nil
}

// Describe names a set of units for a report: "seeds 1-4, 6" when every label is a whole
// number, else the labels, the first eight of them and how many more.
func Describe(noun string, units []Unit) string {
	if len(units) == 0 {
		return "no " + noun
	}
	nums := make([]uint64, 0, len(units))
	for _, u := range units {
		n, err := strconv.ParseUint(u.Label, 10, 64)
		if err != nil {
			nums = nil
			break
		}
		nums = append(nums, n)
	}
	if nums != nil {
		sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
		return noun + " " + Ranges(nums)
	}
	var names []string
	for i, u := range units {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(units)-8))
			break
		}
		names = append(names, u.Label)
	}
	return noun + " " + strings.Join(names, ", ")
}

// Ranges writes sorted numbers compactly: 1-4, 6, 8-200.
func Ranges(nums []uint64) string {
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.FormatUint(nums[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", nums[i], nums[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
