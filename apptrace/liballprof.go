package apptrace

// LogGOPSim's liballprof traces (github.com/spcl/LogGOPSim src/liballprof; ATLAHS keeps samples
// and the same library under goal_gen/hpc): a text file per rank, named PREFIX-RANK.txt (or
// .dat, or .gz compressed), a line per MPI call:
//
//	MPI_Irecv:93:140736595382352:1:1,4,4:3:5:94303886959200,0,4:140736595382368:98
//
// the function, its start time, every argument after the call returned, and its end time;
// times in µs of wall clock (MPI_Wtime). An argument is one field, but for a datatype
// (id,size,extent), a communicator (handle,rank in it,its size) and the count arrays of the v
// collectives (the array's address, then count,count,... per member). Pointers are printed as
// addresses: a request is the address of the program's MPI_Request variable, not the request,
// and a flag or index that a Test or Waitany returns is not recorded.
//
// What the reader makes of them (docs/apps.md, "LogGOPSim's traces"):
//   - Computation is wall time, as Schedgen takes it: the gap from the end of the previous call
//     to the start of this one; a call the schedule keeps nothing of (MPI_Comm_rank, ...) passes
//     its own duration on to the next call's computation, so nothing is lost between the calls
//     the schedule keeps. Time spent waiting inside the program (not in MPI) counts as
//     computation too: a wall-clock trace cannot tell them apart (lhsim's tracer records CPU time).
//   - Requests: each nonblocking call makes a new request, named by its variable's address until
//     a Wait or Waitall on that address completes it; Waitall's array holds its requests at the
//     address of the first plus i times the size of an MPI_Request: 8 bytes in Open MPI's C
//     binding, 4 in MPICH's and in Fortran (an INTEGER).
//   - The MPI library is told by MPI_COMM_WORLD's handle: MPICH's is 0x44000000 in C and Fortran,
//     Open MPI's Fortran handle is 0, its C handle a pointer. MPI_ANY_SOURCE is -1 in Open MPI
//     and -2 in MPICH, MPI_PROC_NULL the other way round; they are recorded by meaning.
//   - Communicators: liballprof records no members, only each call's rank in the communicator
//     and its size. A communicator whose size is the world's and in which every rank is its
//     world rank (MPI_COMM_WORLD, its duplicates, a Cartesian communicator without reordering)
//     gets its own id, its members the world; the k-th such communicator a rank meets is the
//     k-th of every rank. Calls on any other (a sub-communicator, a reordered one) are KOther:
//     its peers cannot be made world ranks, so the conversion refuses them unless told how.
//   - MPI_Test and its any, some and all forms, MPI_Waitany, MPI_Waitsome, MPI_Iprobe and
//     MPI_Improbe are KOther: liballprof does not record whether (or which request) they
//     completed or found.

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// liballprofFile is a rank's trace file name: PREFIX-RANK.txt, .dat, optionally .gz.
var liballprofFile = regexp.MustCompile(`^(.*)-([0-9]+)\.(txt|dat)(\.gz)?$`)

// IsLiballprof says whether dir holds liballprof traces: a file named like one whose first
// line is a comment (liballprof's header) or a call.
func IsLiballprof(dir string) bool {
	files, err := liballprofFiles(dir)
	if err != nil || len(files) == 0 {
		return false
	}
	r, closeFn, err := openTrace(files[0])
	if err != nil {
		return false
	}
	defer closeFn()
	line, _ := bufio.NewReader(r).ReadString('\n')
	return strings.HasPrefix(line, "#") || strings.HasPrefix(line, "MPI_")
}

