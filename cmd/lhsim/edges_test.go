package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The edges of bad input, class by class (docs/bad-input.md, "The command line").

// Class 1: every number flag checks the text as typed before it converts it (package
// flagval, whose tests check each kind); the message names the flag and the value as typed.
func TestNumbersAsTyped(t *testing.T) {
	// The examples of issue 29, each with the value as typed in a one-line message, exit 2.
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"barrier", "--node-latency", "1e12"}, "lhsim barrier: --node-latency 1e12: past an hour"},
		{[]string{"incast", "--post-at", "1e20"}, "lhsim incast: --post-at 1e20: past an hour"},
		{[]string{"incast", "--post-at", "NaN"}, "lhsim incast: --post-at NaN: not a finite number"},
		{[]string{"traffic", "--switch-latency", "1e30ns"}, `lhsim traffic: --switch-latency: delay "1e30ns": past an hour`},
		{[]string{"ib", "run", "--checkpoint-at", "NaN"}, "lhsim ib run: --checkpoint-at NaN: not a finite number"},
		{[]string{"ib", "run", "--checkpoint-at", "1e30"}, "lhsim ib run: --checkpoint-at 1e30: past an hour"},
		{[]string{"ib", "run", "--checkpoint-at", "1e-9"}, "lhsim ib run: --checkpoint-at 1e-9: not zero but under half a picosecond"},
		{[]string{"alltoall", "--node-latency", "-Inf"}, "lhsim alltoall: --node-latency -Inf: not a finite number"},
		{[]string{"mbcf", "--timer", "Inf"}, "lhsim mbcf: --timer Inf: not a finite number"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		require.Equal(t, 2, code, "lhsim %v: %s", c.args, stderr)
		require.True(t, strings.HasPrefix(stderr, c.says), "lhsim %v: %s", c.args, firstLine(stderr))
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// Class 2: a run that cannot fit in memory is refused before it allocates, with the
// estimate and the limit, even for a 2-process barrier.
func TestTooBigRefusedBeforeAllocating(t *testing.T) {
	for _, args := range [][]string{
		{"barrier", "--topology", "torus:128x128x128", "--processes", "2"},
		{"incast", "--topology", "torus:128x128x128"},
		{"traffic", "--topology", "torus:128x128x128"},
		{"alltoall", "--torus", "128x128x128"},
		{"goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "fattree:4x10"},
	} {
		start := time.Now()
		code, _, stderr := run(t, []string{"GOMEMLIMIT=2GiB"}, args...)
		require.Equal(t, 2, code, "lhsim %v: %s", args, stderr)
		require.Regexp(t, `does not fit in memory: .* need about [0-9.]+ GiB, and the limit is 2.0 GiB`, firstLine(stderr), "lhsim %v", args)
		require.Less(t, time.Since(start), 10*time.Second, "lhsim %v: refused only after building", args)
	}
}

// Class 3: degenerate set-ups get a clear message, never a panic or an impossible figure.
func TestDegenerateSetups(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"barrier", "--topology", "crossbar:1"}, "--topology crossbar:1: 1 node; want at least 2"},
		{[]string{"barrier", "--topology", "torus:1x1"}, "--topology torus:1x1: 1 node; want at least 2"},
		{[]string{"incast", "--topology", "crossbar:1"}, "--topology crossbar:1: 1 node; want at least 2"},
		{[]string{"incast", "--topology", "crossbar:2", "--receivers", "2"}, "--receivers 2: crossbar:2 has 2 nodes, and at least one must send: want 1 to 1"},
		{[]string{"traffic", "--topology", "torus:2x2", "--pattern", "tornado"}, "pattern tornado on torus:2x2 sends every node to itself"},
		{[]string{"traffic", "--topology", "torus:2", "--pattern", "tornado"}, "sends every node to itself"},
		{[]string{"traffic", "--topology", "crossbar:1", "--pattern", "transpose"}, "pattern transpose on crossbar:1 sends every node to itself"},
		{[]string{"traffic", "--preset", "booksim", "--topology", "crossbar:1", "--json"}, "pattern uniform needs two nodes or more"},
		{[]string{"traffic", "--topology", "torus:4x4", "--measure", "1"}, "a 1-cycle measurement window after 2000 cycles of warm-up is too short"},
		{[]string{"traffic", "--topology", "torus:4x4", "--measure", "300", "--warmup", "0"}, "want a window of at least"},
		{[]string{"run", "--size-pos", "4"}, "--size-pos 4: the run's messages carry their size field at byte 12"},
		{[]string{"search", "--size-pos", "0"}, "--size-pos 0: the search's MPI messages carry their size field at byte 12"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		require.Equal(t, 2, code, "lhsim %v: %s", c.args, stderr)
		require.Contains(t, firstLine(stderr), c.says, "lhsim %v", c.args)
		require.NotContains(t, stderr, "goroutine ", "lhsim %v", c.args)
	}
	// A burst that fits the shared receive queue never runs it dry: "never", not +Inf, so
	// --json works.
	code, js, stderr := run(t, nil, "ib", "buffers", "--nodes", "2", "--senders", "1", "--messages", "1", "--depths", "64", "--rates", "80", "--json")
	require.Equal(t, 0, code, stderr)
	require.True(t, json.Valid([]byte(js)), js)
	require.Contains(t, js, `"threshold_kmsg_s": 0,`)
	// Too few packets in a long enough window at a tiny load: refused at run time, exit 2.
	code, _, stderr = run(t, nil, "traffic", "--topology", "torus:4x4", "--load", "1e-6", "--measure", "300")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, firstLine(stderr), "no packet was created in the 300-cycle measurement window")
}

