package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// FuzzEngine drives the engine with a program decoded from the fuzz input (sends, some of
// them bad; receives with wildcards, PROC_NULL and small buffers; probes, matched probes,
// cancels; queue read errors) and checks every outcome against ref, an independent model of
// MPI matching written from the standard's rules: the same message for every receive, in
// the same order, with the same status; nothing lost (every message is received, pending,
// held by a matched probe or skipped as bad, and everything received or skipped is released).
//
// A failure prints the program. Replay: go test -run 'FuzzEngine/<name>' ./drivers/mpi/
// (the input is saved under testdata/fuzz/FuzzEngine).
func FuzzEngine(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 5, 1, 0x11, 0, 0})
	f.Add([]byte{1, 0x00, 0, 0, 0, 0, 0, 1, 2, 0, 3, 1, 5, 2, 0x10, 0, 0})
	f.Add([]byte{0, 0x41, 2, 0, 0, 0, 0, 1, 9, 7, 0, 2, 0x33, 0, 0, 1, 0x20, 0, 0, 4, 0, 0, 0})
	f.Add([]byte{5, 2, 0, 0, 0, 1, 1, 0, 0, 2, 0, 0x22, 1, 3, 0, 0, 0, 6, 0, 0, 0, 3, 0, 0x11, 0})
	f.Add([]byte{0, 0x80, 3, 0, 0, 0, 0, 0x90, 1, 1, 0, 1, 0xC1, 2, 0, 1, 0x44, 0, 2, 0, 7, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if err := runEngineProgram(prog); err != nil {
			t.Fatalf("%v\nprogram %x (replay: go test -run 'FuzzEngine' ./drivers/mpi/ with this input in testdata/fuzz/FuzzEngine)", err, prog)
		}
	})
}

// faultQueue fails the queue call it is armed for: a read error, not a bad message.
type faultQueue struct {
	*MemQueue
	failIn int // fail the failIn-th call from now (0: none)
}

var errFault = errors.New("injected read error")

func (q *faultQueue) fault() error {
	if q.failIn == 0 {
		return nil
	}
	q.failIn--
	if q.failIn == 0 {
		return errFault
	}
	return nil
}

func (q *faultQueue) Arrived() (uint64, error) {
	if err := q.fault(); err != nil {
		return 0, err
	}
	return q.MemQueue.Arrived()
}

func (q *faultQueue) Envelope(id uint64) (Envelope, error) {
	if err := q.fault(); err != nil {
		return Envelope{}, err
	}
	return q.MemQueue.Envelope(id)
}

func (q *faultQueue) Body(id uint64) ([]byte, error) {
	if err := q.fault(); err != nil {
		return nil, err
	}
	return q.MemQueue.Body(id)
}

func (q *faultQueue) Consume(id uint64) error {
	if err := q.fault(); err != nil {
		return err
	}
	return q.MemQueue.Consume(id)
}

// The reference: MPI matching (MPI-4.0 §3.5 order, §3.8 probe and cancel) over the raw
// messages, with the engine's documented treatment of bad input.

const refRanks = 4 // communicators 0 and 1, ranks 0..3

type refMsg struct {
	raw  []byte
	bad  bool // no whole envelope, or no rank could have sent it
	src  int32
	tag  int32
	comm int32
	size uint32
}

type refRecv struct {
	p         Pattern
	limit     int // -1: none
	got       int // message index; -1 while posted
	depth     int // Status.Depth: -1 for a receive that was posted, -2 unchecked (Mrecv)
	cancelled bool
	procNull  bool
}

type refModel struct {
	msgs     []refMsg
	seen     int
	unexp    []int
	posted   []*refRecv
	skipped  int
	received map[int]bool
}

func refParse(raw []byte) refMsg {
	m := refMsg{raw: raw}
	if len(raw) < 16 {
		m.bad = true
		return m
	}
	m.src = int32(binary.LittleEndian.Uint32(raw[0:]))
	m.tag = int32(binary.LittleEndian.Uint32(raw[4:]))
	m.comm = int32(binary.LittleEndian.Uint32(raw[8:]))
	m.size = binary.LittleEndian.Uint32(raw[12:])
	m.bad = m.size < 16 || (m.comm != 0 && m.comm != 1) || m.src < 0 || m.src >= refRanks || m.tag == -1
	return m
}

