package device_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/verilator"
)

// faultCycle is where the broken builds stop: inside the third batch of 64 messages.
const faultCycle = 3000

// openFaulty opens the RTL in a plugin process that stops as fault says.
func openFaulty(t *testing.T, fault string, watchdog time.Duration) (*device.Remote, error) {
	t.Helper()
	c, err := device.OpenRemote(device.Config{Model: device.RTL, Board: gosim.BoardConfig{Seed: 1}},
		plugin.Options{Label: t.Name(), Watchdog: watchdog, Env: []string{plugin.FaultEnv + "=" + fault}})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// receiveUntilError feeds the workload in batches of 64 and checks every entry it gets back,
// until the device fails. It returns the entries checked and the error.
func receiveUntilError(t *testing.T, c *device.Remote) (int, error) {
	t.Helper()
	_, err := drivers.NewHost(c, drivers.Config{LHS: true})
	require.NoError(t, err)
	msgs := rx.WorkloadMessages(64*20, 1)
	got := 0
	for i := 0; i < len(msgs); i += 64 {
		entries, err := c.Receive(msgs[i:i+64], 64, 1_000_000)
		for k := 0; k*hw.EntryBytes < len(entries); k++ {
			m := msgs[i+k]
			require.Equal(t, m[:16], entries[k*hw.EntryBytes:][:16], "entry %d", i+k)
			got++
		}
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// TestCrashIsolation stops the RTL's process in every way the brief names, at a known cycle,
// and checks that the harness survives and reports the device, the call, the cycle, the
// process's last words and the recent calls; that the results before the crash are kept;
// that the dead device keeps answering with the same report; and that the next device works.
func TestCrashIsolation(t *testing.T) {
	cases := []struct {
		fault    string
		exit     string // how the process ended
		stderr   string // a line it printed
		watchdog time.Duration
	}{
		{"fatal", "exit status 2", "%Error: rtl/lhs_top.v:0: Verilog $stop", 0},
		{"abort", "exit status 2", "SIGABRT: abort", 0},
		{"segv", "exit status 2", "SIGSEGV: segmentation violation", 0},
		{"panic", "exit status 2", "panic: plugin: LHSIM_PLUGIN_FAULT=panic@3000: injected panic at cycle 3000", 0},
		{"exit", "exit status 3", "", 0},
		{"hang", "exit status 2", "SIGQUIT: quit", time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			c, err := openFaulty(t, fmt.Sprintf("%s@%d", tc.fault, faultCycle), tc.watchdog)
			require.NoError(t, err)
			got, err := receiveUntilError(t, c)
			require.Error(t, err)
			require.ErrorIs(t, err, plugin.ErrCrashed)
			var ce *plugin.CrashError
			require.ErrorAs(t, err, &ce)
			t.Logf("the report:\n%v", err)
			if ce.StderrFile != "" {
				require.FileExists(t, ce.StderrFile)
				os.Remove(ce.StderrFile)
			}

			require.Equal(t, 128, got, "the two batches before the crash are kept")
			require.Equal(t, uint64(faultCycle), ce.Cycle, "the cycle it stopped at")
			require.Equal(t, "Receive", ce.Call.Call)
			require.Equal(t, c.Conn().Pid(), ce.Pid)
			require.Equal(t, tc.fault == "hang", ce.Hung)
			require.Equal(t, tc.fault == "hang", errors.Is(err, plugin.ErrHung))
			require.Contains(t, ce.Exit, tc.exit)
			msg := err.Error()
			require.Contains(t, msg, t.Name())
			require.Contains(t, msg, fmt.Sprintf("at cycle %d during Receive", faultCycle))
			if tc.stderr != "" {
				require.Contains(t, strings.Join(ce.Stderr, "\n"), tc.stderr)
			}
			last := ce.Recent[len(ce.Recent)-1]
			require.Equal(t, "Receive", last.Call)
			require.Equal(t, "no reply", last.Err)
			require.Contains(t, msg, "Receive(64 messages, 64 entries) from cycle")
			require.Equal(t, "Receive", ce.Recent[len(ce.Recent)-2].Call, "the batch before, which worked")
			require.Empty(t, ce.Recent[len(ce.Recent)-2].Err)

			// The dead device answers at once, with the same report, and Close says so too.
			t0 := time.Now()
			_, err2 := c.ReadReg(hw.RegID)
			require.Same(t, ce, errorsAsCrash(t, err2))
			require.Less(t, time.Since(t0), 100*time.Millisecond)
			require.Same(t, ce, errorsAsCrash(t, c.Close()))
		})
	}
	t.Run("next device works", func(t *testing.T) {
		c, err := device.OpenRemote(device.Config{Model: device.RTL, Board: gosim.BoardConfig{Seed: 1}}, plugin.Options{Label: t.Name()})
		require.NoError(t, err)
		defer c.Close()
		got, err := receiveUntilError(t, c)
		require.NoError(t, err)
		require.Equal(t, 64*20, got)
	})
}

func errorsAsCrash(t *testing.T, err error) *plugin.CrashError {
	t.Helper()
	var ce *plugin.CrashError
	require.ErrorAs(t, err, &ce)
	return ce
}

// TestWatchdogSparesProgress runs one long call, far longer than the watchdog's limit: a
// call that keeps making cycles is not a hang.
func TestWatchdogSparesProgress(t *testing.T) {
	const limit = 500 * time.Millisecond // long enough that a loaded machine's scheduling gaps do not trip it
	c, err := device.OpenRemote(device.Config{Model: device.RTL}, plugin.Options{Label: t.Name(), Watchdog: limit})
	require.NoError(t, err)
	defer c.Close()
	t0 := time.Now()
	require.NoError(t, c.Run(15_000_000))
	require.Greater(t, time.Since(t0), 2*limit, "the call must outlast the watchdog for this test to mean anything")
	require.Equal(t, uint64(15_000_000), c.Cycle())
}

// TestBuildMismatch checks both halves of the versioning: another go-plugin protocol
// version, and the same version from another build (protocol digest or RTL library).
func TestBuildMismatch(t *testing.T) {
	_, err := openFaulty(t, "build", 0)
	require.Error(t, err)
	require.Contains(t, err.Error(), "harness and plugin come from different builds: harness "+device.BuildID()+", plugin "+device.BuildID()+"-other")
	require.Contains(t, err.Error(), "make plugin")

	_, err = openFaulty(t, "protocol", 0)
	require.Error(t, err)
	require.Contains(t, err.Error(), "speaks another protocol version")
	require.Contains(t, err.Error(), "different builds")
}

// TestFaultHookRejectsNonsense: a mistyped fault must not silently run a healthy plugin.
func TestFaultHookRejectsNonsense(t *testing.T) {
	_, err := openFaulty(t, "abort", 0)
	require.Error(t, err)
	require.Contains(t, err.Error(), "LHSIM_PLUGIN_FAULT=\"abort\"")
}

// TestCrashLeavesWaveform: a plugin that dies while tracing leaves an FST file that fst2vcd
// reads up to the last flush before the crash (verilator.TraceFlushCycles), for a death in C
// (a $fatal) and in Go (a panic) alike; the report says where the waveform ends.
func TestCrashLeavesWaveform(t *testing.T) {
	fst2vcd, err := exec.LookPath("fst2vcd")
	if err != nil {
		t.Skip("fst2vcd (Debian package gtkwave) is not installed: scripts/setup.sh installs it")
	}
	for _, fault := range []string{"fatal", "panic"} {
		t.Run(fault, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "crash.fst")
			c, err := device.OpenRemote(device.Config{Model: device.RTL, Trace: trace, Board: gosim.BoardConfig{Seed: 1}},
				plugin.Options{Label: t.Name(), Env: []string{fmt.Sprintf("%s=%s@%d", plugin.FaultEnv, fault, faultCycle)}})
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			_, err = receiveUntilError(t, c)
			require.ErrorIs(t, err, plugin.ErrCrashed)
			require.Contains(t, err.Error(), "waveform "+trace+": finished after the crash, up to ")
			require.NoFileExists(t, trace+".hier", "the hierarchy is in the file now")

			out, err := exec.Command(fst2vcd, trace).CombinedOutput()
			require.NoError(t, err, "fst2vcd %s:\n%s", trace, out)
			vcd := string(out)
			require.Contains(t, vcd, "$var wire 1 ")
			require.Contains(t, vcd, " s_msg_tready ")
			last := vcd[strings.LastIndex(vcd, "\n#")+2:]
			end, err := strconv.ParseUint(strings.TrimSpace(last[:strings.IndexByte(last+"\n", '\n')]), 10, 64)
			require.NoError(t, err)
			// Board cycle c is dumped at 10(c + reset cycles) ns.
			crash := (faultCycle + hw.ResetCycles) * 10
			require.LessOrEqual(t, end, uint64(crash))
			require.Greater(t, end, uint64(crash)-10*verilator.TraceFlushCycles-20, "the waveform ends more than one flush interval before the crash")
			require.Contains(t, err2str(c.Close()), fmt.Sprintf("up to %d ns", end))
		})
	}
}

func err2str(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
