package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/slurm/slurmtest"
)

// The tests of --slurm run the real lhsim binary (the array tasks run a copy of the binary
// that submitted them, and this test binary is not lhsim) from the repository root, as a user
// would, against the real Slurm that `make test-slurm` starts (scripts/slurm-local.sh).

var (
	buildOnce sync.Once
	buildErr  error
)

// lhsimBinary builds lhsim into build/test/ once per test run.
func lhsimBinary(t *testing.T) string {
	t.Helper()
	bin, _ := filepath.Abs("../../build/test/lhsim")
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/lhsim: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return bin
}

// lhsimRun is one lhsim process, run from the repository root.
type lhsimRun struct {
	code           int
	stdout, stderr string
}

func startLhsim(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(lhsimBinary(t), args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Start())
	return cmd, &o, &e
}

func waitLhsim(t *testing.T, cmd *exec.Cmd, o, e *bytes.Buffer) lhsimRun {
	t.Helper()
	err := cmd.Wait()
	r := lhsimRun{stdout: o.String(), stderr: e.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

func lhsimAt(t *testing.T, env []string, args ...string) lhsimRun {
	t.Helper()
	cmd, o, e := startLhsim(t, env, args...)
	return waitLhsim(t, cmd, o, e)
}

// sameAsLocal is what may differ between two runs of the same seeds, even two local ones:
// wall-clock figures (the summary line's, which also says where the seeds ran; go test's
// durations; the JUnit times; the JSON's seconds) and a Go panic's goroutine numbers and
// addresses. Everything else — seeds, verdicts, failed tests, replay commands, test output —
// must be the same byte for byte.
func sameAsLocal(s string) string {
	for _, r := range []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`in [0-9.]+ s on [^\n"]+`), "in N s on WHERE"},
		{regexp.MustCompile(`[0-9]+\.[0-9]+s\b`), "Ns"},
		{regexp.MustCompile(`(time|timestamp)="[^"]*"`), `$1=""`},
		{regexp.MustCompile(`"(elapsed_s|duration_s)": [0-9.e+-]+`), `"$1": 0`},
		{regexp.MustCompile(`"where": "[^"]*"`), `"where": ""`},
		{regexp.MustCompile(`goroutine [0-9]+`), "goroutine N"},
		{regexp.MustCompile(`0x[0-9a-f]+`), "0xADDR"},
	} {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// regressOutputs runs lhsim regress with --junit and --out into dir and returns stdout, the
// JSON and the JUnit XML.
func regressOutputs(t *testing.T, env []string, dir, name string, args ...string) (lhsimRun, string, string) {
	t.Helper()
	js, xml := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".xml")
	r := lhsimAt(t, env, append([]string{"regress", "--junit", xml, "--out", js}, args...)...)
	j, err := os.ReadFile(js)
	require.NoError(t, err, r.stderr)
	x, err := os.ReadFile(xml)
	require.NoError(t, err, r.stderr)
	return r, string(j), string(x)
}

var standIn = []string{"--pkg", "./regress/testdata/seeded"}

