package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// RTL runs on the parts of a machine like the models: each Verilated model is stepped by the
// goroutine of its node's part. incast with every receiver RTL (on both sides of the
// two-part torus's cut, whatever dimension it takes) and a waveform, and goal with LHS
// receive paths and RTL matchers spread over the torus and a waveform of a receive path, give
// the same JSON, and the same waveform, on 1, 2 and 3 threads. (goal's ranks learn of a
// message at the time its receive path took it, however far the path ran ahead:
// lhsnic.Config.TakenAtTime.)
func TestThreadsRTL(t *testing.T) {
	fst2vcd, err := exec.LookPath("fst2vcd")
	if err != nil {
		t.Skip("fst2vcd (Debian package gtkwave) is not installed: scripts/setup.sh installs it")
	}
	dir := t.TempDir()
	schedule := goalSchedule(t, dir, "allreduce_recdoub", "--ranks", "64", "--size", "4096")
	for _, c := range []struct {
		name string
		args []string
		on   string // the windows line of a run on threads
		wave bool
	}{
		{"incast", []string{"incast", "--topology", "torus:4x4x4", "--receivers", "34", "--rtl-nodes", "0-33", "--messages", "1", "--speed=false", "--trace", "33", "--jobs", "1"}, "lhsim incast: LHS on: ", true},
		{"goal", []string{"goal", "--schedule", schedule, "--topology", "torus:4x4x4", "--matcher", "alpu:64", "--matcher-rtl-nodes", "0,5,20,40,50,63",
			"--rtl-nodes", "0,20,40,63", "--trace", "40"}, "lhsim goal: torus:4x4x4: ", true},
		// Without a matcher a rank's next operation starts the instant the message is taken.
		{"goal-lhs", []string{"goal", "--schedule", schedule, "--topology", "torus:4x4x4", "--rtl-nodes", "0,20,40,63", "--trace", "40"}, "lhsim goal: torus:4x4x4: ", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var outs, waves []string
			for _, threads := range []string{"1", "2", "3"} {
				wave, args := filepath.Join(dir, c.name+threads+".fst"), c.args
				if c.wave {
					args = append(args, "--trace-file", wave)
				}
				code, out, stderr := run(t, nil, append(args, "--threads", threads, "--json")...)
				require.Equal(t, 0, code, "--threads %s: %s", threads, stderr)
				if threads != "1" {
					require.NotContains(t, stderr, "asked", "RTL takes the threads asked")
					require.Contains(t, stderr, c.on+threads+" threads, ")
				}
				outs = append(outs, withoutMachineFigures(regexp.MustCompile(regexp.QuoteMeta(c.name+threads)).ReplaceAllString(out, "WAVE")))
				if c.wave {
					vcd, err := exec.Command(fst2vcd, wave).Output()
					require.NoError(t, err)
					require.Greater(t, len(vcd), 10000, "a waveform with the run in it")
					waves = append(waves, vcdDate.ReplaceAllString(string(vcd), ""))
					require.NoError(t, os.Remove(wave))
				}
			}
			for i := 1; i < 3; i++ {
				require.Equal(t, outs[0], outs[i], "JSON on %d threads against 1", i+1)
				if c.wave {
					require.True(t, waves[0] == waves[i], "the waveform on %d threads is the one of 1", i+1)
				}
			}
		})
	}
}

// vcdDate is the $date section of a VCD file, the one field of a waveform that is not the run's.
var vcdDate = regexp.MustCompile(`(?s)\$date.*?\$end`)
