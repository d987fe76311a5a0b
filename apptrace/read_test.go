package apptrace

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// enc writes the trace format as tracer/c/lht.c does (docs/apps.md), for tests.
type enc struct{ b []byte }

func (e *enc) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)  { e.u(uint64(v<<1) ^ uint64(v>>63)) }
func (e *enc) str(s string) {
	e.u(uint64(len(s)))
	e.b = append(e.b, s...)
}

var testFuncs = []string{"LHT_End", "LHT_Comm", "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Comm_split", "MPI_Allreduce", "MPI_Put"}

func fid(name string) uint64 {
	for i, f := range testFuncs {
		if f == name {
			return uint64(i)
		}
	}
	panic(name)
}

// rankFile is a whole file of rank r of 2: Init, a send or receive on MPI_COMM_WORLD, a split
// into one communicator of both, an Allreduce on it, an MPI_Put, Finalize.
func rankFile(r int) []byte {
	e := &enc{b: []byte(Magic)}
	e.u(1)
	e.u(uint64(r))
	e.u(2)
	e.str("Test MPI 1.0")
	e.u(uint64(len(testFuncs)))
	for _, f := range testFuncs {
		e.str(f)
	}
	rec := func(name string, cpu uint64, fields ...int64) {
		e.u(fid(name))
		e.u(cpu)
		e.u(uint64(len(fields)))
		for _, f := range fields {
			e.u(uint64(f))
		}
	}
	rec("MPI_Init", 0)
	if r == 0 {
		rec("MPI_Send", 100, 0, 2*5, 2*1, 64) // comm, tag (zigzag), peer (zigzag), size
	} else {
		rec("MPI_Recv", 100, 0, 1, 1, 64) // any tag, any source
	}
	rec("MPI_Comm_split", 5, 0, 1<<32|1, 2, 0, 2) // parent, id, members 0 and 1 (zigzag)
	rec("MPI_Allreduce", 7, 1<<32|1, 1, 8, 0)     // comm, root -1, size, no counts
	rec("MPI_Put", 3)
	rec("MPI_Finalize", 9)
	rec("LHT_End", 0, 6)
	return e.b
}