// liballprofFiles are dir's trace files by rank: one prefix, ranks 0 to n-1.
func liballprofFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byPrefix := map[string]map[int]string{}
	for _, e := range ents {
		m := liballprofFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		r, err := strconv.Atoi(m[2])
		if err != nil || r > 1<<24 {
			continue
		}
		if byPrefix[m[1]] == nil {
			byPrefix[m[1]] = map[int]string{}
		}
		byPrefix[m[1]][r] = filepath.Join(dir, e.Name())
	}
	if len(byPrefix) == 0 {
		return nil, fmt.Errorf("no liballprof trace files (PREFIX-RANK.txt)")
	}
	if len(byPrefix) > 1 {
		var names []string
		for p := range byPrefix {
			names = append(names, p)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("trace files of %d runs (%s): one run per directory", len(names), strings.Join(names, ", "))
	}
	for _, m := range byPrefix {
		files := make([]string, len(m))
		for r, f := range m {
			if r >= len(m) {
				return nil, fmt.Errorf("%d trace files but one of rank %d: the ranks must be 0 to %d", len(m), r, len(m)-1)
			}
			files[r] = f
		}
		return files, nil
	}
	return nil, nil
}

func openTrace(file string) (io.Reader, func(), error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(file, ".gz") {
		return f, func() { f.Close() }, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return z, func() { z.Close(); f.Close() }, nil
}

// liballprofBytesPerCall is about the fewest bytes of text a liballprof line takes (LAMMPS's
// take 61; a gzip-compressed file is taken as 8 times its size).
const liballprofBytesPerCall = 40

// readLiballprofLimit is ReadLiballprof refusing, before it reads, a trace whose calls would
// take more than maxBytes (0: no bound) by MemoryEstimate.
func readLiballprofLimit(dir string, maxBytes int64) (*Trace, error) {
	if maxBytes > 0 {
		files, _ := liballprofFiles(dir)
		var text int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				n := st.Size()
				if strings.HasSuffix(f, ".gz") {
					n *= 8
				}
				text += n
			}
		}
		// MemoryEstimate counts a call per 8 bytes of lhsim's records.
		if est := MemoryEstimate(text / liballprofBytesPerCall * 8); est > maxBytes {
			return nil, &FormatError{dir, fmt.Sprintf("%v: %d bytes of liballprof text take about %d MiB to read and convert, over the %d MiB available", ErrTooLarge, text, est>>20, maxBytes>>20)}
		}
	}
	return ReadLiballprof(dir)
}

// ReadLiballprof reads a directory of liballprof traces, one file per rank.
func ReadLiballprof(dir string) (*Trace, error) {
	files, err := liballprofFiles(dir)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, &FormatError{Path: dir, Msg: err.Error()}
	}
	rd := &lapReader{world: len(files), comms: map[int]map[uint64]uint64{}, order: map[int]int{}}
	t := &Trace{Ranks: make([][]Call, len(files)), Comms: map[uint64]Comm{}, CPUIsWall: true}
	for r, file := range files {
		in, closeFn, err := openTrace(file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, &FormatError{Path: file, Msg: err.Error()}
		}
		calls, err := rd.readRank(in, r)
		closeFn()
		if err != nil {
			return nil, &FormatError{Path: file, Msg: err.Error()}
		}
		t.Ranks[r] = calls
	}
	for id := CommWorld + 1; id < rd.nextComm; id++ {
		members := make([]int32, len(files))
		for i := range members {
			members[i] = int32(i)
		}
		t.Comms[id] = Comm{ID: id, Members: members}
	}
	t.Source = "liballprof, " + rd.lib.String()
	return t, nil
}

// mpiLib is the MPI library and binding a trace was made with, as its world handle tells.
type mpiLib uint8

const (
	libUnknown mpiLib = iota
	libOpenMPIC
	libOpenMPIFortran
	libMPICH
)

func (l mpiLib) String() string {
	return [...]string{"MPI library unknown", "Open MPI (C)", "Open MPI (Fortran)", "MPICH"}[l]
}

// requestSize is the stride of an array of requests (Waitall's).
func (l mpiLib) requestSize() uint64 {
	if l == libOpenMPIC {
		return 8
	}
	return 4
}

// mpichWorld is MPICH's MPI_COMM_WORLD handle (0x44000000), in C and in Fortran.
const mpichWorld = 0x44000000

