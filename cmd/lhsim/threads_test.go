package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --threads cuts each run's network into parts on as many threads, and the output is the
// same, table and JSON, for 1, 2 and 3 (torus slabs; fat-tree subtrees; both routers; the
// barriers and the all-to-all, whose ranks and NICs run on their nodes' parts; incast,
// whose receive paths and hosts run on their nodes' parts: golden model and MPI host, TLM
// and costs host, and RTL receivers, whose runs stay on one thread beside speed rows on
// several), but for the machine's figures; the split is said on stderr.
func TestThreadsSameOutput(t *testing.T) {
	for _, args := range [][]string{
		{"barrier", "--topology", "torus:4x4x6,fattree:4x3", "--node-latency", "0,1", "--processes", "5,16,64"},
		{"alltoall", "--torus", "8x4x4", "--sizes", "8,200", "--uneven"},
		{"traffic", "--topology", "torus:4x4x6", "--load", "0.1,0.4,0.9", "--all-loads", "--warmup", "500", "--measure", "1000", "--drain", "1000"},
		{"traffic", "--topology", "fattree:4x3", "--load", "0.2,0.8", "--packet-flits", "1", "--arbiter", "oldest-first", "--warmup", "500", "--measure", "1000", "--drain", "1000"},
		{"traffic", "--topology", "torus:4x4", "--load", "0.2", "--preset", "seed002"},
		{"traffic", "--topology", "torus:4x4", "--load", "0.2", "--preset", "booksim"},
		{"traffic", "--topology", "fattree:4x3", "--load", "0.3,0.9", "--all-loads", "--packet-flits", "16", "--preset", "booksim"},
		{"incast", "--topology", "torus:4x4x4", "--receivers", "3", "--rtl-nodes=", "--messages", "3", "--post-at", "5", "--speed=false"},
		{"incast", "--topology", "fattree:4x3", "--receivers", "4", "--model", "tlm", "--host", "costs", "--rtl-nodes=", "--messages", "4", "--speed=false"},
		{"incast", "--topology", "torus:4x4x4", "--receivers", "2", "--rtl-nodes", "0", "--messages", "3", "--post-at", "5"},
	} {
		formats := [][]string{{"--json"}}
		if args[2] == "torus:4x4x6" || args[0] == "alltoall" || args[0] == "incast" && args[4] == "3" { // the table is made of the same result: once is enough
			formats = append(formats, nil)
		}
		for _, format := range formats {
			a := append(append([]string{}, args...), format...)
			var outs []string
			for _, threads := range []string{"1", "2", "3"} {
				code, out, stderr := run(t, nil, append(a, "--threads", threads, "--jobs", "1")...)
				require.Equal(t, 0, code, "%v --threads %s: %s", a, threads, stderr)
				require.Contains(t, stderr, "lhsim "+args[0]+": ", "the split line")
				if threads != "1" {
					require.Contains(t, stderr, "1 job(s) at once x "+threads+" thread(s) each", a)
					require.Contains(t, stderr, "windows of", a)
					if strings.Contains(strings.Join(a, " "), "--rtl-nodes 0") { // an RTL receiver: on its part's thread, as the others
						require.NotContains(t, stderr, "asked", a)
						require.Contains(t, stderr, "lhsim incast: LHS on: "+threads+" threads, ", a)
						require.Contains(t, stderr, "lhsim incast: every receiver rtl: "+threads+" threads, ", a)
						require.Contains(t, stderr, "lhsim incast: every receiver rtl-plugin: "+threads+" threads, ", a)
					}
				}
				outs = append(outs, out)
			}
			mask := func(s string) string { // (a column as wide as a rate's cell centres its header: incast's)
				s = machineFields.ReplaceAllString(s, "${1}${3}${5}MACHINE")
				return cellStart.ReplaceAllString(tablePadding.ReplaceAllString(tableRule.ReplaceAllString(s, "─"), " │"), "│ ")
			}
			require.NotEmpty(t, machineFields.FindString(outs[0]), "%v: the machine's figures are found", a)
			require.Equal(t, mask(outs[0]), mask(outs[1]), "%v --threads 2 against 1", a)
			require.Equal(t, mask(outs[0]), mask(outs[2]), "%v --threads 3 against 1", a)
		}
	}
}

