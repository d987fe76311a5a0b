package apptrace

// ReadDir reads the trace lhsim's tracer (tracer/lht.c) writes: one file per rank,
// DIR/rank-R.lht, each a header and then records (docs/apps.md, "The trace format"). A rank
// whose file stops before its end record (killed, crashed, or a file cut short) makes the whole
// trace refused: a schedule missing one rank's end would hang in the simulator.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// FormatError is a trace that is not whole: truncated, corrupt, or missing a rank.
type FormatError struct {
	Path string
	Msg  string
}

func (e *FormatError) Error() string { return e.Path + ": " + e.Msg }

// Magic opens every rank's file; the byte after "LHTRACE" is the format's major version.
const Magic = "LHTRACE\x01"

// RankFile is rank r's file in a trace directory.
func RankFile(dir string, r int) string { return filepath.Join(dir, fmt.Sprintf("rank-%d.lht", r)) }

// ReadDir reads every rank's file of the trace in dir (a directory of LogGOPSim's liballprof
// traces too: ReadLiballprof).
func ReadDir(dir string) (*Trace, error) { return ReadDirLimit(dir, 0) }

// ErrTooLarge is wrapped by ReadDirLimit's error for a trace that would not fit in memory.
var ErrTooLarge = errors.New("trace too large for memory")

// MemoryEstimate is about how much memory reading and converting a trace of fileBytes bytes
// takes: a call's record is about 8 bytes or more, and becomes a Call and two to three GOAL
// operations while the conversion runs.
func MemoryEstimate(fileBytes int64) int64 {
	const perCall = int64(unsafe.Sizeof(Call{})) + 3*int64(unsafe.Sizeof(gop{})+4)
	return fileBytes / 8 * perCall
}