// lapReader holds what the ranks' files share (the library, the communicators' ids, the
// request ids) and what one rank's file builds up (its requests).
type lapReader struct {
	world    int
	lib      mpiLib
	nextComm uint64                    // ids given to communicators of the world's members (CommWorld is 0)
	comms    map[int]map[uint64]uint64 // per rank: handle -> id, or noComm
	order    map[int]int               // per rank: how many of those communicators it met
	nextReq  uint64                    // request ids, unique in the trace
	reqs     map[uint64]uint64         // this rank's outstanding requests by their variable's address
	persist  map[uint64]bool           // of them, the persistent ones
	msgs     map[uint64]uint64         // this rank's MPI_Messages by address (Mprobe to Mrecv)
}

// noComm marks a handle whose members are not the world's in world order.
const noComm = math.MaxUint64

// commOf gives the id of the communicator field "handle,rank,size" on world rank r, or noComm.
func (rd *lapReader) commOf(r int, f string) (uint64, error) {
	parts := strings.Split(f, ",")
	if len(parts) != 3 {
		return 0, fmt.Errorf("communicator %q: want handle,rank,size", f)
	}
	h, err1 := strconv.ParseUint(parts[0], 10, 64)
	rank, err2 := strconv.Atoi(parts[1])
	size, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, fmt.Errorf("communicator %q: want numbers", f)
	}
	if rd.lib == libUnknown && size == rd.world && rank == r {
		switch {
		case h == mpichWorld:
			rd.lib = libMPICH
		case h == 0:
			rd.lib = libOpenMPIFortran
		default:
			rd.lib = libOpenMPIC
		}
	}
	m := rd.comms[r]
	if id, ok := m[h]; ok {
		return id, nil
	}
	if rd.order[r] == 0 && size == rd.world && rank != r {
		return 0, fmt.Errorf("the first communicator of the world's size says this is its rank %d, but the file is rank %d's (a copy of another rank's file?)", rank, r)
	}
	if size != rd.world || rank != r {
		m[h] = noComm
		return noComm, nil
	}
	// The k-th communicator of the world's members this rank meets is the k-th of every rank.
	k := rd.order[r]
	rd.order[r]++
	id := uint64(k)
	if id >= rd.nextComm {
		rd.nextComm = id + 1
	}
	m[h] = id
	return id, nil
}

// peer is a source or destination field as a world rank (the communicator's members are the
// world's), or AnySource, ProcNull.
func (rd *lapReader) peer(f string) (int32, error) {
	v, err := strconv.ParseInt(f, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("rank %q: want a number", f)
	}
	anySrc, procNull := int64(-1), int64(-2)
	if rd.lib == libMPICH {
		anySrc, procNull = -2, -1
	}
	switch {
	case v == anySrc:
		return AnySource, nil
	case v == procNull:
		return ProcNull, nil
	case v < 0 || v >= int64(rd.world):
		return 0, fmt.Errorf("rank %d: the world has ranks 0 to %d", v, rd.world-1)
	}
	return int32(v), nil
}

func tagOf(f string) (int32, error) {
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil || v < -1 || v > math.MaxInt32 {
		return 0, fmt.Errorf("tag %q: want a number, -1 for any", f)
	}
	return int32(v), nil // MPI_ANY_TAG is -1 in both libraries
}

// typeSize is the size in bytes of a datatype field "id,size,extent".
func typeSize(f string) (uint64, error) {
	parts := strings.Split(f, ",")
	if len(parts) != 3 {
		return 0, fmt.Errorf("datatype %q: want id,size,extent", f)
	}
	v, err := strconv.ParseUint(parts[1], 10, 32)
	if err != nil {
		return 0, fmt.Errorf("datatype %q: want its size", f)
	}
	return v, nil
}

func count(f string) (uint64, error) {
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("count %q: want a whole number", f)
	}
	return uint64(v), nil
}

func address(f string) (uint64, error) {
	v, err := strconv.ParseUint(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("address %q: want a number", f)
	}
	return v, nil
}

// µs reads a time field (µs, "%.0f" or "%f").
func µs(f string) (float64, error) {
	v, err := strconv.ParseFloat(f, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("time %q: want µs", f)
	}
	return v, nil
}
