package verilator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/verilator/fstfile"
	"github.com/stretchr/testify/require"
)

// The native loop ends, with an error naming what it waited for, when an entry does not
// commit in time: here a stall limit shorter than a message. Its host releases the tail ring
// as it goes, so a 4 KiB ring, which the workload's tails fill many times over, takes no
// longer than the largest.
func TestNativeWorkloadEndsWhenStuck(t *testing.T) {
	cycles, err := nativeWorkload(1000, 1, 4096, 2)
	require.Error(t, err)
	require.Contains(t, err.Error(), "waited 2 cycles for LH entry 1 ")
	require.Contains(t, err.Error(), "the input was not held off")
	require.Less(t, cycles, uint64(100))

	cycles, err = NativeWorkload(1000, 1)
	require.NoError(t, err)
	require.Positive(t, cycles)
	small, err := nativeWorkload(1000, 1, 4096, NativeStallLimit)
	require.NoError(t, err)
	require.Equal(t, cycles, small)
}

// A trace that cannot be written is an error, not a run without a waveform.
func TestTraceUnwritable(t *testing.T) {
	for _, path := range []string{"/nonexistent/dir/x.fst", t.TempDir()} {
		r, err := New(path)
		require.Error(t, err, path)
		require.Nil(t, r)
		require.Contains(t, err.Error(), "verilator: trace: ")
		require.NotContains(t, err.Error(), fstfile.ReserveSuffix, "the reserve's name, not the user's file")
	}
}

// The trace's value changes reach the file as the run goes: the files as they stand while
// the model still runs (as a process that dies would leave them), finished, read in fst2vcd
// up to the last flush.
func TestTraceFlushesAsItGoes(t *testing.T) {
	fst2vcd, err := exec.LookPath("fst2vcd")
	if err != nil {
		t.Skip("fst2vcd (Debian package gtkwave) is not installed: scripts/setup.sh installs it")
	}
	dir := t.TempDir()
	live := filepath.Join(dir, "live.fst")
	r, err := New(live)
	require.NoError(t, err)
	defer r.Close()
	r.Reset()
	var p gosim.Pins
	const cycles = 1000
	for range cycles {
		r.Cycle(&p)
	}
	// What a crash now would leave: copies of the file and of its hierarchy.
	dead := filepath.Join(dir, "dead.fst")
	for _, suffix := range []string{"", ".hier"} {
		b, err := os.ReadFile(live + suffix)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dead+suffix, b, 0o644))
	}
	flushed := (cycles + 4) / TraceFlushCycles * TraceFlushCycles // RTL cycles, reset included
	end := flushed*10 - 5                                         // a flush writes through the cycle it was asked in
	// Readable as it is, the hierarchy beside it (all a process that dies in the harness
	// leaves, on the cgo bridge)...
	lastTime(t, fst2vcd, dead, end)
	// ...and, finished (what the plugin bridge's harness does), on its own.
	f, err := FinishTrace(dead)
	require.NoError(t, err)
	require.True(t, f.Finished)
	require.Equal(t, int(flushed/TraceFlushCycles), f.Blocks)
	require.Equal(t, end, f.End)
	require.NoFileExists(t, dead+".hier")
	lastTime(t, fst2vcd, dead, end)

	// A trace closed normally needs nothing.
	require.NoError(t, r.Close())
	f, err = FinishTrace(live)
	require.NoError(t, err)
	require.False(t, f.Finished)
	lastTime(t, fst2vcd, live, uint64(cycles+4)*10-5)
}

// lastTime requires fst2vcd to read path, with values up to time end and none after.
func lastTime(t *testing.T, fst2vcd, path string, end uint64) {
	t.Helper()
	out, err := exec.Command(fst2vcd, path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	vcd := strings.TrimSpace(string(out))
	require.Contains(t, vcd, "$var wire 1 ", "the signals")
	last := vcd[strings.LastIndex(vcd, "\n#")+1:]
	if i := strings.IndexByte(last, '\n'); i >= 0 {
		last = last[:i]
	}
	require.Equal(t, "#"+itoa(end), last, "the last time with values")
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
