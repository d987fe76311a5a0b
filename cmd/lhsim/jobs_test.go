package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// machineFields are what measures this machine in a sweep's output, the only lines --jobs
// may change: wall and CPU times and the rates made from them (JSON keys and table lines).
var machineFields = regexp.MustCompile(`(?m)("(wall_seconds|wall_s|events_per_s|flit_hops_per_s|cpu_seconds|sim_ns_per_wall_s)": )[^,\n]*|^speed: .*$|, [0-9.]+ s wall.*$` +
	// lhsim incast's: the rates of its runs, and the speed table's last three columns.
	`|^(│ (events|simulated ns) per wall second +│).*$|^(│ (rtl|rtl-plugin|go|tlm) +│[^│]*│[^│]*│[^│]*│).*$`)

var tableRule, tablePadding = regexp.MustCompile(`─+`), regexp.MustCompile(` +│`)

// withoutMachineFigures is an output with the figures that measure this machine masked. A
// table's columns are as wide as their widest cell, which may be the machine's (incast's
// rates): the rules and the padding are left out too.
func withoutMachineFigures(s string) string {
	s = machineFields.ReplaceAllString(s, "${1}${3}${5}MACHINE")
	return tablePadding.ReplaceAllString(tableRule.ReplaceAllString(s, "─"), " │")
}

// Every sweep prints the same with its parts run at once (--jobs 3: more than the parts'
// share of cores, and parts finishing out of order) as run one after another (--jobs 1),
// byte for byte but for the machine's own figures, as a table and as JSON.
func TestJobsSameOutput(t *testing.T) {
	for _, args := range [][]string{
		{"barrier", "--topology", "crossbar:16,fattree:4x2", "--node-latency", "0,1.0,1.2"},
		{"alltoall", "--torus", "4x4x4", "--sizes", "8,128"},
		{"traffic", "--topology", "torus:4x4", "--load", "0.1,0.3,0.9"},
		{"incast", "--messages", "4"},
		{"mbcf"},
		{"ib", "rtt"},
		{"ib", "bandwidth", "--rdma-max", "16384"},
		{"ib", "buffers"},
		{"ib", "cpr"},
		{"search", "--depths", "0,1,4,16,64"},
		{"matchers", "--ranks", "16", "--workloads", "fig6,incast,random_bisect", "--matchers", "list,alpu:64,lhs", "--rtl-nodes", "0,1"},
	} {
		for _, format := range [][]string{nil, {"--json"}} {
			a := append(append([]string{}, args...), format...)
			code, one, stderr := run(t, nil, append(a, "--jobs", "1")...)
			require.Equal(t, 0, code, "%v: %s", a, stderr)
			code, three, stderr := run(t, nil, append(a, "--jobs", "3")...)
			require.Equal(t, 0, code, "%v: %s", a, stderr)
			if a[0] != "mbcf" && a[0] != "ib" && a[0] != "search" && a[0] != "matchers" { // they print no figure of the machine
				require.NotEmpty(t, machineFields.FindString(one), "%v: the machine's figures are found", a)
			}
			require.Equal(t, withoutMachineFigures(one), withoutMachineFigures(three), "%v --jobs 3 against --jobs 1", a)
		}
	}
}

