package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goalSchedule writes a schedule of lhsim goal gen into dir and returns its path.
func goalSchedule(t *testing.T, dir string, gen ...string) string {
	t.Helper()
	f := filepath.Join(dir, strings.Join(gen, "_")+".goal")
	code, _, stderr := run(t, nil, append(append([]string{"goal", "gen"}, gen...), "--out", f)...)
	require.Equal(t, 0, code, stderr)
	return f
}

// lhsim goal on the packet network: the schedule's events run on each rank's part, keyed, and
// the output is the same, table and JSON, for 1, 2 and 3 threads (torus slabs, fat-tree
// subtrees; without a matcher, with bins:16 and alpu:16 in software), but for the machine's
// figures; the split and the windows are said on stderr.
func TestThreadsGoalSameOutput(t *testing.T) {
	dir := t.TempDir()
	a2a := goalSchedule(t, dir, "linear_alltoallv", "--ranks", "48", "--size", "200", "--seed", "3")
	ar := goalSchedule(t, dir, "allreduce_recdoub", "--ranks", "64", "--size", "1024")
	rb := goalSchedule(t, dir, "random_bisect", "--ranks", "64", "--size", "5000", "--seed", "5")
	for _, args := range [][]string{
		{"--schedule", a2a, "--topology", "torus:4x4x4"},
		{"--schedule", a2a, "--topology", "fattree:4x3", "--matcher", "bins:16"},
		{"--schedule", ar, "--topology", "torus:4x4x4", "--matcher", "alpu:16"},
		{"--schedule", ar, "--topology", "fattree:4x3"},
		{"--schedule", rb, "--topology", "torus:4x4x4", "--matcher", "bins:16"},
	} {
		formats := [][]string{{"--json"}}
		if args[3] == "torus:4x4x4" && len(args) == 4 {
			formats = append(formats, nil)
		}
		for _, format := range formats {
			a := append(append([]string{"goal"}, args...), format...)
			var outs []string
			for _, threads := range []string{"1", "2", "3"} {
				code, out, stderr := run(t, nil, append(a, "--threads", threads)...)
				require.Equal(t, 0, code, "%v --threads %s: %s", a, threads, stderr)
				require.Contains(t, stderr, "1 job(s) at once x "+threads+" thread(s) each", a)
				if threads != "1" {
					require.Contains(t, stderr, "lhsim goal: "+args[3]+": "+threads+" threads, ", a)
				} else {
					require.NotContains(t, stderr, "windows of", a)
				}
				outs = append(outs, out)
			}
			mask := func(s string) string {
				s = machineFields.ReplaceAllString(s, "${1}${3}${5}MACHINE")
				return tablePadding.ReplaceAllString(tableRule.ReplaceAllString(s, "─"), " │")
			}
			require.NotEmpty(t, outs[0])
			require.Equal(t, mask(outs[0]), mask(outs[1]), "%v --threads 2 against 1", a)
			require.Equal(t, mask(outs[0]), mask(outs[2]), "%v --threads 3 against 1", a)
		}
	}
}