// refMatches is MPI's matching rule: same communicator; source equal or ANY_SOURCE; tag
// equal, or ANY_TAG, which takes only the user's tags (>= 0).
func refMatches(p Pattern, m refMsg) bool {
	if m.bad || m.comm != p.Comm {
		return false
	}
	if p.Source != -1 && p.Source != m.src {
		return false
	}
	if p.Tag == -1 {
		return m.tag >= 0
	}
	return p.Tag == m.tag
}

// progress gives each new arrival to the oldest posted receive it matches.
func (r *refModel) progress() {
	for ; r.seen < len(r.msgs); r.seen++ {
		m := r.msgs[r.seen]
		if m.bad {
			r.skipped++
			continue
		}
		taken := false
		for i, rv := range r.posted {
			if refMatches(rv.p, m) {
				rv.got = r.seen
				r.received[r.seen] = true
				r.posted = append(r.posted[:i], r.posted[i+1:]...)
				taken = true
				break
			}
		}
		if !taken {
			r.unexp = append(r.unexp, r.seen)
		}
	}
}

// find is the position in unexp of the oldest message p matches, or -1.
func (r *refModel) find(p Pattern) int {
	for i, idx := range r.unexp {
		if refMatches(p, r.msgs[idx]) {
			return i
		}
	}
	return -1
}

// wantStatus is the status a receive with limit gets from message idx.
func (r *refModel) wantStatus(idx, limit int, depth int) (Status, []byte, error) {
	m := r.msgs[idx]
	body := m.raw[16:]
	declared := int(m.size) - 16
	var class error
	if len(body) != declared {
		class = ErrMismatch
	} else if limit >= 0 && len(body) > limit {
		class = ErrTruncate
	}
	if limit >= 0 && len(body) > limit {
		body = body[:limit]
	}
	return Status{Source: m.src, Tag: m.tag, Comm: m.comm, Size: len(body), Declared: declared,
		ID: uint64(idx), Depth: depth}, body, class
}

type fuzzRecv struct {
	req *Request
	ref *refRecv
}

type fuzzProbe struct {
	msg  *Message
	idx  int // -1: PROC_NULL
	used bool
}