// lhsim regress --slurm gives what the local run of the same seeds gives: the summary table,
// the JSON, the JUnit XML and the replay commands of the failed seeds; run again, it finds
// every result in its work directory and submits nothing.
func TestSlurmRegressMatchesLocal(t *testing.T) {
	slurmtest.Require(t)
	dir := t.TempDir()
	args := append([]string{"--seeds", "10"}, standIn...)
	local, lj, lx := regressOutputs(t, nil, dir, "local", args...)
	require.Equal(t, 1, local.code, "4 seeds fail: %s", local.stderr)
	require.Contains(t, local.stdout, "SEED=7 WAVES=1 go test ./regress/testdata/seeded -run '^TestRandom$/^7$' -v")

	slurmArgs := append([]string{"--slurm", "--per-task", "3", "--slurm-dir", filepath.Join(dir, "slurm")}, args...)
	s, sj, sx := regressOutputs(t, nil, dir, "slurm", slurmArgs...)
	require.Equal(t, 1, s.code, s.stderr)
	require.Regexp(t, `in [0-9.]+ s on Slurm job \d+ \(4 array tasks\)`, s.stdout)
	require.Regexp(t, `slurm: submitted job \d+: 4 array tasks of up to 3 seeds`, s.stderr)
	require.Contains(t, s.stderr, "lhsim regress: 4 of 10 seeds failed")
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(s.stdout))
	require.Equal(t, sameAsLocal(lj), sameAsLocal(sj))
	require.Equal(t, sameAsLocal(lx), sameAsLocal(sx))

	again, aj, ax := regressOutputs(t, nil, dir, "again", slurmArgs...)
	require.Equal(t, 1, again.code)
	require.Contains(t, again.stderr, "10 of 10 seeds already done")
	require.NotContains(t, again.stderr, "submitted job")
	require.Contains(t, again.stdout, "on Slurm (results already in ")
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(again.stdout))
	require.Equal(t, sameAsLocal(lj), sameAsLocal(aj))
	require.Equal(t, sameAsLocal(lx), sameAsLocal(ax))
}

// The real regression through Slurm: seeds of the randomized suite on the Verilated RTL pass
// as they do here; with the RTL stopping in $fatal (the plugin bridge's fault hook) every
// seed fails with the $fatal in its report, the same seeds and replay commands as here.
func TestSlurmRegressRTL(t *testing.T) {
	slurmtest.Require(t)
	dir := t.TempDir()
	args := []string{"--seeds", "3", "--run", "TestScoreboardRandom"}
	slurmArgs := append([]string{"--slurm", "--slurm-dir", filepath.Join(dir, "slurm")}, args...)
	local, lj, lx := regressOutputs(t, nil, dir, "local", args...)
	require.Equal(t, 0, local.code, local.stderr)
	s, sj, sx := regressOutputs(t, nil, dir, "slurm", slurmArgs...)
	require.Equal(t, 0, s.code, s.stderr)
	require.Contains(t, s.stdout, "3 seeds, 3 passed, 0 failed")
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(s.stdout))
	require.Equal(t, sameAsLocal(lj), sameAsLocal(sj))
	require.Equal(t, sameAsLocal(lx), sameAsLocal(sx))

	// The crash report holds process ids and a Go stack dump of the plugin process, which
	// differ from run to run: compared are the tables, the JSON without the test output, the
	// JUnit XML up to each failure's replay command; each seed's output must carry the $fatal.
	fatal := []string{"LHSIM_PLUGIN_FAULT=fatal@5000"}
	args = append(args, "--bridge", "plugin")
	slurmArgs = append(slurmArgs, "--bridge", "plugin")
	local, lj, lx = regressOutputs(t, fatal, dir, "local-fatal", args...)
	require.Equal(t, 1, local.code, local.stderr)
	s, sj, sx = regressOutputs(t, fatal, dir, "slurm-fatal", slurmArgs...)
	require.Equal(t, 1, s.code, s.stderr)
	m, err := filepath.Glob(filepath.Join(dir, "slurm", "regress-*", "bin", "lhsim-plugin"))
	require.NoError(t, err)
	require.Len(t, m, 1, "the plugin binary is copied beside the test binary, built once for every task")
	require.Contains(t, s.stdout, "3 seeds, 0 passed, 3 failed")
	require.Contains(t, s.stdout, "SEED=2 LHSIM_BRIDGE=plugin WAVES=1 go test ./testbench -run '^TestScoreboardRandom$/^2$' -v")
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(s.stdout))
	withoutOutput := func(js string) string {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(js), &v))
		for _, r := range v["results"].([]any) {
			out := r.(map[string]any)["output"].(string)
			require.Contains(t, out, "Verilog $stop (LHSIM_PLUGIN_FAULT=fatal@5000: injected assertion failure at cycle 5000)")
			delete(r.(map[string]any), "output")
		}
		b, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		return sameAsLocal(string(b))
	}
	require.Equal(t, withoutOutput(lj), withoutOutput(sj))
	upToReplay := regexp.MustCompile(`(replay: [^\n]*\n)[\s\S]*?(\]\]></failure>)`)
	require.Equal(t, sameAsLocal(upToReplay.ReplaceAllString(lx, "$1$2")), sameAsLocal(upToReplay.ReplaceAllString(sx, "$1$2")))
}