// ReadDirLimit is ReadDir refusing, before it reads, a trace whose MemoryEstimate is over
// maxBytes (0: no bound).
func ReadDirLimit(dir string, maxBytes int64) (*Trace, error) {
	if IsLiballprof(dir) {
		return readLiballprofLimit(dir, maxBytes)
	}
	if maxBytes > 0 {
		files, _ := filepath.Glob(filepath.Join(dir, "rank-*.lht"))
		var total int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		if est := MemoryEstimate(total); est > maxBytes {
			return nil, &FormatError{dir, fmt.Sprintf("%v: %d bytes of trace take about %d MiB to read and convert, over the %d MiB available", ErrTooLarge, total, est>>20, maxBytes>>20)}
		}
	}
	first := RankFile(dir, 0)
	h, calls, comms, folded, err := readRankFile(first)
	if errors.Is(err, os.ErrNotExist) {
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: no such trace directory: %w", dir, os.ErrNotExist)
		}
		return nil, &FormatError{dir, "not a trace of lhsim goal record (no rank-0.lht)"}
	}
	if err != nil {
		return nil, err
	}
	t := &Trace{Ranks: make([][]Call, h.size), Comms: map[uint64]Comm{}, Source: "lhsim tracer, " + h.lib, Folded: folded}
	t.Ranks[0] = calls
	if err := mergeComms(t, comms, first); err != nil {
		return nil, err
	}
	for r := 1; r < h.size; r++ {
		p := RankFile(dir, r)
		hr, calls, comms, folded, err := readRankFile(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, &FormatError{p, fmt.Sprintf("missing: rank 0's file says the program ran %d ranks", h.size)}
		}
		if err != nil {
			return nil, err
		}
		if hr.rank != r || hr.size != h.size {
			return nil, &FormatError{p, fmt.Sprintf("says it is rank %d of %d, not rank %d of %d", hr.rank, hr.size, r, h.size)}
		}
		t.Ranks[r] = calls
		t.Folded += folded
		if err := mergeComms(t, comms, p); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func mergeComms(t *Trace, comms []Comm, path string) error {
	for _, c := range comms {
		old, ok := t.Comms[c.ID]
		if !ok {
			t.Comms[c.ID] = c
			continue
		}
		if !equalMembers(old.Members, c.Members) {
			return &FormatError{path, fmt.Sprintf("communicator %#x has members %v here and %v in another rank's file", c.ID, c.Members, old.Members)}
		}
	}
	return nil
}

func equalMembers(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type header struct {
	rank, size int
	lib        string
	funcs      []funcInfo
}

// funcInfo is how a record of one function is read: its kind and a decoder of its fields.
type funcInfo struct {
	name string
	kind Kind
	coll Coll
	dec  decoder
}

type decoder uint8

const (
	decNone     decoder = iota // no fields
	decP2P                     // comm, tag, peer, size
	decP2PReq                  // comm, tag, peer, size, request
	decSendrecv                // comm, dest, sendtag, sendsize, source, recvtag, recvsize
	decProbe                   // comm, tag, source, found, message
	decMrecv                   // size, message[, request]
	decReqList                 // n, requests
	decReq                     // request
	decColl                    // comm, root, size, n, counts
	decComm                    // parent, id, n, members
	decCommFree                // id
	decEnd                     // the number of records before it
	decPolls                   // how many Tests and probes found nothing before the next record
	decUnknown                 // a function this reader does not know: its fields are skipped
)

var knownFuncs = map[string]funcInfo{
	"LHT_End":                  {kind: KNop, dec: decEnd},
	"LHT_Comm":                 {kind: KNop, dec: decComm},
	"LHT_Polls":                {kind: KNop, dec: decPolls},
	"MPI_Init":                 {kind: KInit},
	"MPI_Init_thread":          {kind: KInit},
	"MPI_Finalize":             {kind: KFinalize},
	"MPI_Send":                 {kind: KSend, dec: decP2P},
	"MPI_Ssend":                {kind: KSend, dec: decP2P},
	"MPI_Bsend":                {kind: KSend, dec: decP2P},
	"MPI_Rsend":                {kind: KSend, dec: decP2P},
	"MPI_Recv":                 {kind: KRecv, dec: decP2P},
	"MPI_Isend":                {kind: KIsend, dec: decP2PReq},
	"MPI_Issend":               {kind: KIsend, dec: decP2PReq},
	"MPI_Ibsend":               {kind: KIsend, dec: decP2PReq},
	"MPI_Irsend":               {kind: KIsend, dec: decP2PReq},
	"MPI_Irecv":                {kind: KIrecv, dec: decP2PReq},
	"MPI_Send_init":            {kind: KSendInit, dec: decP2PReq},
	"MPI_Ssend_init":           {kind: KSendInit, dec: decP2PReq},
	"MPI_Bsend_init":           {kind: KSendInit, dec: decP2PReq},
	"MPI_Rsend_init":           {kind: KSendInit, dec: decP2PReq},
	"MPI_Recv_init":            {kind: KRecvInit, dec: decP2PReq},
	"MPI_Sendrecv":             {kind: KSendrecv, dec: decSendrecv},
	"MPI_Sendrecv_replace":     {kind: KSendrecv, dec: decSendrecv},
	"MPI_Probe":                {kind: KProbe, dec: decProbe},
	"MPI_Iprobe":               {kind: KProbe, dec: decProbe},
	"MPI_Mprobe":               {kind: KMprobe, dec: decProbe},
	"MPI_Improbe":              {kind: KMprobe, dec: decProbe},
	"MPI_Mrecv":                {kind: KMrecv, dec: decMrecv},
	"MPI_Imrecv":               {kind: KMrecv, dec: decMrecv},
	"MPI_Wait":                 {kind: KComplete, dec: decReqList},
	"MPI_Test":                 {kind: KComplete, dec: decReqList},
	"MPI_Waitall":              {kind: KComplete, dec: decReqList},
	"MPI_Testall":              {kind: KComplete, dec: decReqList},
	"MPI_Waitany":              {kind: KComplete, dec: decReqList},
	"MPI_Testany":              {kind: KComplete, dec: decReqList},
	"MPI_Waitsome":             {kind: KComplete, dec: decReqList},
	"MPI_Testsome":             {kind: KComplete, dec: decReqList},
	"MPI_Cancel":               {kind: KCancel, dec: decReq},
	"MPI_Request_free":         {kind: KRequestFree, dec: decReq},
	"MPI_Start":                {kind: KStart, dec: decReqList},
	"MPI_Startall":             {kind: KStart, dec: decReqList},
	"MPI_Barrier":              {kind: KColl, coll: Barrier, dec: decColl},
	"MPI_Bcast":                {kind: KColl, coll: Bcast, dec: decColl},
	"MPI_Reduce":               {kind: KColl, coll: Reduce, dec: decColl},
	"MPI_Allreduce":            {kind: KColl, coll: Allreduce, dec: decColl},
	"MPI_Scan":                 {kind: KColl, coll: Scan, dec: decColl},
	"MPI_Exscan":               {kind: KColl, coll: Exscan, dec: decColl},
	"MPI_Gather":               {kind: KColl, coll: Gather, dec: decColl},
	"MPI_Gatherv":              {kind: KColl, coll: Gatherv, dec: decColl},
	"MPI_Scatter":              {kind: KColl, coll: Scatter, dec: decColl},
	"MPI_Scatterv":             {kind: KColl, coll: Scatterv, dec: decColl},
	"MPI_Allgather":            {kind: KColl, coll: Allgather, dec: decColl},
	"MPI_Allgatherv":           {kind: KColl, coll: Allgatherv, dec: decColl},
	"MPI_Alltoall":             {kind: KColl, coll: Alltoall, dec: decColl},
	"MPI_Alltoallv":            {kind: KColl, coll: Alltoallv, dec: decColl},
	"MPI_Reduce_scatter":       {kind: KColl, coll: ReduceScatter, dec: decColl},
	"MPI_Reduce_scatter_block": {kind: KColl, coll: ReduceScatterB, dec: decColl},
	"MPI_Comm_free":            {kind: KCommFree, dec: decCommFree},
}

// commMakers are the functions whose records are decComm.
var commMakers = []string{"MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
	"MPI_Comm_create_group", "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create",
	"MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create", "MPI_Comm_dup_with_info"}

func init() {
	for _, f := range commMakers {
		knownFuncs[f] = funcInfo{kind: KCommCreate, dec: decComm}
	}
}

// reader decodes one file: varints, with the byte offset for errors.
type reader struct {
	r    *bufio.Reader
	off  int64
	path string
}

func (rd *reader) fail(format string, a ...any) error {
	return &FormatError{rd.path, fmt.Sprintf("byte %d: ", rd.off) + fmt.Sprintf(format, a...)}
}

func (rd *reader) uvarint(what string) (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b, err := rd.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return 0, rd.fail("truncated in %s", what)
			}
			return 0, &FormatError{rd.path, err.Error()}
		}
		rd.off++
		if shift == 63 && b > 1 || shift > 63 {
			return 0, rd.fail("%s: a number longer than 64 bits", what)
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
}

func (rd *reader) varint(what string) (int64, error) {
	u, err := rd.uvarint(what)
	return int64(u>>1) ^ -int64(u&1), err
}

func (rd *reader) str(what string, max uint64) (string, error) {
	n, err := rd.uvarint(what)
	if err != nil {
		return "", err
	}
	if n > max {
		return "", rd.fail("%s of %d bytes (at most %d)", what, n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(rd.r, b); err != nil {
		return "", rd.fail("truncated in %s", what)
	}
	rd.off += int64(n)
	return string(b), nil
}

// maxRanks bounds a header's world size before anything is sized from it.
const maxRanks = 1 << 24

func readHeader(rd *reader) (header, error) {
	var h header
	m := make([]byte, len(Magic))
	if _, err := io.ReadFull(rd.r, m); err != nil || string(m) != Magic {
		if err == nil && strings.HasPrefix(string(m), "LHTRACE") {
			return h, rd.fail("trace format version %d; this lhsim reads version %d", m[7], Magic[7])
		}
		return h, rd.fail("not an lhsim trace (no %q at its start)", Magic[:7])
	}
	rd.off = int64(len(Magic))
	v, err := rd.uvarint("the header's version")
	if err != nil {
		return h, err
	}
	if v != 1 {
		return h, rd.fail("header version %d; this lhsim reads 1", v)
	}
	rank, err := rd.uvarint("the rank")
	if err != nil {
		return h, err
	}
	size, err := rd.uvarint("the number of ranks")
	if err != nil {
		return h, err
	}
	if size == 0 || size > maxRanks || rank >= size {
		return h, rd.fail("rank %d of %d ranks", rank, size)
	}
	h.rank, h.size = int(rank), int(size)
	if h.lib, err = rd.str("the MPI library's name", 4096); err != nil {
		return h, err
	}
	n, err := rd.uvarint("the number of functions")
	if err != nil {
		return h, err
	}
	if n > 1<<16 {
		return h, rd.fail("%d functions in the header", n)
	}
	for i := uint64(0); i < n; i++ {
		name, err := rd.str("a function's name", 256)
		if err != nil {
			return h, err
		}
		fi, ok := knownFuncs[name]
		if !ok {
			fi = funcInfo{kind: KOther, dec: decUnknown}
		}
		fi.name = name
		h.funcs = append(h.funcs, fi)
	}
	if len(h.funcs) == 0 || h.funcs[0].dec != decEnd {
		return h, rd.fail("the header's first function is not LHT_End")
	}
	return h, nil
}

func readRankFile(path string) (header, []Call, []Comm, int, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return header{}, nil, nil, 0, fmt.Errorf("%s: %w", path, os.ErrNotExist)
		}
		return header{}, nil, nil, 0, &FormatError{path, err.Error()}
	}
	defer f.Close()
	rd := &reader{r: bufio.NewReaderSize(f, 1<<16), path: path}
	h, err := readHeader(rd)
	if err != nil {
		return h, nil, nil, 0, err
	}
	calls, comms, folded, err := readRecords(rd, h)
	return h, calls, comms, folded, err
}
