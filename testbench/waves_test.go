package testbench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/verilator"
	"github.com/lhsim/lhsim/waves"
	"github.com/stretchr/testify/require"
)

// Waveforms. WAVES=1 records an FST of the RTL for every device a test opens, at
// build/waves/<Test>_<Subtest>.fst (or in $LHSIM_WAVES_DIR), with a GTKWave save file beside it. A randomized test run
// through forSeeds that fails without one runs its seed again with recording on, so every
// failure comes with a waveform; `make waves TEST=...` opens one.

// rerunSuffix names the subtest that runs a failed seed again with waveforms on.
const rerunSuffix = "_waves"

var (
	wavesMu     sync.Mutex
	wavesForced = map[string]bool{} // tests running again to record a waveform
	wavesUsed   = map[string]int{}  // waveform names handed out, for tests with several devices
)

// wavesOn reports whether t records waveforms.
func wavesOn(t testing.TB) bool {
	if v := os.Getenv("WAVES"); v != "" && v != "0" {
		return true
	}
	wavesMu.Lock()
	defer wavesMu.Unlock()
	for name := t.Name(); name != "."; name = filepath.Dir(name) {
		if wavesForced[name] {
			return true
		}
	}
	return false
}

// repoRoot is the folder holding go.mod.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return dir
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// waveName is the file name (without extension) of t's waveform: the test's name with the
// re-run suffix removed, so that a re-run and a WAVES=1 run of a seed write the same file.
func waveName(t testing.TB) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, rerunSuffix)
	}
	name := unsafeChars.ReplaceAllString(strings.Join(parts, "_"), "_")
	wavesMu.Lock()
	defer wavesMu.Unlock()
	wavesUsed[name]++
	if n := wavesUsed[name]; n > 1 {
		name = fmt.Sprintf("%s_%d", name, n)
	}
	return name
}

// recording is one device's waveform.
type recording struct {
	dump, save string
	events     *waves.Events
}

// startWaves returns where the device t opens should record, or nil when t records none (or
// the model has no RTL).
func startWaves(t testing.TB) *recording {
	if !wavesOn(t) {
		return nil
	}
	if model() == "go" {
		t.Log("waves: LHSIM_MODEL=go has no RTL to record")
		return nil
	}
	dir := os.Getenv("LHSIM_WAVES_DIR") // tests of this file write elsewhere
	if dir == "" {
		dir = filepath.Join(repoRoot(), "build", "waves")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("waves: %v", err)
		return nil
	}
	name := waveName(t)
	return &recording{dump: filepath.Join(dir, name+".fst"), save: filepath.Join(dir, name+".gtkw")}
}

// trace is the FST path to give the device ("" for none).
func (r *recording) trace() string {
	if r == nil {
		return ""
	}
	return r.dump
}

// watch scans the board for the events the save file marks.
func (r *recording) watch(b *gosim.Board, cfg drivers.Config) {
	if r == nil {
		return
	}
	r.events = waves.NewEvents(waves.Rule{LHS: cfg.LHS, SizePos: cfg.SizePos, MaxMsg: cfg.MaxMsg})
	b.OnCycle(r.events.Observe)
	r.events.WatchLockstep(b) // a failed lockstep comparison opens at its first mismatch
}

// finish writes the save file once the device is closed (its dump complete) and, if the test
// failed, says where the waveform is and how to open it.
func (r *recording) finish(t testing.TB) {
	if r == nil {
		return
	}
	var markers []waves.Marker
	if r.events != nil {
		markers = r.events.Markers(hw.ResetCycles)
		if t.Failed() {
			markers = append(markers, waves.Marker{Name: "end of the failed test",
				Time: (r.events.Last() + hw.ResetCycles) * waves.CycleTime})
		}
	}
	if err := waves.ForRun(r.dump, gosim.DefaultParams, markers).Write(r.save); err != nil {
		t.Logf("waves: %v", err)
		return
	}
	rel := func(p string) string {
		if q, err := filepath.Rel(repoRoot(), p); err == nil && !strings.HasPrefix(q, "..") {
			return q
		}
		return p
	}
	if t.Failed() {
		t.Logf("waveform: %s (GTKWave: gtkwave %s %s, or make waves TEST='%s')",
			rel(r.dump), rel(r.dump), rel(r.save), strings.ReplaceAll(t.Name(), rerunSuffix, ""))
	}
}

// forSeeds runs body once per seed (seeds(n)) as a subtest named after the seed. A seed that
// fails while no waveform was recorded runs again, as subtest "<seed>_waves", with recording
// on: it fails again the same way (the run is deterministic) and says where its waveform is.
func forSeeds(t *testing.T, n int, body func(t *testing.T, seed uint64)) {
	for _, seed := range seeds(n) {
		name := fmt.Sprint(seed)
		run := func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Log(replay(t, seed))
				}
			}()
			body(t, seed)
		}
		if t.Run(name, run) || wavesOn(t) || model() == "go" {
			continue
		}
		t.Run(name+rerunSuffix, func(t *testing.T) {
			wavesMu.Lock()
			wavesForced[t.Name()] = true
			wavesMu.Unlock()
			t.Logf("seed %d failed without a waveform: running it again with WAVES=1", seed)
			body(t, seed)
		})
	}
}