// Class 4: --plot and --out are checked before the run; a failed run leaves no --out or
// --plot file; exit 2 for an input, 1 for a failed run; one prefix.
func TestOutputsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.svg")
	for _, args := range [][]string{
		{"mbcf", "--plot", filepath.Join(dir, "no", "r.svg")},
		{"barrier", "--plot", filepath.Join(dir, "no", "r.svg")},
		{"alltoall", "--plot", filepath.Join(dir, "no", "r.svg")},
		{"traffic", "--plot", filepath.Join(dir, "no", "r.svg")},
		{"barrier", "--plot", filepath.Join(dir, "r.pdf")},
	} {
		start := time.Now()
		code, _, stderr := run(t, nil, args...)
		require.Equal(t, 2, code, "lhsim %v: %s", args, stderr)
		require.Contains(t, firstLine(stderr), "--plot", "lhsim %v", args)
		require.Less(t, time.Since(start), 5*time.Second, "lhsim %v: --plot checked only after the run", args)
	}
	// A run that fails (ib run: nothing to checkpoint past the end) leaves neither file.
	code, _, stderr := run(t, nil, "ib", "run", "--nodes", "2", "--messages", "2", "--checkpoint-at", "1e9", "--out", out)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, "lhsim ib run: nothing to checkpoint at 1000000000000.000 ns: every program has ended\n", stderr, "one line, one prefix")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "a failed run left a file")
	// A run that succeeds writes both, whole.
	code, _, stderr = run(t, nil, "barrier", "--topology", "crossbar:4", "--algorithm", "dissemination", "--out", out, "--plot", plot)
	require.Equal(t, 0, code, stderr)
	js, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, json.Valid(js))
	svg, err := os.ReadFile(plot)
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "only the two files, nothing left beside them")
	// An input file that is wrong exits 2: a damaged checkpoint, a schedule that does not parse.
	bad := filepath.Join(dir, "bad.ckpt")
	require.NoError(t, os.WriteFile(bad, []byte("not a checkpoint"), 0o644))
	code, _, stderr = run(t, nil, "ib", "run", "--resume", bad)
	require.Equal(t, 2, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "lhsim ib run: "), stderr)
	require.NotContains(t, stderr, "lhsim ib run: ib:", "one prefix")
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