// taskPIDs are the lhsim processes of the array tasks that have started, from their logs.
func taskPIDs(t *testing.T, slurmDir string) []int {
	logs, err := filepath.Glob(filepath.Join(slurmDir, "*", "submit-*", "logs", "task-*.out"))
	require.NoError(t, err)
	var pids []int
	re := regexp.MustCompile(`\(pid (\d+)\)`)
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if m := re.FindSubmatch(b); m != nil {
			n, _ := strconv.Atoi(string(m[1]))
			pids = append(pids, n)
		}
	}
	return pids
}

// waitFor polls cond every 100 ms for up to limit, failing the test with what it waited for.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waited %s for %s", limit, what)
		time.Sleep(100 * time.Millisecond)
	}
}

// A node that dies mid-task (its lhsim killed): the seeds it had not finished are submitted
// once more and the merged report is still the local one.
func TestSlurmRegressTaskKilled(t *testing.T) {
	slurmtest.Require(t)
	dir := t.TempDir()
	env := []string{"SEEDED_SLEEP=1s"}
	args := append([]string{"--seeds", "6"}, standIn...)
	local, lj, lx := regressOutputs(t, env, dir, "local", args...)
	require.Equal(t, 1, local.code)

	slurmDir := filepath.Join(dir, "slurm")
	js, xml := filepath.Join(dir, "s.json"), filepath.Join(dir, "s.xml")
	cmd, o, e := startLhsim(t, env, append([]string{"regress", "--junit", xml, "--out", js, "--slurm", "--per-task", "3", "--slurm-dir", slurmDir}, args...)...)
	waitFor(t, 2*time.Minute, "an array task to start", func() bool { return len(taskPIDs(t, slurmDir)) > 0 })
	require.NoError(t, syscall.Kill(taskPIDs(t, slurmDir)[0], syscall.SIGKILL))
	s := waitLhsim(t, cmd, o, e)
	require.Equal(t, 1, s.code, s.stderr)
	require.Regexp(t, `job \d+ ended with [1-3] seeds without a result \(seeds [^)]+\): submitting them once more`, s.stderr)
	require.Regexp(t, `Slurm jobs \d+, \d+ \(3 array tasks\)`, s.stdout)
	sj, err := os.ReadFile(js)
	require.NoError(t, err)
	sx, err := os.ReadFile(xml)
	require.NoError(t, err)
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(s.stdout))
	require.Equal(t, sameAsLocal(lj), sameAsLocal(string(sj)))
	require.Equal(t, sameAsLocal(lx), sameAsLocal(string(sx)))
}

// A seed whose task dies every time is reported by seed after the second submission, with
// each task's state and log; nothing is printed as merged, and the exit status is 1.
func TestSlurmRegressSeedKillsItsTaskTwice(t *testing.T) {
	slurmtest.Require(t)
	dir := t.TempDir()
	r := lhsimAt(t, []string{"SEEDED_KILL_PARENT=5"}, append([]string{"regress", "--seeds", "6", "--slurm", "--slurm-dir", dir}, standIn...)...)
	require.Equal(t, 1, r.code, r.stderr)
	require.Empty(t, r.stdout, "nothing merged")
	// One line, as every failure (docs/bad-input.md): the seeds, each with its tasks' states
	// and logs, then where the other results are kept.
	require.Regexp(t, `(?m)^lhsim regress: 1 of 6 seeds have no result after two submissions, so nothing was merged: seeds 5; `+
		`5: task 4 of job \d+ FAILED \(killed by signal 9\), log \S+/submit-1/logs/task-4.out; then task 0 of job \d+ FAILED \(killed by signal 9\), log \S+/submit-2/logs/task-0.out; `+
		`the other 5 results are kept in \S+: the same command submits only the missing ones$`, r.stderr)
}