func writeTrace(t *testing.T, files ...[]byte) string {
	dir := t.TempDir()
	for r, b := range files {
		if err := os.WriteFile(RankFile(dir, r), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadDir(t *testing.T) {
	tr, err := ReadDir(writeTrace(t, rankFile(0), rankFile(1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ranks) != 2 || len(tr.Ranks[0]) != 6 || !strings.Contains(tr.Source, "Test MPI 1.0") {
		t.Fatalf("trace %+v", tr)
	}
	s, r := tr.Ranks[0][1], tr.Ranks[1][1]
	if s.Kind != KSend || s.Peer != 1 || s.Tag != 5 || s.Size != 64 || s.CPU != 100 {
		t.Errorf("send %+v", s)
	}
	if r.Kind != KRecv || r.Peer != AnySource || r.Tag != AnyTag {
		t.Errorf("receive %+v", r)
	}
	if c := tr.Comms[1<<32|1]; len(c.Members) != 2 || c.Members[1] != 1 {
		t.Errorf("communicators %+v", tr.Comms)
	}
	if a := tr.Ranks[0][3]; a.Kind != KColl || a.Coll != Allreduce || a.Root != -1 || a.Size != 8 || a.Comm != 1<<32|1 {
		t.Errorf("allreduce %+v", a)
	}
	if p := tr.Ranks[0][4]; p.Kind != KOther || p.Func != "MPI_Put" {
		t.Errorf("put %+v", p)
	}
}

// TestReadTruncated: a file cut at any byte is refused with a FormatError, never read as a
// shorter program.
func TestReadTruncated(t *testing.T) {
	whole := rankFile(0)
	for n := 0; n < len(whole); n++ {
		_, err := ReadDir(writeTrace(t, whole[:n], rankFile(1)))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("cut at %d of %d bytes: %v", n, len(whole), err)
		}
	}
}

func TestReadCorrupt(t *testing.T) {
	good := rankFile(0)
	set := func(b []byte, i int, v byte) []byte {
		c := append([]byte(nil), b...)
		c[i] = v
		return c
	}
	// Where the first record (MPI_Init) starts: after the header.
	e := &enc{b: []byte(Magic)}
	e.u(1)
	e.u(0)
	e.u(2)
	e.str("Test MPI 1.0")
	e.u(uint64(len(testFuncs)))
	for _, f := range testFuncs {
		e.str(f)
	}
	first := len(e.b)
	for _, c := range []struct {
		name  string
		files [][]byte
		want  string
	}{
		{"not a trace", [][]byte{[]byte("hello, world, not a trace"), rankFile(1)}, "not an lhsim trace"},
		{"another version", [][]byte{set(good, 7, 2), rankFile(1)}, "version 2"},
		{"a function not in the header", [][]byte{set(good, first, 60), rankFile(1)}, "function 60"},
		{"a missing rank", [][]byte{good}, "missing"},
		{"two rank 0s", [][]byte{good, good}, "says it is rank 0"},
		{"bytes after the end", [][]byte{append(append([]byte(nil), good...), 0), rankFile(1)}, "after the end record"},
		{"an end count that disagrees", [][]byte{set(good, len(good)-1, 5), rankFile(1)}, "end record counts"},
		{"a field count that disagrees", [][]byte{set(good, first+2, 1), rankFile(1)}, "fields"},
	} {
		_, err := ReadDir(writeTrace(t, c.files...))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (want a FormatError saying %q)", c.name, err, c.want)
		}
	}
	if _, err := ReadDir(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a directory that does not exist: %v", err)
	}
}

// TestReadTooLarge: a trace whose estimate passes the limit is refused before it is read.
func TestReadTooLarge(t *testing.T) {
	dir := writeTrace(t, rankFile(0), rankFile(1))
	_, err := ReadDirLimit(dir, 1000)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "trace too large for memory") {
		t.Fatalf("%v", err)
	}
	if _, err := ReadDirLimit(dir, 1<<30); err != nil {
		t.Fatal(err)
	}
}

// TestReadInterComm: a call on an intercommunicator (the tracer's id ~0, peers not world
// ranks) is read as a call the conversion does not know, not as a corrupt trace.
func TestReadInterComm(t *testing.T) {
	e := &enc{b: []byte(Magic)}
	e.u(1)
	e.u(0)
	e.u(1)
	e.str("Test MPI 1.0")
	e.u(uint64(len(testFuncs)))
	for _, f := range testFuncs {
		e.str(f)
	}
	e.u(fid("MPI_Send"))
	e.u(0)
	e.u(4)
	e.u(^uint64(0))
	e.i(3)
	e.i(-3)
	e.u(8)
	e.u(fid("LHT_End"))
	e.u(0)
	e.u(1)
	e.u(1)
	tr, err := ReadDir(writeTrace(t, e.b))
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.Ranks[0][0]; c.Kind != KOther || c.Func != "MPI_Send on an intercommunicator" {
		t.Fatalf("%+v", c)
	}
}

// TestReadPolls: polls that found nothing (counted by the tracer in LHT_Polls, or recorded one
// by one) are not kept as calls: they are counted in Folded and their time goes to the next call.
func TestReadPolls(t *testing.T) {
	funcs := []string{"LHT_End", "LHT_Comm", "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "LHT_Polls", "MPI_Iprobe", "MPI_Send"}
	e := &enc{b: []byte(Magic)}
	e.u(1)
	e.u(0)
	e.u(1)
	e.str("Test MPI 1.0")
	e.u(uint64(len(funcs)))
	for _, f := range funcs {
		e.str(f)
	}
	rec := func(f int, cpu uint64, fields ...uint64) {
		e.u(uint64(f))
		e.u(cpu)
		e.u(uint64(len(fields)))
		for _, v := range fields {
			e.u(v)
		}
	}
	rec(2, 0)                   // Init
	rec(5, 0, 1000)             // 1000 polls
	rec(6, 30, 0, 2*3, 1, 0, 0) // an Iprobe that found nothing
	rec(7, 50, 0, 2*3, 0, 8)    // Send to rank 0
	rec(4, 5)                   // Finalize
	rec(0, 0, 5)
	tr, err := ReadDir(writeTrace(t, e.b))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tr.Ranks[0]); got != 3 || tr.Folded != 1001 || tr.Ranks[0][1].Func != "MPI_Send" || tr.Ranks[0][1].CPU != 80 {
		t.Fatalf("calls %+v, folded %d", tr.Ranks[0], tr.Folded)
	}
}

// TestReadCancelOutcome: MPI_Cancel's record says whether the cancel took effect (a second
// field: 1 it did, 2 it failed); one without it (a trace of the tracer before it recorded it)
// reads as not known; an outcome the tracer never writes is refused.
func TestReadCancelOutcome(t *testing.T) {
	funcs := []string{"LHT_End", "LHT_Comm", "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "LHT_Polls", "MPI_Cancel"}
	file := func(outcomes ...[]uint64) []byte {
		e := &enc{b: []byte(Magic)}
		e.u(1)
		e.u(0)
		e.u(1)
		e.str("Test MPI 1.0")
		e.u(uint64(len(funcs)))
		for _, f := range funcs {
			e.str(f)
		}
		for _, fields := range outcomes {
			e.u(6)
			e.u(0)
			e.u(uint64(len(fields)))
			for _, v := range fields {
				e.u(v)
			}
		}
		e.u(0)
		e.u(0)
		e.u(1)
		e.u(uint64(len(outcomes)))
		return e.b
	}
	tr, err := ReadDir(writeTrace(t, file([]uint64{7}, []uint64{8, 1}, []uint64{9, 2}, []uint64{10, 0})))
	if err != nil {
		t.Fatal(err)
	}
	want := []CancelOutcome{CancelUnknown, CancelTookEffect, CancelFailed, CancelUnknown}
	for i, c := range tr.Ranks[0] {
		if c.Kind != KCancel || c.Req != uint64(7+i) || c.Cancel != want[i] {
			t.Errorf("cancel %d: %+v, want request %d, outcome %d", i, c, 7+i, want[i])
		}
	}
	var fe *FormatError
	if _, err := ReadDir(writeTrace(t, file([]uint64{7, 3}))); !errors.As(err, &fe) || !strings.Contains(err.Error(), "cancel outcome 3") {
		t.Errorf("outcome 3: %v, want a FormatError naming it", err)
	}
	if _, err := ReadDir(writeTrace(t, file([]uint64{7, 1, 1}))); !errors.As(err, &fe) || !strings.Contains(err.Error(), "3 fields") {
		t.Errorf("three fields: %v, want a FormatError naming them", err)
	}
}
