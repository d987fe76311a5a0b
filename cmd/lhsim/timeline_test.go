package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/timeline"
	"github.com/lhsim/lhsim/waves"
)

// lhsim goal --timeline writes a file that parses and passes the format's checks, says on
// stderr what it wrote, keeps stdout's JSON clean; bad filters exit 2.
func TestGoalTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.json")
	code, out, stderr := run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4", "--timeline", f, "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "timeline "+f+": ")
	require.NotContains(t, out, "timeline")
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	evs, err := timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, false))
	// An RTL receive path on node 1: its one message's commit, with its cycles.
	code, _, stderr = run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4", "--rtl-nodes", "1", "--timeline", f)
	require.Equal(t, 0, code, stderr)
	b, err = os.ReadFile(f)
	require.NoError(t, err)
	evs, err = timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, false))
	var commits []timeline.Event
	for _, e := range evs {
		if e.Name == "LH entry" {
			commits = append(commits, e)
		}
	}
	require.Len(t, commits, 1)
	require.Equal(t, 1, *commits[0].Pid)
	require.Equal(t, 1024.0, commits[0].Args["size"])
	require.Greater(t, commits[0].Args["cycle"], 0.0)
	// With its waveform: a save file beside the timeline names that FST and marks the LH
	// entry at the timeline's fst_cycle (waves: cycle c at (c + 4) x 10 ns).
	fst := filepath.Join(dir, "g.fst")
	code, _, stderr = run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4", "--rtl-nodes", "1", "--trace", "1", "--trace-file", fst, "--timeline", f)
	require.Equal(t, 0, code, stderr)
	save := filepath.Join(dir, "t-node1.gtkw")
	require.Contains(t, stderr, "save file "+save+" opens node 1's waveform at its first message (gtkwave "+fst+" "+save+")")
	b, err = os.ReadFile(f)
	require.NoError(t, err)
	evs, err = timeline.Parse(b)
	require.NoError(t, err)
	entry := -1.0
	for _, e := range evs {
		if e.Name == "LH entry" {
			entry = e.Args["fst_cycle"].(float64)
		}
	}
	require.GreaterOrEqual(t, entry, 0.0)
	g, err := os.ReadFile(save)
	require.NoError(t, err)
	require.Contains(t, string(g), `[dumpfile] "`+fst+`"`)
	require.Contains(t, string(g), "message 0 LH entry")
	var marks []string
	for _, l := range strings.Split(string(g), "\n") {
		if strings.HasPrefix(l, "*") {
			marks = strings.Fields(l)[2:]
		}
	}
	require.Contains(t, marks, fmt.Sprint((int(entry)+4)*10))
	// And the real GTKWave opens it there: the dump loads with the save file, and one of its
	// named markers stands at the LH entry.
	v, err := waves.Open(context.Background(), fst, save, nil)
	if errors.Is(err, waves.ErrNoGTKWave) {
		t.Log("GTKWave not checked:", err)
	} else {
		require.NoError(t, err)
		require.Empty(t, v.Missing, "traces the save file names and the FST lacks")
		require.Contains(t, slices.Collect(maps.Values(v.Markers)), int64((int(entry)+4)*10), "no marker at the LH entry: %v", v.Markers)
	}
	require.FileExists(t, filepath.Join(dir, "g.gtkw"))
	code, _, stderr = run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--rtl-nodes", "1", "--trace", "2")
	require.Equal(t, 2, code, stderr)
	code, _, stderr = run(t, nil, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--timeline", f, "--timeline-ranks", "1", "--timeline-window", "0.5:3")
	require.Equal(t, 0, code, stderr)
	for _, bad := range [][]string{
		{"--timeline", f, "--timeline-ranks", "3-1"},
		{"--timeline", f, "--timeline-window", "5:2"},
		{"--timeline", f, "--timeline-window", "x"},
		{"--timeline-ranks", "1"},
		{"--timeline", f, "--network", "loggp"},
		{"--timeline", dir},
	} {
		code, _, stderr = run(t, nil, append([]string{"goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}

// barrier, alltoall and incast take --timeline too: each writes a file that passes the
// checks; with --slurm (runs in other processes) it is refused.
func TestNetworkTimelines(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"barrier", "--topology", "crossbar:8", "--processes", "4", "--node-latency", "1"},
		{"alltoall", "--torus", "torus:4x4x4", "--sizes", "8", "--schemes", "proposed"},
		{"incast", "--topology", "crossbar:4", "--messages", "5", "--post-at", "5", "--rtl-nodes", "", "--speed=false"},
		{"traffic", "--topology", "torus:4x4x4", "--load", "0.1,0.3", "--warmup", "200", "--measure", "2500", "--drain", "2000"},
		{"ib", "run", "--nodes", "3", "--messages", "4"},
		{"mbcf", "--network", "10baset", "--sizes", "16", "--bandwidth-sizes", "64", "--iterations", "2", "--writes", "32"},
	} {
		f := filepath.Join(dir, args[0]+".json")
		code, _, stderr := run(t, nil, append(args, "--timeline", f, "--json")...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		evs, err := timeline.Parse(b)
		require.NoError(t, err, args[0])
		require.NoError(t, timeline.Validate(evs, false), args[0])
		require.Greater(t, len(evs), 20, args[0])
	}
	code, _, stderr := run(t, nil, "barrier", "--topology", "crossbar:8", "--slurm", "--timeline", filepath.Join(dir, "x.json"))
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "leave out --slurm")
	// The filters and the cap are the same on the new commands: traffic kept to nodes 0-1
	// from 1 µs on, capped; a refused input leaves no file and one line.
	f := filepath.Join(dir, "traffic-filtered.json")
	code, _, stderr = run(t, nil, "traffic", "--topology", "torus:4x4x4", "--load", "0.1,0.3", "--warmup", "200", "--measure", "2500", "--drain", "2000",
		"--timeline", f, "--timeline-ranks", "0-1", "--timeline-window", "1:", "--timeline-max", "1", "--json")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), 1<<20)
	evs, err := timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, true))
	for _, e := range evs {
		n := *e.Pid % timeline.MachinePids
		require.True(t, n <= 1 || n >= timeline.MachinePids-2, "pid %d", *e.Pid)
		if e.Ph == "X" {
			require.GreaterOrEqual(t, *e.Ts+*e.Dur, 1.0)
		}
	}
	f = filepath.Join(dir, "refused.json")
	code, _, stderr = run(t, nil, "traffic", "--topology", "torus:4x4x4", "--load", "0.1", "--warmup", "200", "--measure", "500", "--timeline", f)
	require.Equal(t, 2, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "lhsim traffic: a 500-cycle measurement window"), stderr)
	require.NotContains(t, stderr, " events, ")
	require.NoFileExists(t, f)
	for _, bad := range [][]string{
		{"traffic", "--preset", "booksim", "--topology", "torus:4x4", "--timeline", filepath.Join(dir, "x.json")},
		{"ib", "run", "--checkpoint-at", "5", "--timeline", filepath.Join(dir, "x.json")},
		{"ib", "run", "--timeline-ranks", "1"},
	} {
		code, _, stderr := run(t, nil, bad...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
	}
}