// Interrupted (Ctrl-C), the command cancels its job and keeps what is done; the same command
// then submits only the rest, and the report is the local one.
func TestSlurmRegressInterrupted(t *testing.T) {
	slurmtest.Require(t)
	dir := t.TempDir()
	env := []string{"SEEDED_SLEEP=1s"}
	args := append([]string{"--seeds", "6"}, standIn...)
	local, lj, lx := regressOutputs(t, env, dir, "local", args...)
	slurmDir := filepath.Join(dir, "slurm")
	slurmArgs := append([]string{"--slurm", "--slurm-dir", slurmDir}, args...)
	cmd, o, e := startLhsim(t, env, append([]string{"regress"}, slurmArgs...)...)
	results := func() int {
		m, _ := filepath.Glob(filepath.Join(slurmDir, "*", "results", "*.json"))
		return len(m)
	}
	waitFor(t, 2*time.Minute, "two seeds done", func() bool { return results() >= 2 })
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	s := waitLhsim(t, cmd, o, e)
	require.Equal(t, 1, s.code)
	require.Regexp(t, `interrupted: cancelled Slurm job \d+; [2-5] of 6 seeds are done and kept in \S+: the same command submits only the other [1-4]`, s.stderr)
	done := results()

	again, aj, ax := regressOutputs(t, env, dir, "again", slurmArgs...)
	require.Equal(t, 1, again.code, again.stderr)
	require.Contains(t, again.stderr, fmt.Sprintf("%d of 6 seeds already done", done))
	// A task of the cancelled job may still finish its seed while the command waits for
	// that job to leave the queue: then that seed is reused too. Every seed runs once.
	m := regexp.MustCompile(`submitted job \d+: (\d+) array tasks`).FindStringSubmatch(again.stderr)
	require.NotNil(t, m, again.stderr)
	tasks, _ := strconv.Atoi(m[1])
	require.LessOrEqual(t, tasks, 6-done, again.stderr)
	require.Contains(t, again.stderr, fmt.Sprintf("(%d array tasks); %d results reused", tasks, 6-tasks))
	require.Equal(t, sameAsLocal(local.stdout), sameAsLocal(again.stdout))
	require.Equal(t, sameAsLocal(lj), sameAsLocal(aj))
	require.Equal(t, sameAsLocal(lx), sameAsLocal(ax))
}

// No Slurm client on PATH: one line naming the seeds, nothing submitted, exit status 1.
func TestSlurmWithoutSbatch(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	r := lhsimAt(t, []string{"PATH=" + filepath.Dir(goBin)}, append([]string{"regress", "--seeds", "3", "--slurm", "--slurm-dir", t.TempDir()}, standIn...)...)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "lhsim regress: no Slurm client here: sbatch is not on PATH (scripts/slurm-local.sh start runs a one-node Slurm on this machine; docs/cluster.md); nothing submitted for seeds 1-3\n")
	require.Empty(t, r.stdout)
}

// sbatch refusing the job (no such partition): its words, the units named, exit status 1.
func TestSlurmSbatchRefuses(t *testing.T) {
	slurmtest.Require(t)
	r := lhsimAt(t, nil, "barrier", "--topology", "crossbar:8", "--node-latency", "0,1", "--slurm", "--partition", "nosuch", "--slurm-dir", t.TempDir())
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "sbatch refused the job array for configurations crossbar:8 node-latency 0us, crossbar:8 node-latency 1us; nothing of it was submitted")
	require.Contains(t, r.stderr, "invalid partition")
}

