package apptrace

// One liballprof line as a Call (liballprof.go says what the reader makes of the format).

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// lapLayouts are the arguments liballprof prints per function, in order (its gencode.py's
// rules on the MPI prototypes): p a pointer or handle, i an integer, D a datatype
// (id,size,extent), C a communicator (handle,rank,size), O an operation, V a count array
// (two fields: its address, then the counts). The Fortran binding prints the same.
var lapLayouts = map[string]string{
	"MPI_Send": "piDiiC", "MPI_Ssend": "piDiiC", "MPI_Bsend": "piDiiC", "MPI_Rsend": "piDiiC",
	"MPI_Isend": "piDiiCp", "MPI_Issend": "piDiiCp", "MPI_Ibsend": "piDiiCp", "MPI_Irsend": "piDiiCp",
	"MPI_Send_init": "piDiiCp", "MPI_Ssend_init": "piDiiCp", "MPI_Bsend_init": "piDiiCp", "MPI_Rsend_init": "piDiiCp",
	"MPI_Recv": "piDiiCp", "MPI_Irecv": "piDiiCp", "MPI_Recv_init": "piDiiCp",
	"MPI_Sendrecv": "piDiipiDiiCp", "MPI_Sendrecv_replace": "piDiiiiCp",
	"MPI_Probe": "iiCp", "MPI_Iprobe": "iiCpp", "MPI_Mprobe": "iiCpp", "MPI_Improbe": "iiCppp",
	"MPI_Mrecv": "piDpp", "MPI_Imrecv": "piDpp",
	"MPI_Wait": "pp", "MPI_Test": "ppp", "MPI_Waitall": "ipp", "MPI_Testall": "ippp",
	"MPI_Waitany": "ippp", "MPI_Testany": "ipppp", "MPI_Waitsome": "ipppp", "MPI_Testsome": "ipppp",
	"MPI_Start": "p", "MPI_Startall": "ip", "MPI_Cancel": "p", "MPI_Request_free": "p",
	"MPI_Barrier": "C", "MPI_Bcast": "piDiC", "MPI_Reduce": "ppiDOiC", "MPI_Allreduce": "ppiDOC",
	"MPI_Gather": "piDpiDiC", "MPI_Gatherv": "piDpVVDiC", "MPI_Scatter": "piDpiDiC", "MPI_Scatterv": "pVVDpiDiC",
	"MPI_Allgather": "piDpiDC", "MPI_Allgatherv": "piDpVVDC", "MPI_Alltoall": "piDpiDC", "MPI_Alltoallv": "pVVDpVVDC",
	"MPI_Reduce_scatter_block": "ppiDOC", "MPI_Scan": "ppiDOC", "MPI_Exscan": "ppiDOC",
}

// lapColls are the collectives the model has.
var lapColls = map[string]Coll{
	"MPI_Barrier": Barrier, "MPI_Bcast": Bcast, "MPI_Reduce": Reduce, "MPI_Allreduce": Allreduce,
	"MPI_Gather": Gather, "MPI_Gatherv": Gatherv, "MPI_Scatter": Scatter, "MPI_Scatterv": Scatterv,
	"MPI_Allgather": Allgather, "MPI_Allgatherv": Allgatherv, "MPI_Alltoall": Alltoall, "MPI_Alltoallv": Alltoallv,
	"MPI_Reduce_scatter_block": ReduceScatterB, "MPI_Scan": Scan, "MPI_Exscan": Exscan,
}

// lapUnknowable are calls whose outcome liballprof does not record (a flag, an index).
var lapUnknowable = map[string]string{
	"MPI_Test": "its flag", "MPI_Testall": "its flag", "MPI_Testany": "its flag and index",
	"MPI_Testsome": "which requests", "MPI_Waitany": "which request", "MPI_Waitsome": "which requests",
	"MPI_Iprobe": "its flag", "MPI_Improbe": "its flag",
}

// lapLocal are calls that send nothing and wait for nobody (by prefix); communicator creation
// is among them: the schedule has no message for it, and its communicator's id comes from its
// handle (commOf).
var lapLocal = []string{"MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_compare", "MPI_Comm_group", "MPI_Comm_test_inter",
	"MPI_Comm_get_", "MPI_Comm_set_", "MPI_Comm_remote_", "MPI_Comm_free", "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create",
	"MPI_Cart", "MPI_Graph", "MPI_Dist_graph", "MPI_Topo_test", "MPI_Dims_create", "MPI_Type_", "MPI_Group_", "MPI_Info_",
	"MPI_Op_", "MPI_Errhandler_", "MPI_Error_", "MPI_Get_", "MPI_Address", "MPI_Wtime", "MPI_Wtick", "MPI_Initialized",
	"MPI_Finalized", "MPI_Pack", "MPI_Unpack", "MPI_Buffer_", "MPI_Attr_", "MPI_Keyval_", "MPI_Pcontrol", "MPI_Query_thread",
	"MPI_Is_thread_main", "MPI_Alloc_mem", "MPI_Free_mem"}