// --jobs is lowered, with a line saying why, when the machine's memory (here GOMEMLIMIT)
// holds fewer parts' networks than asked; the run still gives its whole result.
func TestJobsLoweredForMemory(t *testing.T) {
	args := []string{"barrier", "--topology", "torus:8x8x8", "--processes", "2", "--algorithm", "dissemination", "--node-latency", "0,1.0", "--jobs", "2"}
	code, out, stderr := run(t, []string{"GOMEMLIMIT=4MiB"}, args...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim barrier: --jobs 2 lowered to 1: a part may take ")
	require.Contains(t, out, "2 barriers, ")
	code, _, stderr = run(t, []string{"GOMEMLIMIT=64MiB"}, args...)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "lowered")
	// A sweep without --slurm: the incast's runs, each with its receivers' memory.
	code, out, stderr = run(t, []string{"GOMEMLIMIT=12MiB"}, "incast", "--messages", "2", "--speed=false", "--jobs", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim incast: --jobs 2 lowered to 1: a part may take ")
	require.Contains(t, out, "LHS")
	// The matchers' parts, each its run's state over the schedule (768 bytes an operation)
	// and its network; the search's, a device each.
	code, out, stderr = run(t, []string{"GOMEMLIMIT=24MiB"}, "matchers", "--ranks", "64", "--workloads", "incast", "--matchers", "list,alpu:64", "--jobs", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim matchers: --jobs 2 lowered to 1: a part may take 16.2 MiB")
	require.Contains(t, out, "│ incast   │ alpu:64")
	code, _, stderr = run(t, []string{"GOMEMLIMIT=48MiB"}, "matchers", "--ranks", "64", "--workloads", "incast", "--matchers", "list,alpu:64", "--jobs", "2")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "lowered")
	code, out, stderr = run(t, []string{"GOMEMLIMIT=24MiB"}, "search", "--model", "go", "--depths", "0,1,2", "--jobs", "3")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim search: --jobs 3 lowered to 1: a part may take 16.0 MiB")
	require.Contains(t, out, "Per-message search time")
	// A part that does not fit even alone is refused before any work (cli.PartFits), exit 2.
	code, _, stderr = run(t, []string{"GOMEMLIMIT=4MiB"}, "incast", "--messages", "2", "--speed=false", "--jobs", "2")
	require.Equal(t, 2, code, stderr)
	require.Equal(t, "lhsim incast: does not fit in memory: a part of this run may take about 8.0 MiB (its estimate: docs/performance.md), and the limit is 4.0 MiB (GOMEMLIMIT)\n", stderr)
	code, _, stderr = run(t, nil, "barrier", "--jobs", "0")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--jobs 0: want 1 to 1024")
}

// With parts run at once, a sweep's bar still counts every run (or step) to its total.
func TestJobsProgress(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) runs a command on a terminal; it is not installed")
	}
	for _, c := range []struct {
		args []string
		bar  string
	}{
		{[]string{"alltoall", "--torus", "4x4x4", "--sizes", "8,32", "--jobs", "3"}, "alltoall 8/8 runs"},
		{[]string{"search", "--model", "go", "--depths", "0,1,2", "--jobs", "3"}, "search 15/15 steps"},
		{[]string{"matchers", "--ranks", "8", "--workloads", "fig6,incast", "--matchers", "list,lhs,alpu:64", "--jobs", "3"}, "matchers 5/5 runs"},
	} {
		cmd := exec.Command("script", "-qec", `stty cols 160 rows 40; exec "$LHSIM" -test.run='^TestLhsimProcess$' -test.count=1`, "/dev/null")
		cmd.Env = append(os.Environ(), "LHSIM="+os.Args[0], "LHSIM_ARGS="+strings.Join(c.args, "\x1f"))
		out, _ := cmd.CombinedOutput()
		require.Contains(t, strings.ReplaceAll(string(out), "\r", "\n"), c.bar, "%v", c.args)
	}
}

// --timeline records one process's runs in order into one file: the sweep then runs its
// parts one after another whatever --jobs says.
func TestJobsOneWithTimeline(t *testing.T) {
	for _, c := range []struct {
		args []string
		jobs int
	}{{[]string{"--jobs", "4"}, 4}, {[]string{"--jobs", "4", "--timeline", filepath.Join(t.TempDir(), "x.json")}, 1}} {
		r := newRunner(find(commands, "barrier"))
		find(commands, "barrier").flags(r)
		require.NoError(t, r.parse(c.args))
		require.Equal(t, c.jobs, r.partsAtOnce(), "%v", c.args)
	}
}

// The sweeps README.md names take --jobs, defaulting to the number of cores, and so do
// docs/performance.md's; lhsim goal, one schedule on one network, has none; lhsim bench-net
// measures one row at a time unless asked.
func TestJobsOnTheSweepsNamed(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	m := regexp.MustCompile(`The sweeps\s+\(([^)]*)\) run their parts on every core \(` + "`--jobs N`").FindSubmatch(readme)
	require.NotNil(t, m, "README.md names the sweeps that take --jobs")
	perf, err := os.ReadFile("../../docs/performance.md")
	require.NoError(t, err)
	var named []string
	for _, c := range regexp.MustCompile("`([a-z -]+|ib rtt\\|bandwidth\\|buffers\\|cpr)`").FindAllStringSubmatch(string(m[1]), -1) {
		cmds := []string{c[1]}
		if strings.HasPrefix(c[1], "ib ") {
			cmds = nil
			for _, sub := range strings.Split(strings.TrimPrefix(c[1], "ib "), "|") {
				cmds = append(cmds, "ib "+sub)
			}
		}
		require.True(t, strings.Contains(string(perf), "`lhsim "+strings.Split(c[1], " ")[0]), "docs/performance.md names %s among the sweeps", c[1])
		named = append(named, cmds...)
	}
	require.Subset(t, named, []string{"barrier", "search", "matchers", "ib cpr"})
	def := regexp.MustCompile(`(?m)^  -jobs value\n.*\(default ` + strconv.Itoa(runtime.NumCPU()) + `\)$`)
	for _, c := range named {
		code, help, _ := run(t, nil, append(strings.Fields(c), "-h")...)
		require.Equal(t, 0, code, c)
		require.Regexp(t, def, help, "lhsim %s -h: --jobs, default the number of cores", c)
	}
	_, help, _ := run(t, nil, "goal", "-h")
	require.NotContains(t, help, "-jobs")
	_, help, _ = run(t, nil, "bench-net", "-h")
	require.Regexp(t, `(?m)^  -jobs value\n.*\(default 1\)$`, help)
}