// runEngineProgram runs prog on the engine and the reference and returns the first
// disagreement.
func runEngineProgram(prog []byte) error {
	q := &faultQueue{MemQueue: NewMemQueue()}
	e := NewEngine(q, nil, DefaultCosts())
	for c := int32(0); c < 2; c++ {
		if err := e.AddComm(c, refRanks); err != nil {
			return err
		}
	}
	ref := &refModel{received: map[int]bool{}}
	var recvs []fuzzRecv
	var probes []*fuzzProbe
	next := func() byte {
		if len(prog) == 0 {
			return 0
		}
		b := prog[0]
		prog = prog[1:]
		return b
	}
	// pattern: source -1..3 or PROC_NULL, tag -1..3 or a reserved tag, communicator 0 or 1.
	pattern := func() Pattern {
		b := next()
		src := int32(b&7) - 1
		if src > 3 {
			src = ProcNull
		}
		tag := int32(b>>3&7) - 1
		if tag > 3 {
			tag = ReservedTagMax
		}
		return Pattern{Source: src, Tag: tag, Comm: int32(b >> 6 & 1)}
	}
	// afterFault runs Progress on both once an injected fault failed an engine call.
	afterFault := func(step int, err error) error {
		if !errors.Is(err, errFault) {
			return fmt.Errorf("step %d: %v", step, err)
		}
		q.failIn = 0
		if err := e.Progress(); err != nil {
			return fmt.Errorf("step %d: Progress after a read error: %v", step, err)
		}
		ref.progress()
		return nil
	}
	for step := 0; len(prog) > 0 && step < 200; step++ {
		op := next()
		if op&0x80 != 0 {
			q.failIn = int(next()&7) + 1 // a read error in one of the next calls
		}
		switch op & 7 {
		case 0, 1: // send
			b, tagb, n := next(), next(), int(next()&31)
			src := int32(b&7) - 1 // -1 is a forged ANY_SOURCE on the wire
			comm := int32(b >> 3 & 1)
			if b&0x40 != 0 {
				comm = 7 // unknown
			}
			tag := int32(tagb&7) - 1
			if tag > 3 {
				tag = ReservedTagMax - int32(tagb>>3&3)
			}
			body := make([]byte, n)
			for i := range body {
				body[i] = byte(len(ref.msgs)*31 + i)
			}
			msg := Eager(src, tag, comm, body)
			switch tagb >> 5 {
			case 1: // shorter than an envelope
				msg = msg[:int(tagb)%16]
			case 2: // size field that lies
				binary.LittleEndian.PutUint32(msg[SizeOffset:], uint32(len(msg))+uint32(tagb&15)-8)
			}
			if err := q.Inject(msg); err != nil {
				return err
			}
			ref.msgs = append(ref.msgs, refParse(msg))
		case 2: // Irecv or IrecvInto
			p := pattern()
			lb := next()
			limit := -1
			if lb&0x80 != 0 {
				limit = int(lb & 31)
			}
			var req *Request
			var err error
			if limit >= 0 {
				req, err = e.IrecvInto(p, make([]byte, limit))
			} else {
				req, err = e.Irecv(p)
			}
			if err != nil && req == nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
				continue
			}
			rv := &refRecv{p: p, limit: limit, got: -1, depth: -1}
			if p.Source == ProcNull {
				rv.procNull = true
			} else {
				ref.progress()
				if pos := ref.find(p); pos >= 0 {
					rv.got, rv.depth = ref.unexp[pos], pos
					ref.received[rv.got] = true
					ref.unexp = append(ref.unexp[:pos], ref.unexp[pos+1:]...)
				} else {
					ref.posted = append(ref.posted, rv)
				}
			}
			recvs = append(recvs, fuzzRecv{req, rv})
			if err != nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
			}
		case 3: // Iprobe
			p := pattern()
			st, ok, err := e.Iprobe(p)
			if err != nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
				continue
			}
			if p.Source == ProcNull {
				if !ok || st.Source != ProcNull {
					return fmt.Errorf("step %d: Iprobe of PROC_NULL: %v %+v", step, ok, st)
				}
				continue
			}
			ref.progress()
			pos := ref.find(p)
			if ok != (pos >= 0) {
				return fmt.Errorf("step %d: Iprobe %+v found %v, reference %v", step, p, ok, pos >= 0)
			}
			if ok {
				want, _, _ := ref.wantStatus(ref.unexp[pos], -1, pos)
				want.Size = want.Declared
				if st != want {
					return fmt.Errorf("step %d: Iprobe %+v status %+v, want %+v", step, p, st, want)
				}
			}
		case 4: // Improbe
			p := pattern()
			m, ok, err := e.Improbe(p)
			if err != nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
				continue
			}
			if p.Source == ProcNull {
				probes = append(probes, &fuzzProbe{msg: m, idx: -1})
				continue
			}
			ref.progress()
			pos := ref.find(p)
			if ok != (pos >= 0) {
				return fmt.Errorf("step %d: Improbe %+v found %v, reference %v", step, p, ok, pos >= 0)
			}
			if ok {
				idx := ref.unexp[pos]
				if m.Status().ID != uint64(idx) {
					return fmt.Errorf("step %d: Improbe %+v took message %d, reference %d", step, p, m.Status().ID, idx)
				}
				ref.unexp = append(ref.unexp[:pos], ref.unexp[pos+1:]...)
				probes = append(probes, &fuzzProbe{msg: m, idx: idx})
			}
		case 5: // Mrecv of a held message
			if len(probes) == 0 {
				continue
			}
			pr := probes[int(next())%len(probes)]
			req, err := e.Mrecv(pr.msg, nil)
			if pr.used {
				if err == nil {
					return fmt.Errorf("step %d: a second Mrecv of a message succeeded", step)
				}
				continue
			}
			if err != nil && req == nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
				continue
			}
			pr.used = true
			rv := &refRecv{limit: -1, got: pr.idx, depth: -2, procNull: pr.idx < 0}
			if pr.idx >= 0 {
				ref.received[pr.idx] = true
				rv.p = Pattern{Source: -1, Tag: -1, Comm: ref.msgs[pr.idx].comm}
			}
			recvs = append(recvs, fuzzRecv{req, rv})
			if err != nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
			}
		case 6: // Cancel
			if len(recvs) == 0 {
				continue
			}
			rc := recvs[int(next())%len(recvs)]
			if err := e.Cancel(rc.req); err != nil {
				return fmt.Errorf("step %d: Cancel: %v", step, err)
			}
			for i, rv := range ref.posted {
				if rv == rc.ref {
					rv.cancelled = true
					ref.posted = append(ref.posted[:i], ref.posted[i+1:]...)
					break
				}
			}
		case 7: // Progress
			if err := e.Progress(); err != nil {
				if ferr := afterFault(step, err); ferr != nil {
					return ferr
				}
				continue
			}
			ref.progress()
		}
	}
	q.failIn = 0
	if err := e.Progress(); err != nil {
		return fmt.Errorf("final Progress: %v", err)
	}
	ref.progress()
	return checkEngineEnd(e, q, ref, recvs, probes)
}