var cellStart = regexp.MustCompile(`│ +`)

// With a timeline, a run stays on one thread (a line says so), and the file is the one a
// run on one thread writes (traffic; a barrier sweep, whose ranks and NICs are keyed on any
// number of threads).
func TestThreadsTimeline(t *testing.T) {
	for _, a := range [][]string{
		{"traffic", "--topology", "torus:4x4", "--load", "0.2", "--warmup", "200", "--measure", "400"},
		{"barrier", "--topology", "torus:4x4x4", "--processes", "7,64", "--node-latency", "0.5"},
		{"incast", "--topology", "torus:4x4x4", "--receivers", "2", "--rtl-nodes=", "--messages", "2", "--post-at", "5", "--speed=false"},
	} {
		dir := t.TempDir()
		code, _, stderr := run(t, nil, append(a, "--timeline", filepath.Join(dir, "1.json"), "--threads", "1")...)
		require.Equal(t, 0, code, stderr)
		code, _, stderr = run(t, nil, append(a, "--timeline", filepath.Join(dir, "2.json"), "--threads", "2")...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "(2 asked: a timeline records the run on one thread)", a)
		one, err := os.ReadFile(filepath.Join(dir, "1.json"))
		require.NoError(t, err)
		two, err := os.ReadFile(filepath.Join(dir, "2.json"))
		require.NoError(t, err)
		require.NotEmpty(t, one)
		require.Equal(t, string(one), string(two), a)
	}
}

// Bad --threads: 0, negative, not a number: refused, exit 2, one line naming the flag; more
// than the topology's parts: lowered, with a line saying why (traffic, barrier, alltoall,
// incast).
func TestThreadsBadInput(t *testing.T) {
	for _, cmd := range [][]string{
		{"traffic", "--topology", "torus:4x4", "--load", "0.2"},
		{"barrier", "--topology", "torus:4x4", "--processes", "4", "--node-latency", "1"},
		{"alltoall", "--torus", "4x4", "--sizes", "8", "--schemes", "proposed"},
		{"incast", "--topology", "torus:4x4", "--rtl-nodes=", "--messages", "1", "--post-at", "1", "--speed=false"},
	} {
		for v, why := range map[string]string{"0": "want 1 to 4096", "-2": "want 1 to 4096", "two": "not a whole number", "1.5": "not a whole number"} {
			code, out, stderr := run(t, nil, append(cmd, "--threads", v)...)
			require.Equal(t, 2, code, "%v --threads %s", cmd, v)
			require.Empty(t, out)
			first, _, _ := strings.Cut(stderr, "\n")
			require.Equal(t, "lhsim "+cmd[0]+": --threads "+v+": "+why, first, "the first line names it (the usage follows)")
		}
		code, _, stderr := run(t, nil, append(cmd, "--threads", "9")...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "x 4 thread(s) each (9 asked: torus:4x4 splits into at most 4 parts)", cmd)
	}
	code, _, stderr := run(t, nil, "traffic", "--topology", "crossbar:8", "--load", "0.2", "--threads", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "x 1 thread(s) each (2 asked: crossbar:8 splits into at most 1 parts)")
	// A barrier sweep of several topologies: the most any takes, and why another takes fewer.
	code, _, stderr = run(t, nil, "barrier", "--topology", "crossbar:8,torus:4x4", "--processes", "4", "--node-latency", "1", "--threads", "2", "--jobs", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "x 2 thread(s) each (2 asked: crossbar:8 splits into at most 1 parts)")
	require.Contains(t, stderr, "lhsim barrier: torus:4x4: 2 threads, ")
	require.NotContains(t, stderr, "lhsim barrier: crossbar:8: ")
	// No --jobs: a sweep takes the cores --threads leaves.
	code, _, stderr = run(t, nil, "traffic", "--topology", "torus:4x4", "--load", "0.2,0.3", "--threads", "2")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `cores: \d+ job\(s\) at once x 2 thread\(s\) each`, stderr)
}
