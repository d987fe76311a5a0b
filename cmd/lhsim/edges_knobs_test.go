package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The edges of the models' knobs (issue 37, class 4; make edges): every knob of a command
// under every preset of it, each at two values in range and at values out of it. A knob
// works (exit 0, and its two values in range give different results: it is visibly in
// effect) or is refused with its reason (exit 2, one line under the command's prefix);
// never a panic, never a run that ignores it (its two values giving the same bytes).

// knobSweep is one command's knobs under its presets.
type knobSweep struct {
	cmd     []string
	preset  string              // the flag that chooses a preset ("" for none)
	presets map[string][]string // each preset's small base run (its value -> the flags)
	// knobs are every knob's two values in range (they must differ in effect); a flag in
	// the command's -h that is neither here nor in notKnobs fails the sweep.
	knobs map[string][2]string
	// with are flags a knob needs beside it.
	with map[string][]string
	// notKnobs are the command's flags that are no knob of its model, each with why.
	notKnobs map[string]string
}

// commonNotKnobs are the runner's flags every command shares: outputs, parts, Slurm.
var commonNotKnobs = []string{"json", "out", "plot", "cpuprofile", "memprofile", "jobs", "threads", "slurm",
	"slurm-dir", "slurm-task", "slurm-wait", "account", "partition", "per-task", "sbatch-args", "time-limit", "dry-run",
	"timeline", "timeline-links", "timeline-max", "timeline-ranks", "timeline-sample", "timeline-window"}

// outOfRange are tried on every knob: each must be refused (exit 2) or, where it is a
// value the knob takes, run to a sane result.
var outOfRange = []string{"-1", "0", "1e30", "NaN", "x", "-3c", "1e30ns"}

func knobSweeps(t *testing.T) []knobSweep {
	goalFile, err := filepath.Abs("../../netsim/goal/testdata/pingpong.goal")
	require.NoError(t, err)
	window := []string{"--topology", "torus:4x4", "--load", "0.1", "--warmup", "500", "--measure", "1000", "--drain", "2000", "--json"}
	delays := [2]string{"1c", "3c"}
	return []knobSweep{
		{
			cmd: []string{"traffic"}, preset: "preset",
			presets: map[string][]string{"nsim": window, "seed002": window, "booksim": {"--topology", "torus:4x4", "--load", "0.1", "--json"}},
			knobs: map[string][2]string{
				"arbiter": {"round-robin", "oldest-first"}, "buffer-flits": {"4", "16"}, "cable": delays, "clock": {"2ns", "5ns"},
				"drain": {"1000", "5000"}, "eject-flits": {"8", "32"}, "flit-bytes": {"8", "32"}, "link-bw": {"2", "8"},
				"load": {"0.05", "0.2"}, "measure": {"800", "1500"}, "packet-flits": {"2", "8"}, "pattern": {"transpose", "bitcomp"},
				"routing-delay": delays, "seed": {"2", "3"}, "sw-alloc-delay": delays, "switch-bw": {"2", "8"},
				"switch-latency": delays, "topology": {"torus:4x4", "torus:2x8"}, "torus-bw": {"2", "8"},
				"torus-latency": {"1c", "1c,3c"}, "vc-alloc-delay": delays, "vcs": {"2", "4"}, "warmup": {"300", "800"},
			},
			notKnobs: map[string]string{"all-loads": "goes on past a saturated load; the base run saturates none",
				"allow-deadlock": "lets a deadlock-prone set-up run; the base has none"},
		},
		{
			cmd: []string{"goal"}, preset: "network",
			presets: map[string][]string{"loggp": {"--schedule", goalFile, "--json"}, "packet": {"--schedule", goalFile, "--topology", "crossbar:4", "--json"}},
			knobs: map[string][2]string{
				"G": {"2", "10"}, "L": {"1000", "5000"}, "O": {"1", "2"}, "S": {"100", "100000"}, "g": {"500", "2000"}, "o": {"1000", "2000"},
				"node-latency": {"0.5", "2"}, "topology": {"crossbar:4", "torus:2x2"}, "matcher": {"list", "lhs"},
				"rtl-nodes": {"0", "1"}, "matcher-rtl-nodes": {"0", "1"},
			},
			with: map[string][]string{"matcher-rtl-nodes": {"--matcher", "lhs"}},
			notKnobs: map[string]string{"schedule": "the input", "qstat": "an output", "trace": "a waveform (TestEdgesPaths)", "trace-file": "a waveform",
				"max-memory": "a limit, not the model's (TestEdgesLimits)",
				"stdsort":    "orders only operations freed together; the base schedule has none"},
		},
		{
			cmd: []string{"barrier"}, preset: "algorithm",
			presets: map[string][]string{
				"ring":               {"--topology", "crossbar:8", "--processes", "4", "--node-latency", "1", "--json"},
				"recursive_doubling": {"--topology", "crossbar:8", "--processes", "4", "--node-latency", "1", "--json"},
				"dissemination":      {"--topology", "crossbar:8", "--processes", "4", "--node-latency", "1", "--json"},
			},
			knobs: map[string][2]string{"node-latency": {"0.5", "2"}, "processes": {"4", "8"}, "ring-max": {"2", "8"},
				"topology": {"crossbar:8", "torus:2x4"}},
			notKnobs: map[string]string{},
		},
		{
			cmd: []string{"alltoall"}, preset: "algorithm",
			presets: map[string][]string{
				"suh-shin": {"--torus", "4x4x4", "--sizes", "8", "--schemes", "sync_at_start", "--json"},
				"direct":   {"--torus", "4x4x4", "--sizes", "8", "--schemes", "sync_at_start", "--json"},
			},
			knobs: map[string][2]string{"node-latency": {"0.5", "2"}, "schemes": {"sync_at_start", "proposed"}, "sizes": {"8", "64"},
				"sync-rule": {"stamped", "paper"}, "torus": {"4x4x4", "4x4x8"}, "seed": {"2", "3"},
				"equal-latency": {"false", "true"}, "heavy": {"false", "true"}, "uneven": {"false", "true"}},
			// seed and the rules that apply to one scheme need it beside them.
			with:     map[string][]string{"seed": {"--uneven"}, "sync-rule": {"--schemes", "proposed"}},
			notKnobs: map[string]string{},
		},
	}
}