func checkEngineEnd(e *Engine, q *faultQueue, ref *refModel, recvs []fuzzRecv, probes []*fuzzProbe) error {
	for i, rc := range recvs {
		rv, req := rc.ref, rc.req
		switch {
		case rv.cancelled:
			if !req.Done() || !req.Status().Cancelled {
				return fmt.Errorf("receive %d %+v: cancelled in the reference, engine done=%v %+v", i, rv.p, req.Done(), req.Status())
			}
		case rv.procNull:
			if !req.Done() || req.Status().Source != ProcNull || len(req.Data()) != 0 {
				return fmt.Errorf("receive %d: PROC_NULL status %+v", i, req.Status())
			}
		case rv.got < 0:
			if req.Done() {
				return fmt.Errorf("receive %d %+v: posted in the reference, engine has message %d", i, rv.p, req.Status().ID)
			}
		default:
			if !req.Done() {
				return fmt.Errorf("receive %d %+v: reference has message %d, engine is still posted", i, rv.p, rv.got)
			}
			st := req.Status()
			depth := rv.depth
			if depth == -2 {
				depth = st.Depth
			}
			want, body, class := ref.wantStatus(rv.got, rv.limit, depth)
			got := st
			got.Err = nil
			if got != want {
				return fmt.Errorf("receive %d %+v: status %+v, want %+v", i, rv.p, st, want)
			}
			if (class == nil) != (st.Err == nil) || class != nil && !errors.Is(st.Err, class) {
				return fmt.Errorf("receive %d: error %v, want %v", i, st.Err, class)
			}
			if string(req.Data()) != string(body) {
				return fmt.Errorf("receive %d: data %x, want %x", i, req.Data(), body)
			}
		}
	}
	held := 0
	for _, pr := range probes {
		if pr.idx >= 0 && !pr.used {
			held++
		}
	}
	// Bad messages still in the unexpected queue are skipped by the next search that reaches
	// them; count them with the skipped ones.
	if got, want := e.Pending()+e.Skipped(), len(ref.unexp)+ref.skipped; got != want {
		return fmt.Errorf("pending+skipped %d+%d, reference %d+%d", e.Pending(), e.Skipped(), len(ref.unexp), ref.skipped)
	}
	if e.Posted() != len(ref.posted) {
		return fmt.Errorf("posted %d, reference %d", e.Posted(), len(ref.posted))
	}
	accounted := len(ref.received) + len(ref.unexp) + ref.skipped + held
	if accounted != len(ref.msgs) {
		return fmt.Errorf("%d messages, %d accounted for", len(ref.msgs), accounted)
	}
	// Everything received or skipped is released; nothing else is.
	pending := map[uint64]bool{}
	for _, id := range e.unexpected {
		pending[id] = true
	}
	for id := range ref.msgs {
		wantFree := ref.received[id] || ref.msgs[id].bad && !pending[uint64(id)]
		if q.consumed[uint64(id)] != wantFree {
			return fmt.Errorf("message %d released=%v, want %v (received %v, bad %v)", id, q.consumed[uint64(id)], wantFree, ref.received[id], ref.msgs[id].bad)
		}
	}
	return nil
}
