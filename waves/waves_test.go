package waves_test

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/waves"
	"github.com/stretchr/testify/require"
)

// TestGTKWave records the default scenario and opens its waveform with its save file in the
// real GTKWave: every signal the save file names must be displayed (so it is in the dump), the
// markers must sit where the events are, and the values at them must show those events.
func TestGTKWave(t *testing.T) {
	dir := t.TempDir()
	r, err := waves.Record(dir)
	require.NoError(t, err)
	require.Len(t, r.Markers, 6)
	letter := map[string]byte{}
	for i, m := range r.Markers {
		letter[m.Name] = byte('A' + i)
	}
	s := func(name string) string { return waves.Scope + "." + name }
	probes := []waves.Probe{
		{letter[waves.FirstStall], s("s_msg_tvalid")},
		{letter[waves.FirstStall], s("s_msg_tready")},
		{letter[waves.FirstSplit], s("s_msg_tvalid")},
		{letter[waves.FirstSplit], s("s_msg_tready")},
		{letter[waves.FirstSplit], s("rx.state_reg[1:0]")},
		{letter[waves.FirstSplit], s("s_msg_tdata[127:0]")},
		{letter[waves.FirstCommit], s("ev_commit")},
		{letter[waves.FirstVL], s("host_addr[19:0]")},
		{letter[waves.FirstVL], s("host_wdata[31:0]")},
		{letter[waves.FirstVS], s("host_wdata[31:0]")},
		{letter[waves.LHFull], s("rx.lh_full")},
		{letter[waves.LHFull], s("rx.prod_reg[31:0]")},
		{letter[waves.LHFull], s("rx.cons_reg[31:0]")},
	}
	v, err := waves.Open(context.Background(), r.Dump, r.Save, probes)
	if errors.Is(err, waves.ErrNoGTKWave) {
		t.Skipf("GTKWave check skipped: %v", err)
	}
	require.NoError(t, err)
	require.Empty(t, v.Missing, "signals in the save file that GTKWave did not find in the dump")
	require.Len(t, v.Signals, len((&waves.SaveFile{Groups: waves.Layout(gosim.DefaultParams)}).Signals()))
	for i, m := range r.Markers {
		require.EqualValues(t, m.Time, v.Markers[byte('A'+i)], "marker %c (%s)", 'A'+i, m.Name)
	}
	require.EqualValues(t, -1, v.Markers[byte('A'+len(r.Markers))])
	require.EqualValues(t, (r.Cycles+4)*waves.CycleTime-5, v.MaxTime, "the dump ends with the run's last clock edge")

	val := func(i int) string { return v.Values[probes[i]] }
	require.Equal(t, "1", val(0), "tvalid at the first back-pressure")
	require.Equal(t, "0", val(1), "tready at the first back-pressure")
	require.Equal(t, "1", val(2), "tvalid at the first split message")
	require.Equal(t, "1", val(3), "tready at the first split message")
	require.Equal(t, "FIRST", val(4), "the splitter's state, named by the save file's filter")
	tdata, ok := new(big.Int).SetString(val(5), 16)
	require.True(t, ok, "tdata %q", val(5))
	size := new(big.Int).Rsh(tdata, 96).Uint64() & 0xffffffff // size field: bytes 12..15
	require.Greater(t, size, uint64(hw.InlineMax), "the first split message's size field")
	require.Equal(t, "1", val(6))
	require.Equal(t, "0004C", val(7), "VEC_CMD written at the first VL")
	require.Equal(t, "00000001", val(8))
	require.Equal(t, "00000002", val(9))
	require.Equal(t, "1", val(10), "lh_full at the marker")
	prod, _ := strconv.Atoi(val(11))
	cons, _ := strconv.Atoi(val(12))
	require.Equal(t, 1024, prod-cons, "LH_PROD - LH_CONS when the buffer filled")
}

