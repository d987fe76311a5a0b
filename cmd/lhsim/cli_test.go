package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment/rx"
)

// run runs lhsim in a process of its own and returns its exit status and output.
func run(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, strings.TrimSuffix(strings.TrimSpace(o.String()), "PASS"), e.String()
}

// Help is asked for in every way users try, and answers on stdout with status 0.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "demo"}, {"demo", "-h"}, {"run", "--help"}, {"search", "-h"}, {"area", "-h"}, {"barrier", "-h"}, {"traffic", "-h"}} {
		code, out, _ := run(t, nil, args...)
		require.Equal(t, 0, code, "lhsim %v", args)
		require.Contains(t, out, "usage: lhsim", "lhsim %v", args)
	}
}

// pathCase is a message about a path that cannot be used (cli.CheckPaths).
var pathCase = regexp.MustCompile(`^--(out|plot|trace|checkpoint): (open|plot file) `)

// A mistake on the command line exits 2 with one line naming it and the command's usage,
// before any work starts; a path that cannot be used, with one line.
func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		args []string
		env  []string
		says string
	}{
		{[]string{"nosuch"}, nil, `unknown command "nosuch"`},
		{[]string{"demo", "--nosuch"}, nil, "flag provided but not defined: -nosuch"},
		{[]string{"run", "foo"}, nil, `unexpected argument "foo"`},
		{[]string{"demo", "--model", "verilog"}, nil, `--model: unknown model "verilog"`},
		{[]string{"demo", "--bridge", "tcp"}, nil, `--bridge: unknown bridge "tcp"`},
		{[]string{"demo"}, []string{"LHSIM_BRIDGE=tcp"}, `LHSIM_BRIDGE="tcp"`},
		{[]string{"demo", "--entries", "100", "--model", "go"}, nil, "Entries must be a power of two"},
		{[]string{"demo", "--entries", "64"}, nil, "needs --model go"},
		{[]string{"demo", "--split-pos", "20"}, nil, "--split-pos 20: want 16, 32 or 48"},
		{[]string{"search", "--size-pos", "5"}, nil, "--size-pos 5: want 0, 4, 8 or 12"},
		{[]string{"run", "--bridge", "plugin"}, nil, "a run keeps its device in this process"},
		{[]string{"regress", "--jobs", "-3"}, nil, "--jobs -3: want 1 to 1024"},
		{[]string{"bench", "--repeats", "0"}, nil, "--repeats 0: want 1 to 1000"},
		{[]string{"demo", "--out", "/nonexistent/dir/x.json"}, nil, "--out: open /nonexistent/dir/x.json"},
		{[]string{"traffic", "--topology", "torus:0"}, nil, "torus:0"},
		{[]string{"barrier", "--topology", "ring:8"}, nil, "ring:8"},
		// Every flag is checked before any work starts, one line per mistake.
		{[]string{"search", "--max-depth", "-1"}, nil, "--max-depth -1: want 1 to"},
		{[]string{"search", "--max-depth", "0"}, nil, "--max-depth 0: want 1 to"},
		{[]string{"search", "--max-depth", "5000"}, nil, "the RTL build has 1024 (use --model go"},
		{[]string{"search", "--depths", "4,-2"}, nil, "--depths 4,-2: -2: want 0 to 1048576"},
		{[]string{"search", "--sodimm-latency", "-5"}, nil, "--sodimm-latency -5: want 0 to"},
		{[]string{"search", "--cpi", "0"}, nil, "--cpi 0: want 0.001 to 1000"},
		{[]string{"search", "--plot", "x.txt"}, nil, `--plot: plot file "x.txt": want .svg or .png`},
		{[]string{"search", "--plot", "/nonexistent/dir/x.svg"}, nil, "--plot: open /nonexistent/dir/x.svg"},
		{[]string{"run", "--max-len", "0"}, nil, "--max-len 0: want 16 to 65535"},
		{[]string{"run", "--max-len", "70000"}, nil, "--max-len 70000: want 16 to 65535"},
		{[]string{"run", "--messages", "0"}, nil, "--messages 0: want 1 to"},
		{[]string{"run", "--idle", "100"}, nil, "--idle 100: want 0 to 99"},
		{[]string{"run", "--idle", "-1"}, nil, "--idle -1: want 0 to 99"},
		{[]string{"run", "--resume", "x.ckpt", "--messages", "5", "--model", "go"}, nil, "--resume takes the run from the checkpoint; leave out --messages, --model"},
		{[]string{"run", "--resume", "/nonexistent/run.ckpt"}, nil, "--resume: stat /nonexistent/run.ckpt"},
		{[]string{"run", "--checkpoint", "/nonexistent/dir/run.ckpt", "--checkpoint-at", "100"}, nil, "--checkpoint: open /nonexistent/dir/run.ckpt: no such file or directory"},
		{[]string{"run", "--trace", "/etc/passwd/x.fst"}, nil, "--trace: open /etc/passwd/x.fst: not a directory"},
		{[]string{"run", "--model", "go", "--trace", "x.fst"}, nil, "--trace records the Verilated RTL; --model go has none"},
		{[]string{"demo", "--trace", "/nonexistent/dir/x.fst"}, nil, "--trace: open /nonexistent/dir/x.fst"},
		{[]string{"demo", "--model", "go", "--trace", "x.fst"}, nil, "--trace records the Verilated RTL; --model go has none"},
		// The --slurm flags, the same on every sweep command (docs/cluster.md).
		{[]string{"barrier", "--partition", "short"}, nil, "--partition: only with --slurm"},
		{[]string{"regress", "--per-task", "4", "--dry-run"}, nil, "--dry-run, --per-task: only with --slurm"},
		{[]string{"traffic", "--slurm", "--per-task", "0"}, nil, "--per-task 0: want 1 or more"},
		{[]string{"alltoall", "--slurm", "--sbatch-args", "--array=0-9"}, nil, "--array=0-9 is lhsim's to set"},
		{[]string{"area", "--slurm", "-cached"}, nil, "-cached runs no Yosys: nothing to hand to Slurm"},
		{[]string{"area", "-only", "("}, nil, "-only: error parsing regexp"},
		{[]string{"area", "-only", "nosuch"}, nil, "-only nosuch matches no job of the sweep on xc2vp,xc7"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.env, c.args...)
		require.Equal(t, 2, code, "lhsim %v: %s", c.args, stderr)
		require.Contains(t, stderr, c.says, "lhsim %v", c.args)
		if pathCase.MatchString(c.says) { // a path that cannot be used: one line (cli.CheckPaths)
			require.Equal(t, 1, strings.Count(stderr, "\n"), "lhsim %v: %s", c.args, stderr)
		} else if c.args[0] != "nosuch" {
			require.Contains(t, stderr, "usage: lhsim "+c.args[0], "lhsim %v", c.args)
		}
	}
}