// Class 5: plain lhsim incast outside the source tree, with no plugin binary, runs and
// says how to get the row it leaves out.
func TestIncastWithoutPlugin(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "LHSIM_PLUGIN=", "LHSIM_ARGS="+strings.Join([]string{"incast", "--messages", "2"}, "\x1f"))
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.Contains(t, string(b), "rtl-plugin row left out: no lhsim-plugin binary found; build it with make plugin")
	require.NotContains(t, string(b), "│ rtl-plugin")
}

// The check that keeps it so (in make test: about 10 s on 2 cores; make edges adds the file
// inputs' fuzzers): every command with every numeric flag set to NaN, ±Inf, -1, 0, 1, 1e30
// and an overflowing integer, on a small base run, exits 0 with a sane result (JSON that
// parses, no NaN, no infinity, no wrapped time) or 1/2 with one line under its prefix (exit 1:
// nothing else on stderr); never a stack trace; under a memory limit (GOMEMLIMIT 1 GiB,
// address space 8 GiB, ulimit -v); from a folder outside the source tree, on the built
// binary under make edges (LHSIM_BIN). Numeric flags are found in each command's -h (types value, int,
// uint, float, duration), with the lists and delays that read as strings named in extra.
func TestEdgesSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bases := edgeBases(t)
	values := []string{"NaN", "Inf", "-Inf", "-1", "0", "1", "1e30", "99999999999999999999"}
	numeric := regexp.MustCompile(`^  -([a-z0-9-]+) (value|int|uint|float|duration)$`)
	sane := regexp.MustCompile(`NaN|[+-]?Inf|-?9223372036854775|-?9\.22337e\+18`)
	var tally edgeTally
	tally.report(t, "TestEdgesSweep")
	outside := t.TempDir()
	for _, b := range bases {
		code, help, _ := run(t, nil, append(b.cmd, "-h")...)
		require.Equal(t, 0, code)
		flags := b.extra
		for _, l := range strings.Split(help, "\n") {
			if m := numeric.FindStringSubmatch(l); m != nil {
				flags = append(flags, m[1])
			}
		}
		require.NotEmpty(t, flags, "%v has no numeric flag in its help", b.cmd)
		for _, f := range flags {
			for _, v := range values {
				if slices.Contains(b.skip, v) {
					continue
				}
				args := append(append(append(append([]string{}, b.cmd...), b.base...), b.with[f]...), "--"+f, v)
				code, stdout, stderr := limitedRun(t, &tally, outside, args)
				name := "lhsim " + strings.Join(b.cmd, " ")
				if testing.Verbose() {
					t.Logf("%s --%s %s: exit %d: %s", name, f, v, code, firstLine(stderr))
				}
				require.NotContains(t, stderr, "goroutine ", "%v: a stack trace", args)
				require.NotContains(t, stderr, "panic:", "%v", args)
				switch code {
				case 0:
					if strings.Contains(strings.Join(b.base, " "), "--json") {
						require.True(t, json.Valid([]byte(stdout)), "%v: not JSON: %.300s", args, stdout)
					}
					require.NotRegexp(t, sane, stdout, "%v: an impossible figure", args)
				case 1, 2:
					require.True(t, strings.HasPrefix(stderr, name+": "), "%v: %q", args, firstLine(stderr))
					if code == 1 {
						require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %s", args, stderr)
					}
				default:
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
			}
		}
	}
}

// limitedRun is an edge run (edgeRun) under a memory limit: GOMEMLIMIT (what lhsim's fit
// check takes) and an address-space limit the process cannot pass.
func limitedRun(t *testing.T, tally *edgeTally, dir string, args []string) (int, string, string) {
	t.Helper()
	return edgeRun(t, tally, dir, "ulimit -v 8388608", []string{"GOMEMLIMIT=1GiB"}, args)
}