// A signal the dump lacks is reported, not silently dropped as GTKWave would.
func TestGTKWaveMissingSignal(t *testing.T) {
	dir := t.TempDir()
	r, err := waves.Record(dir)
	require.NoError(t, err)
	save := &waves.SaveFile{Dump: r.Dump, Cursor: -1, Groups: []waves.Group{{Name: "g", Traces: []waves.Trace{
		{Name: waves.Scope + ".s_msg_tvalid"}, {Name: waves.Scope + ".rx.no_such_reg[3:0]", Format: waves.Hex}}}}}
	path := filepath.Join(dir, "bad.gtkw")
	require.NoError(t, save.Write(path))
	v, err := waves.Open(context.Background(), r.Dump, path, nil)
	if errors.Is(err, waves.ErrNoGTKWave) {
		t.Skipf("GTKWave check skipped: %v", err)
	}
	require.NoError(t, err)
	require.Equal(t, []string{waves.Scope + ".rx.no_such_reg[3:0]"}, v.Missing)
}

func TestSaveFile(t *testing.T) {
	s := waves.ForRun("/w/run.fst", gosim.DefaultParams, []waves.Marker{{Name: "first split message", Time: 460}, {Name: "b", Time: 90}})
	var b strings.Builder
	_, err := s.WriteTo(&b)
	require.NoError(t, err)
	out := b.String()
	require.Contains(t, out, "[dumpfile] \"/w/run.fst\"\n")
	require.Contains(t, out, "*-6.500000 460 460 90 -1 ")
	require.Contains(t, out, "[markername] Afirst split message\n")
	require.Contains(t, out, "[markername] Bb\n")
	require.Contains(t, out, "@22\n"+waves.Scope+".s_msg_tdata[127:0]\n", "buses in hex")
	require.Contains(t, out, "@28\n"+waves.Scope+".s_msg_tvalid\n")
	require.Contains(t, out, "@2022\n^1 lhs_rx_state.gtkwf\n"+waves.Scope+".rx.state_reg[1:0]\n")
	require.Contains(t, out, "@800200\n-network input (s_msg)\n")
	require.Contains(t, out, "@1000200\n-host register accesses\n")
	got, err := waves.ReadSignals(strings.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, s.Signals(), got)

	// Enum filter files land beside the save file.
	dir := t.TempDir()
	require.NoError(t, s.Write(filepath.Join(dir, "run.gtkw")))
	f, err := os.ReadFile(filepath.Join(dir, "lhs_rx_state.gtkwf"))
	require.NoError(t, err)
	require.Equal(t, "0 FIRST\n1 BODY\n2 COMMIT\n", string(f))
}

func TestEvents(t *testing.T) {
	ev := waves.NewEvents(waves.Rule{LHS: true, SizePos: 12, MaxMsg: 65535})
	beat := func(size uint32, last bool) *gosim.Pins {
		p := &gosim.Pins{MsgValid: 1, MsgReady: 1}
		p.MsgData[1] = uint64(size) << 32
		if last {
			p.MsgLast = 1
		}
		return p
	}
	ev.Observe(0, beat(40, false))
	ev.Observe(1, beat(100, true)) // a second beat whose bytes 12..15 happen to read 100
	ev.Observe(2, &gosim.Pins{MsgValid: 1})
	ev.Observe(3, beat(100, false)) // a first beat of a split message
	ev.Observe(4, &gosim.Pins{HostValid: 1, HostWrite: 1, HostAddr: hw.RegVecCmd, HostWData: hw.VecOpVS})
	ev.Mark("custom", 1)
	c, ok := ev.First(waves.FirstSplit)
	require.True(t, ok)
	require.EqualValues(t, 3, c)
	c, _ = ev.First(waves.FirstStall)
	require.EqualValues(t, 2, c)
	_, ok = ev.First(waves.FirstVL)
	require.False(t, ok)
	require.Equal(t, []waves.Marker{{waves.FirstSplit, 70}, {waves.FirstStall, 60}, {waves.FirstVS, 80}, {"custom", 50}}, ev.Markers(4))
}