// --dry-run prints the job script on stdout and submits nothing (it needs no Slurm).
func TestSlurmDryRun(t *testing.T) {
	dir := t.TempDir()
	r := lhsimAt(t, []string{"PATH=/nonexistent"}, "traffic", "--topology", "crossbar:8", "--load", "0.1,0.2,0.3",
		"--slurm", "--dry-run", "--per-task", "2", "--partition", "short", "--time-limit", "5:00", "--sbatch-args", "--mem=1G", "--slurm-dir", dir)
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "#!/bin/bash\n# lhsim traffic as a Slurm job array"), r.stdout)
	for _, want := range []string{"#SBATCH --array=0-1\n", "#SBATCH --partition=short\n", "#SBATCH --time=5:00\n", "#SBATCH --mem=1G\n",
		"/bin/lhsim traffic -load=0.1,0.2,0.3 -topology=crossbar:8 -slurm-task="} {
		require.Contains(t, r.stdout, want)
	}
	require.Contains(t, r.stderr, "would submit 2 array tasks for configurations load 0.1, load 0.2, load 0.3; nothing submitted")
	m, err := filepath.Glob(filepath.Join(dir, "traffic-*", "submit-1", "job.sh"))
	require.NoError(t, err)
	require.Len(t, m, 1)
	script, err := os.ReadFile(m[0])
	require.NoError(t, err)
	require.Equal(t, r.stdout, string(script), "what it printed is what sbatch would get")
}

// machineLine is a line of a network sweep's table that measures this machine.
var machineLine = regexp.MustCompile(`s wall|per wall second|^speed:`)

func withoutMachineLines(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !machineLine.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// withoutMachineFields drops the JSON fields that measure this machine (wall and CPU times,
// rates made from them), everywhere in the document.
func withoutMachineFields(t *testing.T, js string) any {
	var v any
	require.NoError(t, json.Unmarshal([]byte(js), &v))
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "wall_seconds", "wall_s", "events_per_s", "flit_hops_per_s", "cpu_seconds", "sim_ns_per_wall_s":
					delete(x, k)
				default:
					walk(c)
				}
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return v
}

// Every sweep through Slurm, one configuration per task or several: the same tables and JSON
// as here, but for what measures the machine (wall and CPU times and their rates).
func TestSlurmSweepsMatchLocal(t *testing.T) {
	slurmtest.Require(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"barrier", []string{"barrier", "--topology", "crossbar:16,fattree:2x3", "--node-latency", "0,1.0"}},
		{"alltoall", []string{"alltoall", "--torus", "4x4x4", "--sizes", "8,64", "--uneven"}},
		{"traffic", []string{"traffic", "--topology", "torus:4x4x4", "--load", "0.1,0.5,0.9,1.0,1.2", "--warmup", "500", "--measure", "1000", "--drain", "2000"}},
		{"incast", []string{"incast", "--messages", "4"}},
		{"mbcf", []string{"mbcf"}},
		{"ib rtt", []string{"ib", "rtt"}},
		{"ib bandwidth", []string{"ib", "bandwidth", "--rdma-max", "16384"}},
		{"ib buffers", []string{"ib", "buffers"}},
		{"ib cpr", []string{"ib", "cpr"}},
		{"search", []string{"search", "--model", "go", "--depths", "0,1,4,16"}},
		{"matchers", []string{"matchers", "--ranks", "16", "--workloads", "fig6,incast", "--matchers", "list,alpu:64,lhs,hash:16:64", "--rtl-nodes", "0,1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			local := lhsimAt(t, nil, append(c.args, "--out", filepath.Join(dir, "local.json"))...)
			require.Equal(t, 0, local.code, local.stderr)
			s := lhsimAt(t, nil, append(c.args, "--out", filepath.Join(dir, "slurm.json"), "--slurm", "--per-task", "2", "--slurm-dir", dir)...)
			require.Equal(t, 0, s.code, s.stderr)
			require.Regexp(t, `slurm: Slurm job \d+ \(\d+ array tasks\); 0 results reused; prepare [0-9.]+ s, submit [0-9.]+ s, run [0-9.]+ s, collect [0-9.]+ s, merge [0-9.]+ s`, s.stderr)
			require.Equal(t, withoutMachineFigures(withoutMachineLines(local.stdout)), withoutMachineFigures(withoutMachineLines(s.stdout)))
			lj, err := os.ReadFile(filepath.Join(dir, "local.json"))
			require.NoError(t, err)
			sj, err := os.ReadFile(filepath.Join(dir, "slurm.json"))
			require.NoError(t, err)
			require.Equal(t, withoutMachineFields(t, string(lj)), withoutMachineFields(t, string(sj)))
		})
	}
}