func isLocal(name string) bool {
	for _, p := range lapLocal {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// readRank reads world rank r's file.
func (rd *lapReader) readRank(in io.Reader, r int) ([]Call, error) {
	rd.comms[r] = map[uint64]uint64{}
	rd.reqs, rd.persist, rd.msgs = map[uint64]uint64{}, map[uint64]bool{}, map[uint64]uint64{}
	var calls []Call
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	prevEnd, carry := -1.0, uint64(0)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 3 || !strings.HasPrefix(f[0], "MPI_") {
			return nil, fmt.Errorf("line %d: %q is not a call (MPI_NAME:START:ARGS...:END)", lineNo, truncate(line))
		}
		name := f[0]
		var start, end float64
		var err error
		switch {
		case name == "MPI_Init" || name == "MPI_Init_thread":
			if end, err = µs(f[len(f)-1]); err == nil {
				start = end
			}
		case name == "MPI_Finalize":
			if start, err = µs(f[1]); err == nil {
				end = start
			}
		default:
			start, err = µs(f[1])
			if err == nil {
				if end, err = µs(f[len(f)-1]); err != nil {
					err = fmt.Errorf("its last field %q is not its end time (a truncated line?)", truncate(f[len(f)-1]))
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", lineNo, name, err)
		}
		c, err := rd.call(r, name, f[2:len(f)-1])
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", lineNo, name, err)
		}
		if prevEnd < 0 {
			if c.Kind != KInit {
				return nil, fmt.Errorf("line %d: %s before MPI_Init", lineNo, name)
			}
			prevEnd = end
		}
		c.CPU = nsBetween(prevEnd, start) + carry
		carry = 0
		if c.Kind == KNop || c.Kind == KOther || c.Kind == KComplete && len(c.Reqs) == 0 {
			// The schedule keeps nothing of it: its time is the program's, as Schedgen counts it.
			carry = nsBetween(start, end)
			if c.Kind == KComplete {
				c.Kind = KNop // a Wait on a request already complete (MPI_REQUEST_NULL)
			}
		}
		prevEnd = max(end, start)
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("no MPI calls (not a liballprof trace, or empty)")
	}
	if calls[len(calls)-1].Kind != KFinalize {
		return nil, fmt.Errorf("line %d: the trace ends without MPI_Finalize (a rank killed midway, or a truncated file)", lineNo)
	}
	return calls, nil
}

// nsBetween is b - a µs in ns, rounded as Schedgen rounds (round(time * 1000)); 0 when the
// clock went back.
func nsBetween(a, b float64) uint64 {
	if b <= a {
		return 0
	}
	return uint64(math.Round((b - a) * 1000))
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// lapSplit gives the arguments one string per layout letter (a V's counts for a V).
func lapSplit(name, layout string, args []string) ([]string, error) {
	want := len(layout) + strings.Count(layout, "V")
	if len(args) != want {
		return nil, fmt.Errorf("%d arguments, liballprof prints %d for %s", len(args), want, name)
	}
	out := make([]string, 0, len(layout))
	i := 0
	for _, k := range layout {
		if k == 'V' {
			out = append(out, args[i+1])
			i += 2
			continue
		}
		out = append(out, args[i])
		i++
	}
	return out, nil
}

// call decodes one call of world rank r; CPU is set by the caller.
func (rd *lapReader) call(r int, name string, args []string) (Call, error) {
	c := Call{Func: name}
	switch name {
	case "MPI_Init", "MPI_Init_thread":
		c.Kind = KInit
		return c, nil
	case "MPI_Finalize":
		c.Kind = KFinalize
		return c, nil
	}
	if what, ok := lapUnknowable[name]; ok {
		c.Kind = KOther
		c.Func = fmt.Sprintf("%s (liballprof does not record %s)", name, what)
		return c, nil
	}
	layout, ok := lapLayouts[name]
	if !ok {
		c.Kind = KNop
		if !isLocal(name) {
			c.Kind = KOther
		} else if len(args) > 0 && (strings.HasPrefix(name, "MPI_Comm_") || strings.HasPrefix(name, "MPI_Cart")) && strings.Count(args[0], ",") == 2 {
			// Meeting a communicator here keeps the order in which each rank meets them.
			if _, err := rd.commOf(r, args[0]); err != nil {
				return c, err
			}
		}
		return c, nil
	}
	a, err := lapSplit(name, layout, args)
	if err != nil {
		return c, err
	}
	d := lapDecoder{rd: rd, r: r, a: a, layout: layout}
	return d.decode(c)
}