// What a machine on parts cannot carry runs on one thread, and a line says why: a timeline
// (whose file is the one a run on one thread writes), a rendezvous send to another rank (it
// completes at the instant its receiver matches it). LHS receive paths and RTL matchers run on
// parts (TestThreadsRTL).
func TestThreadsGoalOneThread(t *testing.T) {
	dir := t.TempDir()
	small := goalSchedule(t, dir, "allreduce_recdoub", "--ranks", "16", "--size", "64")
	big := goalSchedule(t, dir, "allreduce_recdoub", "--ranks", "16", "--size", "300000")
	base := []string{"goal", "--topology", "torus:4x4", "--threads", "2"}
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"--schedule", big}, "(2 asked: rank 0 line 4 sends 150000 bytes to rank 1 by rendezvous (over S=65535), which completes at the receiver's match: one thread)"},
	} {
		code, out, stderr := run(t, nil, append(append(base, c.args...), "--json")...)
		require.Equal(t, 0, code, "%v: %s", c.args, stderr)
		require.NotEmpty(t, out)
		require.Contains(t, stderr, "x 1 thread(s) each "+c.why, c.args)
		require.NotContains(t, stderr, "windows of", c.args)
	}
	// The rendezvous schedule on parts is a small S away: --S above its sizes makes it eager.
	code, _, stderr := run(t, nil, append(base, "--schedule", big, "--S", "400000", "--json")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim goal: torus:4x4: 2 threads, ")

	var files []string
	for _, threads := range []string{"1", "2"} {
		f := filepath.Join(dir, threads+".json")
		code, _, stderr := run(t, nil, "goal", "--schedule", small, "--topology", "torus:4x4", "--timeline", f, "--threads", threads)
		require.Equal(t, 0, code, stderr)
		if threads == "2" {
			require.Contains(t, stderr, "(2 asked: a timeline records the run on one thread)")
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		files = append(files, string(b))
	}
	require.NotEmpty(t, files[0])
	require.Equal(t, files[0], files[1], "the timeline of --threads 2 against 1")
}

// Bad --threads on lhsim goal: 0, negative, not a number: refused, exit 2, one line naming
// the flag; more than the topology's parts: lowered, with a line; with --network loggp
// (which has no network to cut): refused.
func TestThreadsGoalBadInput(t *testing.T) {
	dir := t.TempDir()
	s := goalSchedule(t, dir, "allreduce_recdoub", "--ranks", "16", "--size", "64")
	cmd := []string{"goal", "--schedule", s, "--topology", "torus:4x4"}
	for v, why := range map[string]string{"0": "want 1 to 4096", "-2": "want 1 to 4096", "two": "not a whole number"} {
		code, out, stderr := run(t, nil, append(cmd, "--threads", v)...)
		require.Equal(t, 2, code, "--threads %s", v)
		require.Empty(t, out)
		first, _, _ := strings.Cut(stderr, "\n")
		require.Equal(t, "lhsim goal: --threads "+v+": "+why, first)
	}
	code, _, stderr := run(t, nil, append(cmd, "--threads", "9")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "x 4 thread(s) each (9 asked: torus:4x4 splits into at most 4 parts)")
	code, out, stderr := run(t, nil, "goal", "--schedule", s, "--network", "loggp", "--threads", "2")
	require.Equal(t, 2, code, stderr)
	require.Empty(t, out)
	first, _, _ := strings.Cut(stderr, "\n")
	require.Equal(t, "lhsim goal: --threads cuts the packet network into parts; --network loggp has none", first)
}

// lhsim matchers: each cell's run on the parts of its machine, the same study, table and
// JSON, for 1, 2 and 3 threads (72 ranks: a torus; list, bins:16, alpu:16 and lhs in
// software), each cell's windows on stderr; at 32 ranks (a crossbar, one part) the split line
// says why a cell gets one.
func TestThreadsMatchersSameOutput(t *testing.T) {
	a := []string{"matchers", "--ranks", "72", "--workloads", "incast,alltoall_late,random_bisect", "--matchers", "list,bins:16,alpu:16,lhs", "--jobs", "1"}
	for _, format := range [][]string{{"--json"}, nil} {
		var outs []string
		for _, threads := range []string{"1", "2", "3"} {
			code, out, stderr := run(t, nil, append(append(a, format...), "--threads", threads)...)
			require.Equal(t, 0, code, "--threads %s: %s", threads, stderr)
			require.Contains(t, stderr, "1 job(s) at once x "+threads+" thread(s) each")
			if threads != "1" {
				require.Contains(t, stderr, "lhsim matchers: random_bisect with alpu:16: "+threads+" threads, ")
				require.Equal(t, 12, strings.Count(stderr, "windows of"), "a line per cell")
			}
			outs = append(outs, out)
		}
		require.NotEmpty(t, outs[0])
		require.Equal(t, outs[0], outs[1], "%v --threads 2 against 1", format)
		require.Equal(t, outs[0], outs[2], "%v --threads 3 against 1", format)
	}
	code, _, stderr := run(t, nil, "matchers", "--ranks", "32", "--workloads", "incast", "--matchers", "list", "--threads", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "x 1 thread(s) each (2 asked: crossbar:32 splits into at most 1 parts)")
	for v, why := range map[string]string{"0": "want 1 to 4096", "x": "not a whole number"} {
		code, out, stderr := run(t, nil, "matchers", "--ranks", "72", "--workloads", "incast", "--matchers", "list", "--threads", v)
		require.Equal(t, 2, code, "--threads %s", v)
		require.Empty(t, out)
		first, _, _ := strings.Cut(stderr, "\n")
		require.Equal(t, "lhsim matchers: --threads "+v+": "+why, first)
	}
}