// isBool is a flag that takes its value after = only.
func isBool(help, flag string) bool {
	return regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(flag) + `$`).MatchString(help)
}

func TestEdgesKnobs(t *testing.T) {
	if os.Getenv("LHSIM_EDGES") == "" {
		t.Skip("make edges runs it (LHSIM_EDGES=1)")
	}
	var tally edgeTally
	tally.report(t, "TestEdgesKnobs")
	outside := t.TempDir()
	flagLine := regexp.MustCompile(`(?m)^  -([A-Za-z0-9-]+)`)
	impossible := regexp.MustCompile(`NaN|[+-]?Inf|-?9223372036854775|-?9\.22337e\+18`)
	silent := map[string]bool{} // knob runs whose two values gave the same bytes
	for _, s := range knobSweeps(t) {
		name := "lhsim " + strings.Join(s.cmd, " ")
		code, help, _ := edgeRun(t, &tally, outside, "", nil, append(append([]string{}, s.cmd...), "-h"))
		require.Equal(t, 0, code)
		var knobs []string
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			f := m[1]
			if f == s.preset || slices.Contains(commonNotKnobs, f) || s.notKnobs[f] != "" {
				continue
			}
			require.Contains(t, s.knobs, f, "%s: knob --%s has no values in the sweep (add them, or say in notKnobs why it is none)", name, f)
			knobs = append(knobs, f)
		}
		presets := make([]string, 0, len(s.presets))
		for p := range s.presets {
			presets = append(presets, p)
		}
		slices.Sort(presets)
		for _, p := range presets {
			for _, k := range knobs {
				arg := func(v string) []string {
					args := append(append(append([]string{}, s.cmd...), "--"+s.preset, p), s.presets[p]...)
					args = append(args, s.with[k]...)
					if isBool(help, k) {
						return append(args, "--"+k+"="+v)
					}
					return append(args, "--"+k, v)
				}
				check := func(v string) (int, string) {
					args := arg(v)
					code, stdout, stderr := edgeRun(t, &tally, outside, "", nil, args)
					require.NotContains(t, stderr, "goroutine ", "%v: a stack trace", args)
					require.NotContains(t, stderr, "panic:", "%v", args)
					switch code {
					case 0:
						require.True(t, json.Valid([]byte(stdout)), "%v: not JSON: %.300s", args, stdout)
						require.NotRegexp(t, impossible, stdout, "%v: an impossible figure", args)
					case 2:
						require.True(t, strings.HasPrefix(stderr, name+": "), "%v: %q", args, firstLine(stderr))
						if !strings.Contains(stderr, "\nusage: ") {
							require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %s", args, stderr)
						}
					default:
						t.Fatalf("%v: exit %d (want 0, or 2 refusing it): %s", args, code, stderr)
					}
					return code, stdout
				}
				ca, a := check(s.knobs[k][0])
				cb, b := check(s.knobs[k][1])
				if testing.Verbose() && (ca != 0 || cb != 0) {
					refused := s.knobs[k][0]
					if ca == 0 {
						refused = s.knobs[k][1]
					}
					_, _, e := edgeRun(t, &tally, outside, "", nil, arg(refused))
					t.Logf("%s --%s %s --%s %v: exit %d, %d: %s", name, s.preset, p, k, s.knobs[k], ca, cb, firstLine(e))
				}
				if ca == 0 && cb == 0 && a == b {
					silent[name+" --"+s.preset+" "+p+" --"+k] = true
				}
				if isBool(help, k) {
					continue
				}
				for _, v := range outOfRange {
					check(v)
				}
			}
		}
	}
	require.Empty(t, silent, "knobs whose two values gave the same result: ignored without a word")
}
