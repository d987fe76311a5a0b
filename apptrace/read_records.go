package apptrace

import (
	"fmt"
	"io"
	"math"
)

// readRecords reads a rank's records up to its end record. A call that changed nothing the
// schedule holds (a Test or probe that found nothing: a polling loop makes millions) is not
// kept: its computation passes on to the next call, and folded counts it.
func readRecords(rd *reader, h header) (calls []Call, comms []Comm, folded int, err error) {
	var records, carried uint64
	for {
		start := rd.off
		if _, err := rd.r.Peek(1); err == io.EOF {
			return nil, nil, 0, rd.fail("ends after %d calls without its end record: rank %d did not reach MPI_Finalize (killed, crashed, or the file was cut short)", len(calls)+folded, h.rank)
		}
		fid, err := rd.uvarint("a record's function")
		if err != nil {
			return nil, nil, 0, err
		}
		if fid >= uint64(len(h.funcs)) {
			return nil, nil, 0, &FormatError{rd.path, fmt.Sprintf("byte %d: function %d, but the header names %d", start, fid, len(h.funcs))}
		}
		fi := h.funcs[fid]
		cpu, err := rd.uvarint(fi.name + "'s cpu time")
		if err != nil {
			return nil, nil, 0, err
		}
		nf, err := rd.uvarint(fi.name + "'s field count")
		if err != nil {
			return nil, nil, 0, err
		}
		if nf > 1<<28 {
			return nil, nil, 0, rd.fail("%s with %d fields", fi.name, nf)
		}
		fields := make([]uint64, nf)
		for i := range fields {
			if fields[i], err = rd.uvarint(fi.name + "'s fields"); err != nil {
				return nil, nil, 0, err
			}
		}
		if fi.dec == decEnd {
			if nf != 1 || fields[0] != records {
				return nil, nil, 0, &FormatError{rd.path, fmt.Sprintf("byte %d: the end record counts %v records, the file holds %d", start, fields, records)}
			}
			if _, err := rd.r.Peek(1); err != io.EOF {
				return nil, nil, 0, rd.fail("bytes after the end record")
			}
			return calls, comms, folded, nil
		}
		records++
		if fi.dec == decPolls {
			if nf != 1 {
				return nil, nil, 0, &FormatError{rd.path, fmt.Sprintf("byte %d: LHT_Polls with %d fields", start, nf)}
			}
			folded += int(min(fields[0], 1<<40))
			carried += cpu
			continue
		}
		c := Call{Func: fi.name, Kind: fi.kind, Coll: fi.coll, CPU: cpu}
		comm, err := decode(&c, fi, fields, h.size)
		if err != nil {
			return nil, nil, 0, &FormatError{rd.path, fmt.Sprintf("byte %d: %s: %v", start, fi.name, err)}
		}
		if comm != nil {
			comms = append(comms, *comm)
		}
		if c.Kind == KNop || (c.Kind == KComplete || c.Kind == KStart) && len(c.Reqs) == 0 {
			carried += c.CPU
			folded++
			continue
		}
		c.CPU += carried
		carried = 0
		calls = append(calls, c)
	}
}

// interComm is the communicator id the tracer writes for an intercommunicator.
const interComm = math.MaxUint64