// edgeBase is a small run of one command, from which the edge sweeps vary one thing.
type edgeBase struct {
	cmd  []string
	base []string
	skip []string // values that start a long external run (go test, Yosys, a solver)
	// extra are numeric flags that take a list or a unit, so their help says string.
	extra []string
	// with are the flags a flag needs beside it (a waveform's file, a checkpoint's time).
	with map[string][]string
}

// edgeBases are the commands' small runs, every command's.
func edgeBases(t *testing.T) []edgeBase {
	goal, err := filepath.Abs("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	return []edgeBase{
		{[]string{"barrier"}, []string{"--topology", "crossbar:4", "--processes", "2,4", "--node-latency", "1", "--algorithm", "dissemination", "--json"}, nil, []string{"processes"}, nil},
		{[]string{"incast"}, []string{"--topology", "crossbar:4", "--messages", "2", "--speed=false", "--json"}, nil, []string{"rtl-nodes"},
			map[string][]string{"trace": {"--trace-file", filepath.Join(t.TempDir(), "incast.fst")}, "trace-file": {"--trace", "0"}}},
		{[]string{"traffic"}, []string{"--topology", "torus:4x4", "--load", "0.1", "--warmup", "500", "--measure", "1000", "--drain", "2000", "--json"}, nil,
			[]string{"clock", "routing-delay", "vc-alloc-delay", "sw-alloc-delay", "switch-latency", "cable", "torus-latency"}, nil},
		{[]string{"alltoall"}, []string{"--torus", "4x4x4", "--sizes", "8", "--schemes", "sync_at_start", "--json"}, nil, nil, nil},
		{[]string{"goal"}, []string{"--schedule", goal, "--topology", "crossbar:4", "--json"}, nil, nil, map[string][]string{"trace-file": {"--trace", "0", "--rtl-nodes", "0"}}},
		{[]string{"ib", "rtt"}, []string{"--iterations", "2", "--warmup", "0", "--json"}, nil, nil, nil},
		{[]string{"ib", "bandwidth"}, []string{"--sizes", "16", "--rdma-max", "64", "--chipset", "gc-le", "--json"}, nil, []string{"sizes"}, nil},
		{[]string{"ib", "buffers"}, []string{"--nodes", "2,4", "--messages", "10", "--depths", "64", "--rates", "80", "--json"}, nil, []string{"nodes", "depths", "rates"}, nil},
		{[]string{"ib", "cpr"}, []string{"--qps", "1,3", "--json"}, nil, []string{"qps"}, nil},
		{[]string{"ib", "run"}, []string{"--nodes", "2", "--messages", "2", "--json"}, nil, nil, map[string][]string{"checkpoint": {"--checkpoint-at", "5"}}},
		{[]string{"mbcf"}, []string{"--network", "100basetx", "--sizes", "4", "--bandwidth-sizes", "4", "--iterations", "2", "--writes", "16", "--json"}, nil, []string{"sizes", "bandwidth-sizes"}, nil},
		{[]string{"search"}, []string{"--model", "go", "--max-depth", "4", "--json"}, nil, []string{"depths"}, nil},
		{[]string{"run"}, []string{"--model", "go", "--messages", "20", "--json"}, nil, nil, map[string][]string{"checkpoint": {"--checkpoint-at", "100"}}},
		{[]string{"demo"}, []string{"--model", "go", "--json"}, nil, nil, nil},
		{[]string{"bench"}, []string{"--messages", "10", "--repeats", "1", "--json"}, nil, nil, nil},
		{[]string{"bench-net"}, []string{"--topologies", "torus:4x4", "--loads", "0.1", "--packet-flits", "4", "--warmup", "100", "--measure", "100", "--json"}, nil, nil, nil},
		{[]string{"regress"}, []string{"--json"}, []string{"0", "1"}, nil, nil},
		{[]string{"area"}, []string{"-cached"}, []string{"0", "1"}, nil, nil},
		{[]string{"formal"}, []string{"--json"}, []string{"0", "1"}, nil, nil},
	}
}
