package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// measured are the JSON fields of this machine's speed (wall time, rates), and the output
// files the observers wrote, which a run without them has not.
var measured = regexp.MustCompile(`(?m)^\s*"(wall_seconds|events_per_s|sim_ns_per_wall_s|waveform|save_file|timeline_save_file)": .*\n`)

// Watching a run changes nothing in it: goal on the packet network with RTL nodes and an RTL
// matcher, and incast, give the same JSON with their observers (a timeline, a waveform and
// its markers, the machine's hooks) as without. (The timeline's link samples are engine
// events of their own: off here, so that the event counts compare too.)
func TestObserversChangeNoResult(t *testing.T) {
	dir := t.TempDir()
	sched := filepath.Join(dir, "a.goal")
	code, _, stderr := run(t, nil, "goal", "gen", "alltoall_late", "--ranks", "8", "--size", "64", "--out", sched)
	require.Equal(t, 0, code, stderr)
	cases := []struct {
		name    string
		args    []string
		watched []string
	}{
		{"goal", []string{"goal", "--schedule", sched, "--json", "--rtl-nodes", "1,2", "--matcher", "alpu:16", "--matcher-rtl-nodes", "0,3"},
			[]string{"--timeline", filepath.Join(dir, "goal.json"), "--timeline-sample", "0", "--trace", "2", "--trace-file", filepath.Join(dir, "goal.fst")}},
		{"incast", []string{"incast", "--topology", "crossbar:4", "--messages", "4", "--speed=false", "--json", "--jobs", "1"},
			[]string{"--timeline", filepath.Join(dir, "incast.json"), "--timeline-sample", "0", "--trace", "0", "--trace-file", filepath.Join(dir, "incast.fst")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, plain, stderr := run(t, nil, c.args...)
			require.Equal(t, 0, code, stderr)
			code, watched, stderr := run(t, nil, append(c.args, c.watched...)...)
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stderr, "timeline")
			require.Equal(t, measured.ReplaceAllString(plain, ""), measured.ReplaceAllString(watched, ""))
		})
	}
}