// The markers of `lhsim trace` (three of them within 10 ns) get labels that do not overlap
// at the zoom the save file opens at; every event is named in some label, with its letter
// where a label names several; the label of the marker the view opens on is in view.
func TestMarkerLabelsDoNotOverlap(t *testing.T) {
	markers := []waves.Marker{{waves.FirstSplit, 460}, {waves.FirstStall, 450}, {waves.FirstCommit, 450},
		{waves.FirstVL, 2520}, {waves.FirstVS, 470150}, {waves.LHFull, 50810}}
	s := waves.ForRun("/w/run.fst", gosim.DefaultParams, markers)
	labels := s.Labels()
	require.Len(t, labels, len(markers))
	type span struct{ l, r float64 }
	var shown []span
	all := ""
	for i, l := range labels {
		if l.Text == " " {
			require.NotEqual(t, i, l.Head, "a blank label is told by another")
			continue
		}
		require.Equal(t, i, l.Head)
		for _, o := range shown {
			require.True(t, l.Right+5 < o.l || o.r+5 < l.Left, "label %q overlaps another", l.Text)
		}
		shown = append(shown, span{l.Left, l.Right})
		all += l.Text + "\n"
	}
	for i, m := range markers {
		require.Contains(t, all, m.Name)
		if labels[i].Head != i || strings.Contains(labels[i].Text, ", ") {
			require.Contains(t, all, string(rune('A'+i))+" "+m.Name, "a shared label gives each event its letter")
		}
	}
	require.Equal(t, "B first back-pressure, C first LH entry committed, A first split message (at 460 ns)", labels[1].Text)
	require.Equal(t, int64(460), s.Cursor)
	require.LessOrEqual(t, float64(s.Start)*s.PixelsPerUnit(), labels[1].Left, "the shared label starts in view")

	var b strings.Builder
	_, err := s.WriteTo(&b)
	require.NoError(t, err)
	require.Contains(t, b.String(), "[markername] A \n[markername] BB first back-pressure, C first LH entry committed, A first split message (at 460 ns)\n[markername] C \n[markername] Dfirst VL\n")
}

// brokenModel is the golden model with one output wrong from a given cycle on.
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

// A lockstep board whose two cores disagree gets a marker at the first disagreement, lettered
// first, and its save file opens there.
func TestMismatchMarker(t *testing.T) {
	a, err := gosim.NewModel(gosim.DefaultParams)
	require.NoError(t, err)
	b, err := gosim.NewModel(gosim.DefaultParams)
	require.NoError(t, err)
	l := &gosim.Lockstep{A: a, B: &brokenModel{Model: b, from: 37}}
	board := gosim.NewBoard(l, gosim.BoardConfig{Seed: 1})
	ev := waves.NewEvents(waves.Rule{LHS: true, SizePos: 12, MaxMsg: 65535})
	board.OnCycle(ev.Observe)
	ev.WatchLockstep(board)
	require.NoError(t, board.Inject(make([]byte, 300)))
	require.NoError(t, board.Run(100))
	c, ok := ev.First(waves.FirstMismatch)
	require.True(t, ok)
	require.EqualValues(t, 37, c)
	require.ErrorContains(t, board.Close(), "lockstep: cycle 37 after reset: s_msg_tready")
	markers := ev.Markers(hw.ResetCycles)
	require.Equal(t, waves.Marker{Name: waves.FirstMismatch, Time: (37 + hw.ResetCycles) * waves.CycleTime}, markers[0])
	s := waves.ForRun("/w/run.fst", gosim.DefaultParams, markers)
	require.EqualValues(t, markers[0].Time, s.Cursor, "the view opens at the mismatch")
	require.LessOrEqual(t, s.Start, markers[0].Time-8*waves.CycleTime)
	require.Greater(t, s.Start+45*waves.CycleTime, markers[0].Time)
}