// lhsim area --slurm: each synthesis job an array task; the same Table 1 and JSON as here.
func TestSlurmAreaMatchesLocal(t *testing.T) {
	slurmtest.Require(t)
	requireYosysHere(t)
	args := []string{"area", "-families", "xc2vp", "-only", `lhs_vector_engine|lhs_rx_ENTRIES64$`}
	dir := t.TempDir()
	local := lhsimAt(t, nil, args...)
	require.Equal(t, 0, local.code, local.stderr)
	s := lhsimAt(t, nil, append(args, "--slurm", "--slurm-dir", dir)...)
	require.Equal(t, 0, s.code, s.stderr)
	require.Regexp(t, `submitted job \d+: 2 array tasks of up to 1 synthesis jobs`, s.stderr)
	runs := regexp.MustCompile(`\(2 runs, [0-9]+ s\)`)
	require.Contains(t, local.stdout, "LHS ours")
	require.Equal(t, runs.ReplaceAllString(local.stdout, "(2 runs)"), runs.ReplaceAllString(s.stdout, "(2 runs)"))
	lj := lhsimAt(t, nil, append(args, "-json")...)
	sj := lhsimAt(t, nil, append(args, "-json", "--slurm", "--slurm-dir", dir)...)
	require.Equal(t, 0, sj.code, sj.stderr)
	require.Contains(t, sj.stderr, "2 of 2 synthesis jobs already done")
	require.JSONEq(t, lj.stdout, sj.stdout)
}

func requireYosysHere(t *testing.T) {
	if _, err := exec.LookPath("yosys"); err != nil {
		t.Fatal("no yosys on PATH: make test installs it (scripts/setup.sh)")
	}
}

// slurmReadme normalizes what changes from run to run in a --slurm example: job numbers,
// times, the work directory.
func slurmReadme(s string) string {
	for _, r := range []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`jobs? [0-9]+(, [0-9]+)*`), "job N"},
		{regexp.MustCompile(`[0-9]+\.[0-9] s\b`), "T s"},
		{regexp.MustCompile(`\S*/regress-[0-9a-f]{12}`), "DIR"},
	} {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// The README's --slurm example, run through the local Slurm: its lines on stderr (the work
// directory, the submission, the closing timing line) and on stdout (the summary) are the
// README's, but for job numbers, times and paths; the progress lines are left out.
func TestSlurmREADMEExample(t *testing.T) {
	slurmtest.Require(t)
	want := readmeOutput(t, "lhsim regress --seeds 20 --slurm --per-task 5")
	r := lhsimAt(t, nil, "regress", "--seeds", "20", "--slurm", "--per-task", "5", "--slurm-dir", t.TempDir())
	require.Equal(t, 0, r.code, r.stderr)
	var wantErr, wantOut []string
	for _, l := range want {
		switch {
		case strings.HasPrefix(l, "["), l == "...":
		case strings.HasPrefix(l, "slurm:"), strings.HasPrefix(l, "building "):
			wantErr = append(wantErr, slurmReadme(l))
		default:
			wantOut = append(wantOut, slurmReadme(l))
		}
	}
	inOrder(t, wantErr, slurmReadme(r.stderr))
	inOrder(t, wantOut, slurmReadme(r.stdout))
}

// Every test docs/cluster.md names exists.
func TestClusterDocTestsExist(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cluster.md")
	require.NoError(t, err)
	names := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	require.Greater(t, len(names), 15)
	defined := map[string]bool{}
	funcs := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	for _, dir := range []string{".", "../../slurm", "../../slurm/slurmtest", "../../experiment", "../../experiment/net"} {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range funcs.FindAllSubmatch(b, -1) {
				defined[string(m[1])] = true
			}
		}
	}
	for _, n := range names {
		require.True(t, defined[n[1]], "docs/cluster.md names %s, which no test defines", n[1])
	}
}