// --json prints JSON on stdout on every command that reports a result, and --out writes the
// same JSON to a file beside the table.
func TestJSONAndOut(t *testing.T) {
	file := t.TempDir() + "/demo.json"
	code, table, _ := run(t, nil, "demo", "--model", "go", "--out", file)
	require.Equal(t, 0, code)
	require.Contains(t, table, "LH entry 0: whole")
	code, js, _ := run(t, nil, "demo", "--model", "go", "--json")
	require.Equal(t, 0, code)
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	require.JSONEq(t, js, string(saved))
	require.Contains(t, js, `"model": "go"`)
}

// --size-pos moves the size field the demo writes and the splitter reads: the same outcome.
func TestDemoSizePos(t *testing.T) {
	for _, pos := range []string{"0", "4", "8"} {
		code, out, stderr := run(t, nil, "demo", "--model", "go", "--size-pos", pos, "--split-pos", "32")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, out, "LH entry 3: 32-byte head; 25-byte tail in SO-DIMM", "--size-pos %s", pos)
		require.NotContains(t, out, "DIFFERS", "--size-pos %s", pos)
	}
}

// lhsim barrier prints the table, and JSON rows with the documented keys; bad lists exit 2.
func TestBarrierCommand(t *testing.T) {
	code, out, stderr := run(t, nil, "barrier", "--topology", "crossbar:8", "--node-latency", "1.0", "--processes", "2,4,8")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "crossbar:8, node latency 1.0 µs")
	code, js, stderr := run(t, nil, "barrier", "--topology", "crossbar:8", "--node-latency", "1.0", "--processes", "4", "--algorithm", "ring", "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, js, `"algorithm": "ring"`)
	require.Contains(t, js, `"model_us"`)
	for _, bad := range [][]string{{"--algorithm", "tree"}, {"--processes", "1"}, {"--node-latency", "-1"}, {"--plot", "b.txt"}} {
		code, _, stderr := run(t, nil, append([]string{"barrier"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}

// --trace writes a waveform that fst2vcd reads; when the plugin dies mid-run the waveform is
// still there, up to the last flush before the crash, and the report says so.
func TestDemoTrace(t *testing.T) {
	fst2vcd, err := exec.LookPath("fst2vcd")
	if err != nil {
		t.Skip("fst2vcd (Debian package gtkwave) is not installed: scripts/setup.sh installs it")
	}
	dir := t.TempDir()
	ok := filepath.Join(dir, "demo.fst")
	code, _, stderr := run(t, nil, "demo", "--trace", ok)
	require.Equal(t, 0, code, stderr)
	require.Greater(t, lastVCDTime(t, fst2vcd, ok), uint64(12910), "the demo's 1291 cycles")

	crashed := filepath.Join(dir, "c.fst")
	code, _, stderr = run(t, []string{"LHSIM_PLUGIN_FAULT=fatal@900"}, "demo", "--bridge", "plugin", "--trace", crashed)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "died at cycle 900")
	require.Contains(t, stderr, "waveform "+crashed+": finished after the crash, up to 7675 ns")
	require.Equal(t, uint64(7675), lastVCDTime(t, fst2vcd, crashed))
}

// lastVCDTime is the last time with values in the FST file at path, as fst2vcd reads it.
func lastVCDTime(t *testing.T, fst2vcd, path string) uint64 {
	t.Helper()
	out, err := exec.Command(fst2vcd, path).CombinedOutput()
	require.NoError(t, err, "fst2vcd %s: %s", path, out[:min(len(out), 500)])
	vcd := strings.TrimSpace(string(out))
	last := vcd[strings.LastIndex(vcd, "\n#")+2:]
	if i := strings.IndexByte(last, '\n'); i >= 0 {
		last = last[:i]
	}
	v, err := strconv.ParseUint(last, 10, 64)
	require.NoError(t, err)
	return v
}

// lhsim regress with a -run that selects no test stops before the seeds, with exit 2: a
// regression that ran nothing is not "2 passed".
func TestRegressRunsNothingIsAMistake(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Dir = "../.." // the repository root: the test binary goes to build/regress/
	cmd.Env = append(os.Environ(), "LHSIM_ARGS="+strings.Join([]string{"regress", "--seeds", "2", "--run", "NoSuchTest", "--pkg", "./regress/testdata/seeded"}, "\x1f"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	require.Equal(t, 2, ee.ExitCode(), "%s", out)
	require.Contains(t, string(out), "lhsim regress: --run NoSuchTest matches no test in ./regress/testdata/seeded")
	require.NotContains(t, string(out), "passed")
}

// lhsim goal runs a schedule file on either network; a missing or malformed one is a clear
// error (exit 2, the line and column), one that leaves operations unmatched fails (exit 1).
func TestGoalCommand(t *testing.T) {
	code, out, stderr := run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "3 ranks, 5 operations, network packet (crossbar:4, node latency 1.000 µs, S=65535 B): last rank done at")
	code, out, stderr = run(t, nil, "goal", "--network", "loggp", "--L", "1000", "--o", "100", "--g", "50", "--G", "0.5", "--schedule", "../../netsim/goal/testdata/pingpong.goal")
	require.Equal(t, 0, code, stderr)
	// 1 KiB there and back: 2 x (2o + L + 1023 G) = 2 x 1711.5 ns; rank 2's calc is 2 µs.
	require.Contains(t, out, "network loggp (L=1000 o=100 g=50 G=0.5 O=0 ns, S=65535 B): last rank done at 3.423 µs")
	code, _, stderr = run(t, nil, "goal")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--schedule FILE is required")
	code, _, stderr = run(t, nil, "goal", "--network", "loggp", "--G", "-1", "--schedule", "x")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "want ns from 0 to 1e12")
	dir := t.TempDir()
	bad := dir + "/bad.goal"
	require.NoError(t, os.WriteFile(bad, []byte("num_ranks 2\nrank 0 {\nl1: put 8b to 1 tag 0\n}\n"), 0o644))
	code, _, stderr = run(t, nil, "goal", "--schedule", bad)
	require.Equal(t, 2, code, "a schedule file that does not parse is an input mistake")
	require.Equal(t, "lhsim goal: "+bad+`:3:5: expected "send", "recv" or "calc", found "put"`, strings.TrimSpace(stderr))
	cycle := dir + "/cycle.goal"
	require.NoError(t, os.WriteFile(cycle, []byte("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}\n"), 0o644))
	code, _, stderr = run(t, nil, "goal", "--schedule", cycle)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "rank 0: a dependency cycle: a (line 3) waits for b (line 4) waits for a (line 3)")
	lone := dir + "/lone.goal"
	require.NoError(t, os.WriteFile(lone, []byte("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 4\n}\n"), 0o644))
	for _, nw := range []string{"loggp", "packet"} {
		code, _, stderr = run(t, nil, "goal", "--network", nw, "--schedule", lone)
		require.Equal(t, 1, code, nw)
		require.Contains(t, stderr, "rank 1: a message from 0 tag 4 (its send on line 3) was never received", nw)
	}
	big := dir + "/big.goal"
	require.NoError(t, os.WriteFile(big, []byte("num_ranks 2000000000\n"), 0o644))
	code, _, stderr = run(t, nil, "goal", "--schedule", big, "--max-memory", "100")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "schedule too large for memory: 2000000000 ranks take")
	long := dir + "/long.goal"
	require.NoError(t, os.WriteFile(long, []byte("num_ranks 1\nrank 0 {\ncalc 4000000000000000000\ncalc 4000000000000000000\n}\n"), 0o644))
	code, _, stderr = run(t, nil, "goal", "--network", "loggp", "--schedule", long)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "of simulated time, over the")
	// gen: a pattern, written where --out says; bad ones exit 2.
	f := dir + "/d.goal"
	code, _, stderr = run(t, nil, "goal", "gen", "dissemination", "--ranks", "4", "--size", "16", "--out", f)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "num_ranks 4\n\nrank 0 {\nl1: send 16b to 1 tag 0\nl2: recv 16b from 3 tag 0\n"), string(b))
	code, _, stderr = run(t, nil, "goal", "gen", "ring", "--ranks", "4")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown pattern "ring"`)
	code, _, _ = run(t, nil, "goal", "gen", "dissemination", "--ranks", "1")
	require.Equal(t, 2, code)
}

// lhsim incast: JSON with LHS on and off and the speed of each kind of receive path; a plot;
// bad flags exit 2.
func TestIncastCommand(t *testing.T) {
	plotFile := filepath.Join(t.TempDir(), "incast.svg")
	code, js, stderr := run(t, nil, "incast", "--topology", "crossbar:4", "--messages", "10", "--post-at", "5", "--json", "--plot", plotFile)
	require.Equal(t, 0, code, stderr)
	for _, k := range []string{`"host": "mpi"`, `"lhs_on"`, `"lhs_off"`, `"mean_receive_us"`, `"max_queue_depth"`, `"stall_cycles"`, `"events_per_s"`,
		`"nic": "rtl-plugin"`, `"nic": "go"`} {
		require.Contains(t, js, k)
	}
	require.NotContains(t, js, `"nic": "tlm"`, "a TLM receiver has no host bus for the MPI host")
	require.NotContains(t, js, `"same_as_lhs_on": false`)
	svg, err := os.ReadFile(plotFile)
	require.NoError(t, err)
	require.Contains(t, string(svg), "receives completed")
	code, js, stderr = run(t, nil, "incast", "--topology", "crossbar:4", "--messages", "10", "--post-at", "5", "--json", "--host", "costs")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, js, `"host": "costs"`)
	require.Contains(t, js, `"nic": "tlm"`)
	require.NotContains(t, js, `"same_as_lhs_on": false`)
	for _, bad := range [][]string{{"--receivers", "4", "--topology", "crossbar:4"}, {"--rtl-nodes", "3"}, {"--messages", "0"},
		{"--bridge", "pcie"}, {"--model", "rtl"}, {"--plot", "incast.pdf"}, {"--bridge", "plugin", "--trace", "0"},
		{"--host", "os"}, {"--model", "tlm", "--rtl-nodes", ""}} {
		code, _, stderr := run(t, nil, append([]string{"incast"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}

// JUNIT=path make test pipes `go test -json` into `lhsim junit`: the same pipeline, on
// stand-in packages, writes the report, prints its totals and fails when a test failed.
func TestJUnitPipeline(t *testing.T) {
	for _, c := range []struct {
		pkgs, env, says string
		ok              bool
	}{
		{"./regress/testdata/seeded -run TestRandom", "SEED=1", "2 tests, 0 failed, 0 skipped", true},
		{"./regress/testdata/junitcases/...", "", "8 tests, 5 failed, 1 skipped", false},
	} {
		out := filepath.Join(t.TempDir(), "junit.xml")
		cmd := exec.Command("bash", "-c", "set -o pipefail; go test -count=1 -json "+c.pkgs+` | "$LHSIM" -test.run='^TestLhsimProcess$' -test.count=1`)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "LHSIM="+os.Args[0], "LHSIM_ARGS=junit\x1f--out\x1f"+out, c.env)
		got, err := cmd.CombinedOutput()
		require.Equal(t, c.ok, err == nil, "%s: %v\n%s", c.pkgs, err, got)
		require.Contains(t, string(got), "JUnit report "+out+": "+c.says, c.pkgs)
		x, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Contains(t, string(x), "<testsuites ")
	}
}

// On a terminal the long commands draw a progress bar on stderr; with --json, or when stderr
// is not a terminal, they draw none.
func TestProgressOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) runs a command on a terminal; it is not installed")
	}
	onTerminal := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("script", "-qec", `stty cols 160 rows 40; exec "$LHSIM" -test.run='^TestLhsimProcess$' -test.count=1`, "/dev/null")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LHSIM="+os.Args[0], "LHSIM_ARGS="+strings.Join(args, "\x1f"))
		out, _ := cmd.CombinedOutput() // regress fails: a seed of the stand-in suite fails
		return strings.ReplaceAll(string(out), "\r", "\n")
	}
	out := onTerminal(".", "run", "--messages", "3000", "--model", "go")
	require.Regexp(t, `run 3000/3000 messages \[=+\].* \(cycle \d+\)`, out)
	require.Contains(t, out, "every message checked byte for byte")
	require.NotContains(t, onTerminal(".", "run", "--messages", "3000", "--model", "go", "--json"), "/3000 messages")

	steps := rx.SearchSteps(len(rx.LogDepths(16)))
	require.Contains(t, onTerminal(".", "search", "--model", "go", "--max-depth", "16"), fmt.Sprintf("search %d/%d steps", steps, steps))

	out = onTerminal("../..", "regress", "--pkg", "./regress/testdata/seeded", "--seeds", "4")
	require.Contains(t, out, "regress 4/4 seeds")
	require.Contains(t, out, "seed 3 FAILED: TestRandom/3")

	// Not a terminal: nothing but the result.
	code, _, stderr := run(t, nil, "run", "--messages", "500", "--model", "go")
	require.Equal(t, 0, code)
	require.Empty(t, stderr)
}

// lhsim incast --trace: a waveform of a golden-model receiver is a usage mistake.
func TestIncastTraceFlags(t *testing.T) {
	code, _, stderr := run(t, nil, "incast", "--topology", "crossbar:4", "--rtl-nodes", "", "--trace", "0")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "runs --model go, which has no waveform")
	code, _, stderr = run(t, nil, "incast", "--topology", "crossbar:4", "--trace", "2")
	require.Equal(t, 2, code, stderr)
}

// lhsim alltoall prints the table and JSON with the documented keys; a torus the algorithm
// cannot do, sizes of 0 and unknown schemes exit 2.
func TestAlltoallCommand(t *testing.T) {
	code, js, stderr := run(t, nil, "alltoall", "--torus", "4x4", "--sizes", "8", "--json")
	require.Equal(t, 0, code, stderr)
	for _, k := range []string{`"scheme": "proposed"`, `"scheme": "sync_per_step"`, `"bytes_per_pair": 8`, `"uneven": false`, `"total_us"`,
		`"wall_s"`, `"events_per_s"`, `"sync_rule": "stamped"`, `"saving_us"`, `"sources"`} {
		require.Contains(t, js, k)
	}
	for _, bad := range [][]string{{"--torus", "6x4"}, {"--torus", "4x4", "--sizes", "0"}, {"--torus", "4x4", "--schemes", "fast"},
		{"--torus", "4x4", "--algorithm", "bruck"}, {"--node-latency", "-1"}, {"--plot", "a.txt"}, {"--torus", "4x4", "--heavy"},
		{"--torus", "4x4", "--sync-rule", "fast"}} {
		code, _, stderr := run(t, nil, append([]string{"alltoall"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}
