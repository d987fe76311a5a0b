package apptrace

import (
	"fmt"
	"math"

	"github.com/lhsim/lhsim/netsim/goal"
)

// rankConv turns one rank's calls into operations. seq is the operation everything that
// follows in program order requires: the last blocking call's (or computation's, or
// completion's) operation; a nonblocking operation requires it but does not become it.
type rankConv struct {
	c       *conv
	r       int
	ops     []gop
	seq     int32
	cpu     uint64             // computation not yet written (ns)
	reqs    map[uint64][]int32 // a request's operations not yet completed, oldest first
	persist map[uint64]Call    // persistent requests: the call that made them
	msgs    map[uint64]int32   // MPI_Message from Mprobe: its receive
	arena   []int32            // where single dependencies are kept
}

func newRankConv(c *conv, r int, calls int) *rankConv {
	return &rankConv{c: c, r: r, seq: -1, reqs: map[uint64][]int32{}, persist: map[uint64]Call{}, msgs: map[uint64]int32{},
		ops: make([]gop, 0, 2*calls+16)} // a call makes about two operations: its own and the calc before it
}

// add appends an operation that requires deps (or seq, when deps is nil).
func (rc *rankConv) add(op gop, deps []int32) int32 {
	if deps == nil && rc.seq >= 0 {
		// Single dependencies share one growing array: no allocation per operation (a slice
		// into an array the arena has outgrown stays valid).
		if len(rc.arena) == cap(rc.arena) {
			rc.arena = make([]int32, 0, 4096)
		}
		rc.arena = append(rc.arena, rc.seq)
		deps = rc.arena[len(rc.arena)-1 : len(rc.arena) : len(rc.arena)]
	}
	op.deps = deps
	rc.ops = append(rc.ops, op)
	return int32(len(rc.ops) - 1)
}

// flushCPU writes the computation since the last operation as a calc, which becomes seq.
func (rc *rankConv) flushCPU() {
	ns := uint64(math.Round(float64(rc.cpu) * rc.c.opt.ComputeScale))
	rc.c.st.CalcNanos += ns
	rc.cpu = 0
	if ns == 0 {
		return
	}
	rc.seq = rc.add(gop{kind: goal.Calc, size: ns}, nil)
}