// docs/timeline.md's example and its figure: the lines it shows are what the commands say,
// and the 256-rank allreduce writes the events it states, under 200 bytes each.
func TestTimelineDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/timeline.md")
	require.NoError(t, err)
	dir := t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	code, _, stderr := run(t, nil, "goal", "gen", "allreduce_recdoub", "--ranks", "8", "--size", "4096", "--out", "ar8.goal")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = run(t, nil, "goal", "--schedule", "ar8.goal", "--timeline", "ar8.json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, string(doc), strings.TrimSpace(stderr))
	code, _, stderr = run(t, nil, "goal", "gen", "allreduce_recdoub", "--ranks", "256", "--size", "1024", "--out", "ar256.goal")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = run(t, nil, "goal", "--schedule", "ar256.goal", "--topology", "torus:8x8x8", "--json", "--timeline", "ar256.json")
	require.Equal(t, 0, code, stderr)
	var events, size int
	_, err = fmt.Sscanf(strings.TrimSpace(stderr), "lhsim goal: timeline ar256.json: %d events, %d bytes", &events, &size)
	require.NoError(t, err, stderr)
	require.Contains(t, string(doc), fmt.Sprintf("writes %s events, %.1f MB, %.1f bytes per event", commas(events), float64(size)/1e6, float64(size)/float64(events)))
	require.Less(t, float64(size)/float64(events), 200.0)
	// The cap: a message when it is reached, and a file under it that still parses.
	code, _, stderr = run(t, nil, "goal", "--schedule", "ar256.goal", "--topology", "torus:8x8x8", "--json", "--timeline", "capped.json", "--timeline-max", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim goal: timeline capped.json reached --timeline-max 1 MiB at ")
	b, err := os.ReadFile("capped.json")
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), 1<<20)
	evs, err := timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, true))
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Progress without a terminal: a line every LHSIM_PROGRESS_EVERY on stderr (here every
// barrier), with what is left; none with --json.
func TestProgressLines(t *testing.T) {
	env := []string{"LHSIM_PROGRESS_EVERY=0"}
	code, _, stderr := run(t, env, "barrier", "--topology", "crossbar:8", "--processes", "4,8", "--node-latency", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim barrier: 1/6 barriers, ")
	require.Contains(t, stderr, "to go")
	require.Contains(t, stderr, "lhsim barrier: 6/6 barriers, ")
	code, _, stderr = run(t, env, "barrier", "--topology", "crossbar:8", "--processes", "4,8", "--node-latency", "1", "--json")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "barriers")
	code, _, stderr = run(t, env, "incast", "--topology", "crossbar:4", "--messages", "5", "--post-at", "5", "--rtl-nodes", "", "--speed=false")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim incast: 1/2 runs, ")
	code, _, stderr = run(t, env, "goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--topology", "crossbar:4")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "lhsim goal: 5/5 operations, ")
	// The other long commands: goal on LogGOPS, traffic (router cycles), mbcf
	// (measurements), ib run (sends), matchers (runs); none of it with --json.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"goal", "--schedule", "../../netsim/goal/testdata/pingpong.goal", "--network", "loggp"}, "lhsim goal: 5/5 operations, "},
		{[]string{"traffic", "--topology", "torus:4x4x4", "--load", "0.1", "--warmup", "1000", "--measure", "3000"}, "lhsim traffic: 4000/4000 cycles, "},
		{[]string{"mbcf", "--network", "100basetx", "--sizes", "4", "--bandwidth-sizes", "4", "--iterations", "2", "--writes", "16"}, "lhsim mbcf: 5/5 measurements, "},
		{[]string{"ib", "run", "--nodes", "3", "--messages", "4"}, "lhsim ib run: 24/24 sends, "},
		{[]string{"matchers", "--ranks", "8", "--matchers", "list,alpu:64", "--workloads", "incast"}, "lhsim matchers: 2/2 runs, "},
	} {
		code, _, stderr = run(t, env, c.args...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, c.want, c.args)
		code, _, stderr = run(t, env, append(c.args, "--json")...)
		require.Equal(t, 0, code, stderr)
		require.NotContains(t, stderr, strings.TrimSuffix(c.want, ", "), c.args)
	}
}

