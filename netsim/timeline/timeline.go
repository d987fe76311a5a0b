// Package timeline writes a simulated run as a trace in the Trace Event Format, as the run goes.
package timeline

// timeline writes a simulated run as a trace in the Trace Event Format (the JSON
// that chrome://tracing and ui.perfetto.dev open; docs/timeline.md), as the run goes.
//
// The file is the format's JSON Array Format: "[" then one event object a line. Events are
// written to the file in whole lines, 64 KiB at a time, and Close adds the closing "]"; the
// format lets a trace leave that bracket out, so a run that crashes or is interrupted leaves
// a file the viewers still open, holding every event up to the last whole write.
//
// Times are simulated time: ts and dur are in microseconds, written exactly to the
// picosecond (six decimals at most). pid is a process (a node, a link group), tid a track in
// it. The same calls in the same order write the same bytes.

import (
	"fmt"
	"io"
	"strconv"

	"github.com/lhsim/lhsim/netsim"
)

// Options choose what is written. The zero value writes everything.
type Options struct {
	// Ranks, when not nil, keeps the nodes it returns true for (pid modulo MachinePids;
	// every machine's runs and links are kept); events of the others are left out (a flow
	// that crosses out of them loses its other end).
	Ranks func(node int) bool
	// RanksUpTo is, with Ranks, one past the highest node it keeps: a run refuses a filter
	// that names nodes it does not have (CheckNodes) rather than write a file without them.
	RanksUpTo int
	// From and To keep the events that overlap [From, To] (To 0: no end).
	From, To netsim.Time
	// MaxBytes stops writing events once the file would pass it (0: no cap); OnCap is
	// called once, with the simulated time of the first event left out.
	MaxBytes int64
	OnCap    func(at netsim.Time)
	// Links is how many of the busiest links get a utilisation counter, sampled every
	// Sample (either 0: none).
	Links  int
	Sample netsim.Time
	// FlushBytes is how much is gathered before a write to the file (0: 64 KiB).
	FlushBytes int
}

// Arg is one of an event's arguments: an integer or, when Str is set, a string.
type Arg struct {
	Key   string
	Int   int64
	Str   string
	IsStr bool
}

// I is an integer argument, S a string one.
func I(k string, v int64) Arg  { return Arg{Key: k, Int: v} }
func S(k string, v string) Arg { return Arg{Key: k, Str: v, IsStr: true} }

// Writer streams events to a file.
type Writer struct {
	w       io.Writer
	opt     Options
	buf     []byte
	written int64
	events  uint64
	capped  bool
	err     error
	first   bool
	flushAt int
	// mark is where the event being written began, wasFirst whether it was the first.
	mark     int
	wasFirst bool
	threads  map[[2]int]bool
}

const flushAt = 64 << 10

// New starts a trace on w (the "[" is written at the first flush).
func New(w io.Writer, opt Options) *Writer {
	f := opt.FlushBytes
	if f <= 0 {
		f = flushAt
	}
	return &Writer{w: w, opt: opt, flushAt: f, buf: append(make([]byte, 0, min(f, flushAt)+4096), '['), first: true, threads: map[[2]int]bool{}}
}

// CheckNodes refuses a rank filter naming a node past a run's n nodes (nil without a filter).
func (t *Writer) CheckNodes(n int) error {
	if t == nil || t.opt.Ranks == nil || t.opt.RanksUpTo <= n {
		return nil
	}
	return fmt.Errorf("timeline ranks: node %d is past the run's %d nodes (0 to %d)", t.opt.RanksUpTo-1, n, n-1)
}

// Keep reports whether events of pid are written (the rank filter).
func (t *Writer) Keep(pid int) bool {
	if t == nil || t.capped {
		return false
	}
	n := pid % MachinePids
	return t.opt.Ranks == nil || n >= MachinePids-2 || t.opt.Ranks(n)
}

func (t *Writer) inWindow(start, end netsim.Time) bool {
	return end >= t.opt.From && (t.opt.To == 0 || start <= t.opt.To)
}

// begin opens an event object; it returns false when the event is left out.
func (t *Writer) begin(pid int, start, end netsim.Time, meta bool) bool {
	if !t.Keep(pid) || (!meta && !t.inWindow(start, end)) {
		return false
	}
	t.mark, t.wasFirst = len(t.buf), t.first
	if t.first {
		t.first = false
		t.buf = append(t.buf, '\n')
	} else {
		t.buf = append(t.buf, ",\n"...)
	}
	return true
}

// end closes an event object, dropping it when it would pass the cap.
func (t *Writer) end(at netsim.Time) {
	t.buf = append(t.buf, '}')
	if t.opt.MaxBytes > 0 && t.written+int64(len(t.buf)) > t.opt.MaxBytes {
		t.buf, t.first = t.buf[:t.mark], t.wasFirst
		t.capped = true
		t.flush()
		if t.opt.OnCap != nil {
			t.opt.OnCap(at)
		}
		return
	}
	t.events++
	if len(t.buf) >= t.flushAt {
		t.flush()
	}
}

func (t *Writer) flush() {
	if len(t.buf) == 0 || t.err != nil {
		t.buf = t.buf[:0]
		return
	}
	n, err := t.w.Write(t.buf)
	t.written += int64(n)
	if err != nil {
		t.err = err
		t.capped = true
	}
	t.buf = t.buf[:0]
}

func (t *Writer) head(ph byte, name string, pid, tid int) {
	t.buf = append(t.buf, `{"ph":"`...)
	t.buf = append(t.buf, ph)
	t.buf = append(t.buf, `","name":`...)
	t.buf = appendQuote(t.buf, name)
	t.buf = append(t.buf, `,"pid":`...)
	t.buf = strconv.AppendInt(t.buf, int64(pid), 10)
	t.buf = append(t.buf, `,"tid":`...)
	t.buf = strconv.AppendInt(t.buf, int64(tid), 10)
}

