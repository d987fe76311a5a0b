package device_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// stretchRun is what one board did: everything a run changed (gosim.Board.MarshalState: the
// RTL's whole state, the SO-DIMM, source, host queues, counters, ports), the event pulses
// Watch reported, the entries Receive read, and how often the board reported progress.
type stretchRun struct {
	state    []byte
	events   []device.Event
	entries  []byte
	cycles   uint64
	advances int
	// Of them, the Feed batches'.
	feedCycles   uint64
	feedAdvances int
}

// runStretchScenario drives a cgo RTL device through every call that runs stretches: Feed
// batches through a 256-byte tail ring (messages wait for the host's releases), Receive, Run
// with a vector load issued by posted writes (memory reads in the middle of a stretch), and
// RunUntilIdle. With perCycle an OnCycle observer keeps the board to one cycle a call.
func runStretchScenario(t *testing.T, perCycle bool, trace string) stretchRun {
	t.Helper()
	l, err := device.OpenLocal(device.Config{Model: device.RTL, Bridge: device.Cgo, Trace: trace})
	require.NoError(t, err)
	var r stretchRun
	if perCycle {
		l.OnCycle(func(uint64, *gosim.Pins) {})
	}
	l.OnAdvance(func(uint64) { r.advances++ })
	l.Watch(func(cycle uint64, ev drivers.Events) {
		r.events = append(r.events, device.Event{Cycle: cycle, Flags: ev})
	})
	msgs := rx.WorkloadMessages(1200, 7)
	require.NoError(t, l.WriteReg(hw.RegTailSize, 256))
	require.NoError(t, l.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn))
	require.NoError(t, l.Feed(nil, false, 1))
	c0, a0 := l.Cycle(), r.advances
	require.NoError(t, l.FeedAll(4, func(k int) [][]byte { return msgs[k*200 : (k+1)*200] }, 100_000))
	r.feedCycles, r.feedAdvances = l.Cycle()-c0, r.advances-a0
	// A vector load of 256 bytes from the ring, posted, then run: its reads go out in the
	// middle of what would be one stretch.
	for _, w := range [][2]uint32{{hw.RegVecMemAddr, 0}, {hw.RegVecWinOff, 0}, {hw.RegVecLen, 256}, {hw.RegVecCmd, hw.VecOpVL}} {
		l.Post(w[0], w[1])
	}
	// Inline messages (no tail to release) the host does not take: they stay in the LH buffer.
	injected := 0
	for _, m := range msgs[800:900] {
		if len(m) <= hw.InlineMax && injected < 8 {
			require.NoError(t, l.Inject(m))
			injected++
		}
	}
	require.Equal(t, 8, injected)
	require.NoError(t, l.Run(300))
	require.NoError(t, l.RunUntilIdle(100_000))
	// Receive's host reads each entry by PIO, so it waits for each commit.
	r.entries, err = l.Receive(msgs[900:1000], 100, 100_000)
	require.NoError(t, err)
	require.NoError(t, l.Run(5000))
	r.cycles = l.Cycle()
	r.state, err = l.MarshalState()
	require.NoError(t, err)
	require.NoError(t, l.Close())
	return r
}

// A stretch of cycles in one C call (gosim.Board.RunWhile, verilator.RTL.RunStretch) does
// what the same cycles a call at a time do: the same RTL state, memory, counters, ports,
// event pulses and entries, and the same waveform, every cycle of it. And the stretches are
// really taken: the fast board reports progress far less often than once a cycle.
func TestStretchesAreCycles(t *testing.T) {
	// A traced model's saved state holds the trace's own bookkeeping, which differs from run
	// to run: the states are compared untraced, the waveforms traced.
	fast := runStretchScenario(t, false, "")
	slow := runStretchScenario(t, true, "")
	require.Equal(t, slow.cycles, fast.cycles)
	require.Equal(t, slow.events, fast.events)
	require.Equal(t, slow.entries, fast.entries)
	require.True(t, slow.state != nil && string(slow.state) == string(fast.state), "the boards' states differ")
	require.Equal(t, int(slow.cycles), slow.advances, "one cycle a call")
	require.Less(t, 4*fast.advances, int(fast.cycles), "stretches run: %d calls for %d cycles", fast.advances, fast.cycles)
	require.Less(t, 100*fast.feedAdvances, int(fast.feedCycles), "Feed's batches run in stretches: %d calls for %d cycles",
		fast.feedAdvances, fast.feedCycles)
	require.Greater(t, len(fast.events), 800, "a pulse a message at least")

	if _, err := exec.LookPath("fst2vcd"); err != nil {
		t.Skip("fst2vcd (GTKWave) not installed: the waveforms are not compared")
	}
	dir := t.TempDir()
	vcd := func(perCycle bool) string {
		path := filepath.Join(dir, fmt.Sprintf("%v.fst", perCycle))
		r := runStretchScenario(t, perCycle, path)
		require.Equal(t, fast.events, r.events, "traced or not")
		out, err := exec.Command("fst2vcd", "-f", path).Output()
		require.NoError(t, err)
		// The header's date is the writer's clock.
		s := string(out)
		if i := strings.Index(s, "$date"); i >= 0 {
			if j := strings.Index(s[i:], "$end"); j > 0 {
				s = s[:i] + s[i+j:]
			}
		}
		return s
	}
	a, b := vcd(false), vcd(true)
	require.Greater(t, strings.Count(a, "\n#"), int(fast.cycles), "a time step a half cycle")
	require.True(t, a == b, "the waveforms differ")
}
