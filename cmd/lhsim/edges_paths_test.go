package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The edges of the files a user names (issue 37's first class, docs/bad-input.md): no output
// overwrites an input or another output, a write that fails is reported, and a folder that
// cannot be written is refused before any work.

// pathFlags are the path flags a command defines (its runner's, cli.CheckPaths checks them).
func pathFlags(t *testing.T, cmd []string) []pathFlag {
	c := find(commands, cmd[0])
	for _, sub := range cmd[1:] {
		c = find(c.subs, sub)
	}
	require.NotNil(t, c, "%v", cmd)
	r := newRunner(c)
	c.flags(r)
	return r.paths
}

// unwritableFolder is a folder no file can be created in: read-only by its mode, or for
// root, who passes modes, sysfs.
func unwritableFolder(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "/sys"
	}
	dir := filepath.Join(t.TempDir(), "read-only")
	require.NoError(t, os.Mkdir(dir, 0o555))
	return dir
}

// pathBase is a command's small run for the path sweep: its flags, what follows them
// (goal record's -- mpirun ...), and whether only the checks made before any work are tried
// (a run that starts go test, Yosys, a solver or MPI).
type pathBase struct {
	edgeBase
	tail      []string
	pairsOnly bool
}

// pathBases are every command's, those of the numeric sweep (edgeBases) and the commands
// with path flags and no numeric flag worth a sweep; TestEdgesPaths fails when a command
// with a path flag has none.
func pathBases(t *testing.T) []pathBase {
	var out []pathBase
	for _, b := range edgeBases(t) {
		out = append(out, pathBase{edgeBase: b, pairsOnly: len(b.skip) > 0})
	}
	fst, err := filepath.Abs("../../build/waves/TestScoreboardRandom_1.fst")
	require.NoError(t, err)
	mpi := []string{"--", "mpirun", "-np", "2", "true"}
	return append(out,
		pathBase{edgeBase: edgeBase{cmd: []string{"matchers"}, base: []string{"--ranks", "8", "--workloads", "incast", "--matchers", "list", "--jobs", "1"}}},
		pathBase{edgeBase: edgeBase{cmd: []string{"goal", "gen"}, base: []string{"dissemination", "--ranks", "4"}}},
		pathBase{edgeBase: edgeBase{cmd: []string{"goal", "record"}}, tail: mpi, pairsOnly: true},
		pathBase{edgeBase: edgeBase{cmd: []string{"goal", "convert"}, base: []string{"no-such.trace"}}, pairsOnly: true},
		pathBase{edgeBase: edgeBase{cmd: []string{"junit"}}},
		pathBase{edgeBase: edgeBase{cmd: []string{"coverage"}}, pairsOnly: true},
		pathBase{edgeBase: edgeBase{cmd: []string{"trace"}, with: map[string][]string{"save": {"--at", "5", "--dump", fst}}}, pairsOnly: !fileExists(fst)},
	)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// allCommands are every command and subcommand that takes flags, as typed.
func allCommands() [][]string {
	var out [][]string
	var walk func(prefix []string, cs []*command)
	walk = func(prefix []string, cs []*command) {
		for _, c := range cs {
			word := c.name[strings.LastIndex(c.name, " ")+1:] // a subcommand's name holds its group's
			p := append(append([]string{}, prefix...), word)
			if c.flags != nil {
				out = append(out, p)
			}
			walk(p, c.subs)
		}
	}
	walk(nil, commands)
	return out
}

// The sweep that keeps it so, generated from the commands themselves (make edges): every
// command x every pair of its path flags (inputs included) on one file, each output on
// /dev/full and in a folder that cannot be written. Each exits 2 (1 for a write that failed
// on /dev/full) with one line under the command's prefix and no stack trace, and leaves the
// input file as it was. Every command with a path flag is in it (pathBases).
func TestEdgesPaths(t *testing.T) {
	if os.Getenv("LHSIM_EDGES") == "" {
		t.Skip("make edges runs it (LHSIM_EDGES=1)")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "in.svg")
	goalFile, err := os.ReadFile("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	var tally edgeTally
	tally.report(t, "TestEdgesPaths")
	outside := t.TempDir()
	check := func(name string, args []string, want ...int) {
		t.Helper()
		require.NoError(t, os.WriteFile(input, goalFile, 0o644))
		if list := os.Getenv("LHSIM_EDGES_LIST"); list != "" { // the cases, to try on another build
			f, err := os.OpenFile(list, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			require.NoError(t, err)
			_, err = f.WriteString(strings.Join(args, "\x1f") + "\n")
			require.NoError(t, errors.Join(err, f.Close()))
		}
		code, _, stderr := edgeRun(t, &tally, outside, "", nil, args)
		require.Contains(t, want, code, "%v: %s", args, stderr)
		require.True(t, strings.HasPrefix(stderr, name+": "), "%v: %q", args, stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %s", args, stderr)
		require.NotContains(t, stderr, "goroutine ", "%v", args)
		after, err := os.ReadFile(input)
		require.NoError(t, err)
		require.True(t, bytes.Equal(goalFile, after), "%v: the input file was written", args)
	}
	bases := pathBases(t)
	covered := map[string]bool{}
	for _, b := range bases {
		covered[strings.Join(b.cmd, " ")] = true
	}
	for _, c := range allCommands() {
		if len(pathFlags(t, c)) > 0 {
			require.True(t, covered[strings.Join(c, " ")], "lhsim %s has path flags and no base run in pathBases", strings.Join(c, " "))
		}
	}
	full := 0
	for _, b := range bases {
		name := "lhsim " + strings.Join(b.cmd, " ")
		paths := pathFlags(t, b.cmd)
		args := func(flags []string, extra ...string) []string {
			a := append(append([]string{}, b.cmd...), b.base...)
			for _, f := range flags {
				a = append(a, b.with[f]...)
			}
			return append(append(a, extra...), b.tail...)
		}
		for _, p := range paths {
			if p.Input {
				continue
			}
			for _, q := range paths {
				if q.Name == p.Name {
					continue
				}
				same := filepath.Join(dir, "same.svg")
				if q.Input {
					same = input
				}
				check(name, args([]string{p.Name, q.Name}, "--"+p.Name, same, "--"+q.Name, same), 2)
				os.Remove(filepath.Join(dir, "same.svg"))
			}
			check(name, args([]string{p.Name}, "--"+p.Name, filepath.Join(unwritableFolder(t), "out.svg")), 2)
			if b.pairsOnly {
				continue
			}
			a := args([]string{p.Name}, "--"+p.Name, "/dev/full")
			check(name, a, 1, 2)
			st, err := os.Stat("/dev/full")
			require.NoError(t, err)
			require.NotZero(t, st.Mode()&os.ModeCharDevice, "%v: /dev/full replaced by a file", a)
			full = tally.exits[1]
		}
	}
	require.Positive(t, full, "a write to /dev/full fails with exit 1")
}

// The representatives of the first class of issue 37, each refused before any work (exit 2,
// one line, the input untouched, no output made) or, for a write that fails, exit 1 naming
// the file; and lhsim help of a command that does not exist exits 2.
func TestOutputsNeverOverwrite(t *testing.T) {
	dir := t.TempDir()
	schedule := filepath.Join(dir, "s.goal")
	src, err := os.ReadFile("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(schedule, src, 0o644))
	ckpt := filepath.Join(dir, "ib.ckpt")
	code, _, stderr := run(t, nil, "ib", "run", "--nodes", "2", "--messages", "2", "--checkpoint-at", "5", "--checkpoint", ckpt)
	require.Equal(t, 0, code, stderr)
	saved, err := os.ReadFile(ckpt)
	require.NoError(t, err)
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"goal", "--schedule", schedule, "--out", schedule}, 2, "--out and --schedule name the same file"},
		{[]string{"ib", "run", "--resume", ckpt, "--out", ckpt}, 2, "--out and --resume name the same file"},
		{[]string{"goal", "--schedule", schedule, "--timeline", at("t.json"), "--out", at("t.json")}, 2, "--timeline and --out name the same file"},
		{[]string{"barrier", "--topology", "crossbar:4", "--plot", at("p.svg"), "--out", at("p.svg")}, 2, "--plot and --out name the same file"},
		{[]string{"barrier", "--topology", "crossbar:4", "--cpuprofile", at("p.prof"), "--memprofile", at("p.prof")}, 2, "--memprofile and --cpuprofile name the same file"},
		{[]string{"barrier", "--topology", "crossbar:4", "--out", "/dev/full"}, 1, "--out /dev/full: no space left on device"},
		{[]string{"barrier", "--topology", "crossbar:4", "--json", "--cpuprofile", "/dev/full"}, 1, "--cpuprofile /dev/full: no space left on device"},
		{[]string{"goal", "gen", "dissemination", "--out", "/dev/full"}, 1, "--out /dev/full: no space left on device"},
		{[]string{"demo", "--trace", "/dev/full"}, 2, "--trace /dev/full: not a regular file"},
		{[]string{"goal", "gen", "nosuch"}, 2, `lhsim goal gen: unknown pattern "nosuch"`},
		{[]string{"help", "nosuch"}, 2, `lhsim: unknown command "nosuch"`},
		{[]string{"ib", "run", "--resume", schedule}, 2, "not an lhsim checkpoint"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		require.Equal(t, c.code, code, "lhsim %v: %s", c.args, stderr)
		require.Contains(t, firstLine(stderr), c.says, "lhsim %v", c.args)
		require.NotContains(t, stderr, "goal gen: goal gen:", "a doubled prefix")
		if c.args[0] != "help" && !strings.Contains(stderr, "usage:") {
			require.Equal(t, 1, strings.Count(stderr, "\n"), "lhsim %v: one line: %s", c.args, stderr)
		}
		now, err := os.ReadFile(schedule)
		require.NoError(t, err)
		require.Equal(t, src, now, "lhsim %v: the schedule was written", c.args)
		now, err = os.ReadFile(ckpt)
		require.NoError(t, err)
		require.Equal(t, saved, now, "lhsim %v: the checkpoint was written", c.args)
		for _, made := range []string{"t.json", "p.svg", "p.prof"} {
			require.NoFileExists(t, at(made), "lhsim %v", c.args)
		}
	}
}