// appendUS writes ps as microseconds, exactly.
func appendUS(b []byte, ps netsim.Time) []byte {
	if ps < 0 {
		b = append(b, '-')
		ps = -ps
	}
	b = strconv.AppendInt(b, int64(ps/netsim.Microsecond), 10)
	f := int64(ps % netsim.Microsecond)
	if f == 0 {
		return b
	}
	var d [7]byte
	d[0] = '.'
	for i := 6; i >= 1; i-- {
		d[i] = byte('0' + f%10)
		f /= 10
	}
	n := 7
	for d[n-1] == '0' {
		n--
	}
	return append(b, d[:n]...)
}

func (t *Writer) ts(key string, v netsim.Time) {
	t.buf = append(t.buf, `,"`...)
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, `":`...)
	t.buf = appendUS(t.buf, v)
}

func (t *Writer) args(args []Arg) {
	if len(args) == 0 {
		return
	}
	t.buf = append(t.buf, `,"args":{`...)
	for i, a := range args {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.buf = appendQuote(t.buf, a.Key)
		t.buf = append(t.buf, ':')
		if a.IsStr {
			t.buf = appendQuote(t.buf, a.Str)
		} else {
			t.buf = strconv.AppendInt(t.buf, a.Int, 10)
		}
	}
	t.buf = append(t.buf, '}')
}

// Process names process pid (metadata: process_name and process_sort_index, so the
// viewers list processes in pid order).
func (t *Writer) Process(pid int, name string) {
	if !t.begin(pid, 0, 0, true) {
		return
	}
	t.head('M', "process_name", pid, 0)
	t.args([]Arg{S("name", name)})
	t.end(0)
	if !t.begin(pid, 0, 0, true) {
		return
	}
	t.head('M', "process_sort_index", pid, 0)
	t.args([]Arg{I("sort_index", int64(pid))})
	t.end(0)
}

// Thread names track tid of pid, the first time it is called for them (thread_name and
// thread_sort_index: tracks in tid order).
func (t *Writer) Thread(pid, tid int, name string) {
	t.ThreadN(pid, tid, name, -1)
}

// ThreadN is Thread with the name prefix+" "+n (n >= 0), made only the first time.
func (t *Writer) ThreadN(pid, tid int, prefix string, n int) {
	if !t.Keep(pid) || t.threads[[2]int{pid, tid}] {
		return
	}
	t.threads[[2]int{pid, tid}] = true
	name := prefix
	if n >= 0 {
		name += " " + strconv.Itoa(n)
	}
	if !t.begin(pid, 0, 0, true) {
		return
	}
	t.head('M', "thread_name", pid, tid)
	t.args([]Arg{S("name", name)})
	t.end(0)
	if !t.begin(pid, 0, 0, true) {
		return
	}
	t.head('M', "thread_sort_index", pid, tid)
	t.args([]Arg{I("sort_index", int64(tid))})
	t.end(0)
}

// Slice is a complete event (ph X): name on track (pid, tid) from start to end.
func (t *Writer) Slice(pid, tid int, name string, start, end netsim.Time, args ...Arg) {
	if !t.begin(pid, start, end, false) {
		return
	}
	t.head('X', name, pid, tid)
	t.ts("ts", start)
	t.ts("dur", end-start)
	t.args(args)
	t.end(start)
}

// Instant is an instant event (ph i) on track (pid, tid) at at.
func (t *Writer) Instant(pid, tid int, name string, at netsim.Time, args ...Arg) {
	if !t.begin(pid, at, at, false) {
		return
	}
	t.head('i', name, pid, tid)
	t.ts("ts", at)
	t.buf = append(t.buf, `,"s":"t"`...)
	t.args(args)
	t.end(at)
}

// Counter sets the series of counter name of process pid at at (ph C: one counter track
// per series).
func (t *Writer) Counter(pid int, name string, at netsim.Time, series ...Arg) {
	if !t.begin(pid, at, at, false) {
		return
	}
	t.head('C', name, pid, 0)
	t.ts("ts", at)
	t.args(series)
	t.end(at)
}

// Flow phases: a flow starts (s) inside a slice, steps (t) through others and finishes (f)
// at the slice that encloses it (bp "e").
const (
	FlowStart  = 's'
	FlowStep   = 't'
	FlowFinish = 'f'
)

// Flow is one point of flow id (category "msg") on track (pid, tid) at at, which must lie
// inside a slice of that track.
func (t *Writer) Flow(ph byte, pid, tid int, id uint64, at netsim.Time) {
	if !t.begin(pid, at, at, false) {
		return
	}
	t.head(ph, "message", pid, tid)
	t.buf = append(t.buf, `,"cat":"msg","id":`...)
	t.buf = strconv.AppendUint(t.buf, id, 10)
	t.ts("ts", at)
	if ph == FlowFinish {
		t.buf = append(t.buf, `,"bp":"e"`...)
	}
	t.end(at)
}

// Events is how many events were written; Capped whether the cap (or a write error)
// stopped the writing; Bytes the file's size so far.
func (t *Writer) Events() uint64 { return t.events }
func (t *Writer) Capped() bool   { return t.capped }
func (t *Writer) Bytes() int64   { return t.written + int64(len(t.buf)) }

// Close writes the events left and the closing bracket; it does not close the file.
func (t *Writer) Close() error {
	t.buf = append(t.buf, "\n]\n"...)
	err := t.err
	t.capped = false
	t.err = nil
	t.flush()
	if err == nil {
		err = t.err
	}
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// appendQuote is strconv.AppendQuote with a fast path for the plain ASCII this package's
// callers use.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