// On an RTL receiver each commit carries its cycle in the waveform: the first one is where
// incast's own save file marks the first LH entry committed, and lhsim trace --at that cycle
// writes a save file whose cursor is there.
func TestTimelineRTLCycles(t *testing.T) {
	dir := t.TempDir()
	fst, tl := filepath.Join(dir, "inc.fst"), filepath.Join(dir, "inc.json")
	code, _, stderr := run(t, nil, "incast", "--topology", "crossbar:4", "--messages", "5", "--post-at", "5", "--speed=false", "--trace", "0", "--trace-file", fst, "--timeline", tl)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	evs, err := timeline.Parse(b)
	require.NoError(t, err)
	require.NoError(t, timeline.Validate(evs, false))
	first := -1
	commits := 0
	// Each message's steps through receiver 0's RTL, in cycle order: arrival, taken, LH
	// entry, done (its tail in the SO-DIMM ring), host release.
	steps := map[int][]float64{}
	for _, e := range evs {
		if e.Ph == "i" && e.Name == "LH entry" && *e.Pid == 0 {
			if first < 0 {
				first = int(e.Args["fst_cycle"].(float64))
			}
			commits++
		}
		if e.Ph == "i" && *e.Pid == 0 && *e.Tid >= timeline.TidRTLStep && *e.Tid < timeline.TidRTLStep+5 {
			m := int(e.Args["rtl_msg"].(float64))
			require.Len(t, steps[m], *e.Tid-timeline.TidRTLStep, "message %d: %s out of order", m, e.Name)
			steps[m] = append(steps[m], e.Args["cycle"].(float64))
			if e.Name == "tail in SO-DIMM" {
				require.Greater(t, e.Args["tail"], 0.0)
			}
		}
	}
	require.Equal(t, 3*5, commits, "receiver 0 commits each of 3 senders' 5 messages once")
	require.Len(t, steps, 15)
	for m, cs := range steps {
		require.Len(t, cs, 5, "message %d", m)
		require.IsNonDecreasing(t, cs, "message %d's cycles", m)
		require.Less(t, cs[0], cs[2], "message %d enters before its LH entry commits", m)
	}
	save, err := os.ReadFile(filepath.Join(dir, "inc.gtkw"))
	require.NoError(t, err)
	require.Contains(t, string(save), "first LH entry committed")
	want := fmt.Sprint((first + 4) * 10) // hw.ResetCycles, waves.CycleTime
	var markers []string
	for _, l := range strings.Split(string(save), "\n") {
		if strings.HasPrefix(l, "*") {
			markers = strings.Fields(l)[2:]
		}
	}
	require.Contains(t, markers, want, "first commit at FST cycle %d", first)
	// The save file written beside the timeline opens the same waveform at the first
	// message, with its LH entry marked at the same time.
	require.Contains(t, stderr, "save file "+filepath.Join(dir, "inc-node0.gtkw")+" opens receiver 0's waveform")
	beside, err := os.ReadFile(filepath.Join(dir, "inc-node0.gtkw"))
	require.NoError(t, err)
	require.Contains(t, string(beside), `[dumpfile] "`+fst+`"`)
	require.Contains(t, string(beside), "message 0 LH entry")
	for _, l := range strings.Split(string(beside), "\n") {
		if strings.HasPrefix(l, "*") {
			require.Contains(t, strings.Fields(l)[2:], want, "the first LH entry in the save file beside the timeline")
		}
	}
	code, out, stderr := run(t, nil, "trace", "--at", fmt.Sprint(first), "--dump", fst)
	require.Equal(t, 0, code, stderr)
	at := filepath.Join(dir, fmt.Sprintf("inc-cycle%d.gtkw", first))
	require.Contains(t, out, "open with: gtkwave "+fst+" "+at)
	g, err := os.ReadFile(at)
	require.NoError(t, err)
	require.Contains(t, string(g), "*-6.500000 "+want+" "+want+" ")
	code, _, _ = run(t, nil, "trace", "--at", "5")
	require.Equal(t, 2, code)
}