// TestWavesOnFailureHelper is a randomized test whose seed 2 fails; TestWavesOnFailure runs it
// in a child process.
func TestWavesOnFailureHelper(t *testing.T) {
	if os.Getenv("LHSIM_WAVES_HELPER") == "" {
		t.Skip("run by TestWavesOnFailure")
	}
	forSeeds(t, 2, func(t *testing.T, seed uint64) {
		d := newDUT(t, gosim.BoardConfig{Seed: seed}, drivers.Config{LHS: true})
		require.NoError(t, d.dev.Inject(envelope(1, 2, 3, 20)))
		require.NoError(t, d.dev.Inject(envelope(1, 2, 3, 300)))
		require.NoError(t, d.dev.RunUntilIdle(10000))
		require.NotEqual(t, uint64(2), seed, "seed 2 fails on purpose")
	})
}

// A randomized test that fails without WAVES runs the failing seed again with a waveform and
// says where it is; the passing seed records nothing.
func TestWavesOnFailure(t *testing.T) {
	if model() == "go" {
		t.Skip("the go model has no RTL to record")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWavesOnFailureHelper$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "LHSIM_WAVES_HELPER=1", "LHSIM_WAVES_DIR="+dir, "WAVES=", "SEED=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper fails on purpose:\n%s", out)
	log := string(out)
	require.Contains(t, log, "--- PASS: TestWavesOnFailureHelper/1 ")
	require.Contains(t, log, "--- FAIL: TestWavesOnFailureHelper/2 ")
	require.Contains(t, log, "replay with SEED=2")
	require.Contains(t, log, "seed 2 failed without a waveform: running it again with WAVES=1")
	require.Contains(t, log, "--- FAIL: TestWavesOnFailureHelper/2_waves ")
	require.NotContains(t, log, "1_waves")
	dump := filepath.Join(dir, "TestWavesOnFailureHelper_2.fst")
	require.Contains(t, log, "waveform: "+dump)
	st, err := os.Stat(dump)
	require.NoError(t, err)
	require.Positive(t, st.Size())
	save, err := os.ReadFile(filepath.Join(dir, "TestWavesOnFailureHelper_2.gtkw"))
	require.NoError(t, err)
	require.Regexp(t, `\[markername\] [A-Z].*first split message`, string(save))
	require.Contains(t, string(save), "end of the failed test\n")
	_, err = os.Stat(filepath.Join(dir, "TestWavesOnFailureHelper_1.fst"))
	require.True(t, os.IsNotExist(err), "a passing seed records no waveform")
}

// failedTB is a test that has failed, for finish.
type failedTB struct{ testing.TB }

func (failedTB) Failed() bool { return true }

// brokenModel is the golden model with s_msg_tready wrong from cycle from on.
type brokenModel struct {
	*gosim.Model
	cycle, from uint64
}

func (m *brokenModel) Cycle(p *gosim.Pins) {
	m.Model.Cycle(p)
	if m.cycle >= m.from {
		p.MsgReady ^= 1
	}
	m.cycle++
}

// A failed lockstep test's save file has a marker at the first cycle the RTL and the model
// disagreed, and opens there.
func TestWavesOpenAtFirstMismatch(t *testing.T) {
	if model() == "go" {
		t.Skip("the go model has no RTL to record")
	}
	dir := t.TempDir()
	r := &recording{dump: filepath.Join(dir, "m.fst"), save: filepath.Join(dir, "m.gtkw")}
	rtl, err := verilator.New(r.dump)
	require.NoError(t, err)
	m, err := gosim.NewModel(gosim.DefaultParams)
	require.NoError(t, err)
	b := gosim.NewBoard(&gosim.Lockstep{A: rtl, B: &brokenModel{Model: m, from: 300}}, gosim.BoardConfig{Seed: 1})
	r.watch(b, drivers.Config{LHS: true, SizePos: 12, MaxMsg: 65535})
	require.NoError(t, b.Inject(envelope(1, 2, 3, 300)))
	require.NoError(t, b.Run(400))
	require.ErrorContains(t, b.Close(), "lockstep: cycle 300 after reset")
	r.finish(failedTB{t})
	save, err := os.ReadFile(r.save)
	require.NoError(t, err)
	at := (300 + hw.ResetCycles) * waves.CycleTime
	require.Contains(t, string(save), fmt.Sprintf("*-6.500000 %d %d ", at, at), "the cursor on the mismatch, marker A")
	require.Contains(t, string(save), "[markername] A"+waves.FirstMismatch+"\n")
	require.Contains(t, string(save), fmt.Sprintf("[timestart] %d\n", at-8*waves.CycleTime))
}