func zig(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// decode fills c from a record's fields and returns the communicator it makes, if any.
func decode(c *Call, fi funcInfo, f []uint64, size int) (*Comm, error) {
	want := map[decoder]int{decNone: 0, decP2P: 4, decP2PReq: 5, decSendrecv: 7, decProbe: 5, decCommFree: 1}
	if n, ok := want[fi.dec]; ok && len(f) != n {
		return nil, fmt.Errorf("%d fields, want %d", len(f), n)
	}
	peer := func(u uint64, what string) (int32, error) {
		p := zig(u)
		switch {
		case p == -1:
			return AnySource, nil
		case p == -2:
			return ProcNull, nil
		case p < 0 || p >= int64(size):
			return 0, fmt.Errorf("%s %d is not a rank of the %d", what, p, size)
		}
		return int32(p), nil
	}
	tag := func(u uint64) (int32, error) {
		t := zig(u)
		if t < -1 || t > math.MaxInt32 {
			return 0, fmt.Errorf("tag %d", t)
		}
		return int32(t), nil
	}
	var err error
	switch fi.dec {
	case decP2P, decP2PReq, decProbe, decSendrecv, decColl:
		if f[0] == interComm {
			// The tracer's id for an intercommunicator (or one it could not read): its
			// peers are not world ranks, and the conversion lists the call as unknown.
			c.Kind, c.Func = KOther, c.Func+" on an intercommunicator"
			return nil, nil
		}
	}
	switch fi.dec {
	case decP2P, decP2PReq, decProbe:
		c.Comm = f[0]
		if c.Tag, err = tag(f[1]); err != nil {
			return nil, err
		}
		if c.Peer, err = peer(f[2], "peer"); err != nil {
			return nil, err
		}
		if fi.dec == decProbe {
			c.Flag = f[3] != 0
			c.Req = f[4]
			if !c.Flag {
				c.Kind = KNop
			}
		} else {
			c.Size = f[3]
		}
		if fi.dec == decP2PReq {
			c.Req = f[4]
		}
	case decSendrecv:
		c.Comm = f[0]
		if c.Peer, err = peer(f[1], "destination"); err != nil {
			return nil, err
		}
		if c.Tag, err = tag(f[2]); err != nil {
			return nil, err
		}
		c.Size = f[3]
		if c.RecvPeer, err = peer(f[4], "source"); err != nil {
			return nil, err
		}
		if c.RecvTag, err = tag(f[5]); err != nil {
			return nil, err
		}
		c.RecvSize = f[6]
	case decMrecv:
		if len(f) != 2 && len(f) != 3 {
			return nil, fmt.Errorf("%d fields, want 2 or 3", len(f))
		}
		c.Size, c.Req = f[0], f[1]
		if len(f) == 3 {
			c.Reqs = []uint64{f[2]}
		}
	case decReqList:
		if len(f) == 0 || f[0] != uint64(len(f)-1) {
			return nil, fmt.Errorf("%d fields for a list of %v", len(f), f[:min(1, len(f))])
		}
		if len(f) > 1 {
			c.Reqs = f[1:]
		}
	case decReq:
		// MPI_Cancel's record has a second field, whether the cancel took effect (0 when the
		// tracer did not see it; a trace made before it was recorded has one field).
		if len(f) != 1 && !(len(f) == 2 && c.Kind == KCancel) {
			return nil, fmt.Errorf("%d fields, want 1", len(f))
		}
		c.Req = f[0]
		if len(f) == 2 {
			if f[1] > uint64(CancelFailed) {
				return nil, fmt.Errorf("cancel outcome %d, want 0, 1 or 2", f[1])
			}
			c.Cancel = CancelOutcome(f[1])
		}
	case decColl:
		if len(f) < 4 || f[3] != uint64(len(f)-4) {
			return nil, fmt.Errorf("%d fields for a collective", len(f))
		}
		c.Comm = f[0]
		c.Root = -1
		if r := zig(f[1]); r != -1 {
			if c.Root, err = peer(f[1], "root"); err != nil {
				return nil, err
			}
		}
		c.Size = f[2]
		if len(f) > 4 {
			c.Counts = f[4:]
		}
	case decComm:
		if len(f) < 3 || f[2] != uint64(len(f)-3) {
			return nil, fmt.Errorf("%d fields for a communicator", len(f))
		}
		c.Comm, c.NewComm = f[0], f[1]
		if c.NewComm == math.MaxUint64 { // MPI_COMM_NULL: this rank is in none of the new ones
			c.Kind = KNop
			return nil, nil
		}
		m := make([]int32, len(f)-3)
		for i := range m {
			if m[i], err = peer(f[3+i], "member"); err != nil || m[i] < 0 {
				return nil, fmt.Errorf("member %d of the communicator: %d", i, zig(f[3+i]))
			}
		}
		if c.NewComm == CommWorld {
			return nil, fmt.Errorf("a communicator with MPI_COMM_WORLD's id 0")
		}
		return &Comm{ID: c.NewComm, Members: m}, nil
	case decCommFree:
		c.Comm = f[0]
	}
	return nil, nil
}