// join makes seq wait for ops: the operation itself when it is the only one and the last
// added (it already requires seq), else a calc 0 that requires seq and each of them.
func (rc *rankConv) join(ops []int32) {
	live := ops[:0:0]
	for _, o := range ops {
		if o >= 0 && !rc.ops[o].dead {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 && live[0] == int32(len(rc.ops)-1) {
		rc.seq = live[0]
		return
	}
	deps := live
	if rc.seq >= 0 && !contains(live, rc.seq) {
		deps = append([]int32{rc.seq}, live...)
	}
	rc.seq = rc.add(gop{kind: goal.Calc}, deps)
}

func contains(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (rc *rankConv) space(comm uint64, coll bool) (uint32, error) {
	i, ok := rc.c.commIdx[comm]
	if !ok {
		return 0, fmt.Errorf("communicator %#x: the trace never made it", comm)
	}
	s := 2 * i
	if coll {
		s++
	}
	return s, nil
}

func peer(p int32) uint32 {
	if p == AnySource {
		return goal.Any
	}
	return uint32(p)
}

// p2p adds a send or receive (nothing for MPI_PROC_NULL) and returns it, or -1.
func (rc *rankConv) p2p(kind goal.Kind, comm uint64, p, tag int32, size uint64, deps []int32) (int32, error) {
	if p == ProcNull {
		return -1, nil
	}
	sp, err := rc.space(comm, false)
	if err != nil {
		return -1, err
	}
	if kind == goal.Send && (p < 0 || tag < 0) {
		return -1, fmt.Errorf("a send to %d with tag %d", p, tag)
	}
	op := gop{kind: kind, size: size, peer: peer(p), space: sp, tag: tag}
	if kind == goal.Send {
		rc.c.incoming[p][srcSpace{uint32(rc.r), sp}] = true
	}
	o := rc.add(op, deps)
	if kind == goal.Recv && tag == AnyTag {
		rc.c.anyTag = append(rc.c.anyTag, anyTagRecv{uint32(rc.r), peer(p), sp, o})
	}
	return o, nil
}

func (rc *rankConv) blocking(o int32, err error) error {
	if o >= 0 {
		rc.seq = o
	}
	return err
}

func (rc *rankConv) pend(req uint64, o int32) {
	if o >= 0 {
		rc.reqs[req] = append(rc.reqs[req], o)
	}
}

// complete takes a request's oldest pending operation (-1: none, a request the trace did not
// make, or one that made no operation such as a receive from MPI_PROC_NULL).
func (rc *rankConv) complete(req uint64) int32 {
	q := rc.reqs[req]
	if len(q) == 0 {
		return -1
	}
	o := q[0]
	if len(q) == 1 {
		rc.reqs[req] = q[:0] // the value comes back: MPI reuses its request objects
	} else {
		rc.reqs[req] = q[1:]
	}
	return o
}

func (rc *rankConv) call(cl *Call) error {
	rc.cpu += cl.CPU
	rc.c.st.CPUNanos += cl.CPU
	switch cl.Kind {
	case KNop, KInit, KFinalize, KCommCreate, KCommFree, KProbe:
		// A probe receives nothing: the receive that follows it matches the message it saw.
		// Communicator creation's own messages are not in the schedule (docs/apps.md).
		return nil
	case KOther:
		rc.c.st.Unknown[cl.Func]++
		return nil
	case KComplete, KStart:
		if len(cl.Reqs) == 0 {
			return nil // a Test that found nothing done: polling, its time is computation
		}
	}
	rc.flushCPU()
	switch cl.Kind {
	case KSend:
		return rc.blocking(rc.p2p(goal.Send, cl.Comm, cl.Peer, cl.Tag, cl.Size, nil))
	case KRecv:
		return rc.blocking(rc.p2p(goal.Recv, cl.Comm, cl.Peer, cl.Tag, cl.Size, nil))
	case KIsend, KIrecv:
		k := goal.Send
		if cl.Kind == KIrecv {
			k = goal.Recv
		}
		o, err := rc.p2p(k, cl.Comm, cl.Peer, cl.Tag, cl.Size, nil)
		rc.pend(cl.Req, o)
		return err
	case KSendInit, KRecvInit:
		rc.persist[cl.Req] = *cl
	case KStart:
		for _, q := range cl.Reqs {
			p, ok := rc.persist[q]
			if !ok {
				return fmt.Errorf("MPI_Start of request %#x, which no MPI_Send_init or Recv_init made", q)
			}
			k := goal.Send
			if p.Kind == KRecvInit {
				k = goal.Recv
			}
			o, err := rc.p2p(k, p.Comm, p.Peer, p.Tag, p.Size, nil)
			if err != nil {
				return err
			}
			rc.pend(q, o)
		}
	case KSendrecv:
		s, err := rc.p2p(goal.Send, cl.Comm, cl.Peer, cl.Tag, cl.Size, nil)
		if err != nil {
			return err
		}
		r, err := rc.p2p(goal.Recv, cl.Comm, cl.RecvPeer, cl.RecvTag, cl.RecvSize, nil)
		if err != nil {
			return err
		}
		rc.join([]int32{s, r})
	case KMprobe:
		// The matched probe takes the message: it is the receive; Mrecv gives its size.
		o, err := rc.p2p(goal.Recv, cl.Comm, cl.Peer, cl.Tag, 0, nil)
		if o >= 0 {
			rc.msgs[cl.Req] = o
		}
		return rc.blocking(o, err)
	case KMrecv:
		o, ok := rc.msgs[cl.Req]
		if !ok {
			return nil // MPI_MESSAGE_NO_PROC: a probe of MPI_PROC_NULL
		}
		delete(rc.msgs, cl.Req)
		rc.ops[o].size = cl.Size
		if len(cl.Reqs) == 1 {
			rc.pend(cl.Reqs[0], o)
		}
	case KComplete:
		done := make([]int32, 0, len(cl.Reqs))
		for _, q := range cl.Reqs {
			done = append(done, rc.complete(q))
		}
		rc.join(done)
	case KCancel:
		// A cancel that failed leaves the operation as it was: a receive that matched a
		// message must take it, or the message stays unreceived. One the trace says nothing
		// of is taken as cancelled, and counted.
		if q := rc.reqs[cl.Req]; len(q) > 0 {
			o := q[len(q)-1]
			switch {
			case rc.ops[o].dead:
			case cl.Cancel == CancelFailed:
				rc.c.st.CancelFailed++
			default:
				rc.ops[o].dead = true
				rc.c.st.Cancelled++
				if cl.Cancel == CancelUnknown {
					rc.c.st.CancelUnknown++
				}
			}
		}
	case KRequestFree:
		delete(rc.persist, cl.Req)
	case KColl:
		return rc.collective(cl)
	default:
		return fmt.Errorf("call kind %d", cl.Kind)
	}
	return nil
}
