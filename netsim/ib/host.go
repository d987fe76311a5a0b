package ib

import (
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Program is what a host runs: an explicit state machine, so that a checkpoint can save it
// (a coroutine's stack cannot be saved; netsim/cluster's rank programs are coroutines).
// Step runs from where the program stopped until it must wait and says for what; it runs at
// one instant of simulated time (the host's software costs nothing of its own: docs/ib.md).
type Program interface {
	Step(h *Host) (Wait, error)
	// MarshalState and UnmarshalState save and restore the program's state.
	MarshalState() ([]byte, error)
	UnmarshalState([]byte) error
}

// WaitKind is what a program waits for.
type WaitKind uint8

const (
	// WaitDone: the program has ended.
	WaitDone WaitKind = iota
	// WaitCQ: a completion in CQ (the host polls its CQ in memory and sees the entry a
	// memory read after the HCA wrote it).
	WaitCQ
	// WaitUntil: simulated time At (the host computing).
	WaitUntil
)

// Wait is what a program waits for, and what to call it in an error.
type Wait struct {
	Kind WaitKind
	CQ   uint32
	At   netsim.Time
	What string
}

// Done, OnCQ and Until make waits.
func Done() Wait                            { return Wait{Kind: WaitDone} }
func OnCQ(cq uint32, what string) Wait      { return Wait{Kind: WaitCQ, CQ: cq, What: what} }
func Until(t netsim.Time, what string) Wait { return Wait{Kind: WaitUntil, At: t, What: what} }

// ErrWaitLimit is wrapped by the error of a wait that went past Params.WaitLimit.
var ErrWaitLimit = errors.New("wait limit reached")

// Host is one node's host: its program, and the verbs layer's view of its queues (what it
// posted, what it has seen complete).
type Host struct {
	c  *Cluster
	nd *Node
	h  *HCA

	prog     Program
	wait     Wait
	deadline netsim.Time // the wait fails at this time
	gen      uint64      // wakes of an older wait are ignored
	started  bool
	done     bool
	end      netsim.Time
	stopped  bool // suspended by a checkpoint

	// The verbs layer's bookkeeping, by QP number, shared receive queue and CQ number.
	sqPosted, sqDone   []uint32
	rqPosted, rqDone   []uint32 // per QP (its own receive queue)
	srqPosted, srqDone []uint32
	cqCons             []uint32
}

func newHost(c *Cluster, nd *Node) *Host {
	h := nd.HCA
	return &Host{c: c, nd: nd, h: h,
		sqPosted: make([]uint32, len(h.qps)+1), sqDone: make([]uint32, len(h.qps)+1),
		rqPosted: make([]uint32, len(h.qps)+1), rqDone: make([]uint32, len(h.qps)+1),
		srqPosted: make([]uint32, len(h.srqs)), srqDone: make([]uint32, len(h.srqs)),
		cqCons: make([]uint32, len(h.cqs)+1)}
}

// ID is the node's number; Nodes the machine's size.
func (h *Host) ID() int    { return h.nd.ID }
func (h *Host) Nodes() int { return len(h.c.nodes) }

// Now is the simulated time.
func (h *Host) Now() netsim.Time { return h.c.eng.Now() }

// Mem is the host's memory; Layout where its queues and buffers are.
func (h *Host) Mem() *Memory     { return h.nd.Mem }
func (h *Host) Layout() *Layout  { return &h.nd.Layout }
func (h *Host) Params() *Params  { return &h.c.p }
func (h *Host) Config() *Config  { return &h.c.cfg }
func (h *Host) HCA() *HCA        { return h.h }
func (h *Host) Program() Program { return h.prog }

// Done reports whether the program has ended, and when.
func (h *Host) Done() (bool, netsim.Time) { return h.done, h.end }

// Start runs prog from at.
func (h *Host) Start(at netsim.Time, prog Program) {
	if !h.started || h.done {
		h.c.live++
	}
	h.prog, h.started, h.done = prog, true, false
	h.arm(Until(at, "start"), at)
}

// arm makes w the host's wait from now; a wait has a deadline WaitLimit later.
func (h *Host) arm(w Wait, now netsim.Time) {
	h.gen++
	g := h.gen
	h.wait = w
	h.deadline = now + h.c.p.WaitLimit
	h.schedule(g, now)
}

// schedule sets up the wake-up of wait g, and its deadline.
func (h *Host) schedule(g uint64, now netsim.Time) {
	eng := h.c.eng
	eng.At(max(h.deadline, now), netsim.Func(func(t netsim.Time, _ int64) { h.expire(g, t) }), 0)
	switch w := h.wait; w.Kind {
	case WaitUntil:
		eng.At(max(w.At, now), netsim.Func(func(t netsim.Time, _ int64) { h.wake(g, t) }), 0)
	case WaitCQ:
		if h.cqReady(w.CQ) {
			eng.At(now+h.c.p.PollRead, netsim.Func(func(t netsim.Time, _ int64) { h.wake(g, t) }), 0)
			return
		}
		c := h.h.cq(w.CQ)
		c.waiters = append(c.waiters, func(t netsim.Time) {
			if g == h.gen {
				eng.At(t+h.c.p.PollRead, netsim.Func(func(t netsim.Time, _ int64) { h.wake(g, t) }), 0)
			}
		})
	}
}

func (h *Host) wake(g uint64, now netsim.Time) {
	if g != h.gen || h.stopped || h.done {
		return
	}
	if h.wait.Kind == WaitCQ && !h.cqReady(h.wait.CQ) {
		h.schedule(g, now) // another waiter took it (cannot happen with one program a host)
		return
	}
	w, err := h.prog.Step(h)
	if err != nil {
		h.c.fail(fmt.Errorf("ib: node %d: %w", h.nd.ID, err))
		return
	}
	if w.Kind == WaitDone {
		h.done, h.end = true, now
		h.gen++
		h.c.live--
		return
	}
	h.arm(w, now)
}

func (h *Host) expire(g uint64, now netsim.Time) {
	if g != h.gen || h.stopped || h.done {
		return
	}
	h.c.fail(fmt.Errorf("ib: node %d: %w: waited %v for %s", h.nd.ID, ErrWaitLimit, h.c.p.WaitLimit, h.describe()))
}

func (h *Host) describe() string {
	switch h.wait.Kind {
	case WaitCQ:
		return fmt.Sprintf("a completion in CQ %d (%s)", h.wait.CQ, h.wait.What)
	case WaitUntil:
		return fmt.Sprintf("time %v (%s)", h.wait.At, h.wait.What)
	}
	return "nothing"
}

// suspend stops the program where it waits (a checkpoint's first step): wakes that come
// while it is suspended are ignored, and resume looks at its wait again.
func (h *Host) suspend() {
	h.stopped = true
	h.gen++
}

// resume lets the program go on from now: its wait is looked at again, with what was left
// of its deadline.
func (h *Host) resume(now, suspendedAt netsim.Time) {
	h.stopped = false
	if !h.started || h.done {
		return
	}
	h.deadline = now + max(0, h.deadline-suspendedAt)
	h.gen++
	h.schedule(h.gen, now)
}

// cqReady reports whether the CQ's next entry in host memory is a new one.
func (h *Host) cqReady(cqn uint32) bool {
	c := h.h.cq(cqn)
	cons := h.cqCons[cqn]
	b := h.nd.Mem.Bytes(c.Addr+uint64(cons%c.Depth)*32, 32)
	_, seq := decodeCQE(b)
	return seq == cons+1
}

// PollCQ takes up to max new entries of CQ cqn from host memory and tells the HCA (a CQ
// doorbell) the slots are free again.
func (h *Host) PollCQ(cqn uint32, max int) []CQE {
	c := h.h.cq(cqn)
	var out []CQE
	for len(out) < max && h.cqReady(cqn) {
		cons := h.cqCons[cqn]
		e, _ := decodeCQE(h.nd.Mem.Bytes(c.Addr+uint64(cons%c.Depth)*32, 32))
		h.cqCons[cqn]++
		switch e.Op {
		case OpSend, OpRDMAWrite:
			if int(e.QPN) < len(h.sqDone) {
				h.sqDone[e.QPN]++
			}
		case OpRecv:
			q := h.h.qp(e.QPN)
			switch {
			case q != nil && q.SRQ >= 0:
				h.srqDone[q.SRQ]++
			case q != nil:
				h.rqDone[e.QPN]++
			default: // a bad receive WQE completed at fetch: it belongs to the shared queue
				if len(h.srqDone) > 0 {
					h.srqDone[0]++
				}
			}
		}
		out = append(out, e)
	}
	if len(out) > 0 {
		h.h.ringCQ(h.Now(), cqn, h.cqCons[cqn])
	}
	return out
}

// PostSend writes w into the send queue of the QP to peer and rings its doorbell. It
// refuses, changing nothing, a WQE the HCA would refuse: a buffer outside registered memory
// (ErrOutsideMR), a bad opcode or length (ErrBadRequest), a full send queue (ErrQueueFull),
// a QP in the error state (ErrQPState).
func (h *Host) PostSend(peer int, w WQE) error {
	if peer < 0 || peer >= len(h.c.nodes) || peer == h.nd.ID {
		return fmt.Errorf("node %d: send to node %d: %w", h.nd.ID, peer, ErrNoQP)
	}
	num := h.nd.Layout.QPs[peer]
	q := h.h.qp(num)
	if q.State == QPError {
		return fmt.Errorf("node %d: QP %d to node %d: %w (%v)", h.nd.ID, num, peer, ErrQPState, q.State)
	}
	if w.Inline {
		w.Length = uint32(len(w.Data))
	}
	if st, err := h.h.checkSend(&w); st != StatusOK {
		return fmt.Errorf("node %d: QP %d: %w", h.nd.ID, num, err)
	}
	if h.sqPosted[num]-h.sqDone[num] >= q.SQDepth {
		return fmt.Errorf("node %d: QP %d: send %w (%d WQEs not completed)", h.nd.ID, num, ErrQueueFull, q.SQDepth)
	}
	var b [64]byte
	w.encode(b[:])
	idx := h.sqPosted[num]
	h.nd.Mem.Write(q.SQAddr+uint64(idx%q.SQDepth)*64, b[:])
	h.sqPosted[num]++
	h.h.ringSQ(h.Now(), num, h.sqPosted[num])
	return nil
}

// PostRecv posts a receive buffer: to the shared receive queue, or (per-peer RC) to the
// receive queue of the QP to peer. It refuses a buffer outside registered memory and a full
// queue.
func (h *Host) PostRecv(peer int, addr uint64, length uint32, wrid uint64) error {
	w := WQE{Op: OpRecv, Length: length, WRID: wrid, Addr: addr, LKey: h.nd.Layout.RecvMR.LKey}
	if st, err := h.h.checkRecv(&w); st != StatusOK {
		return fmt.Errorf("node %d: receive buffer: %w", h.nd.ID, err)
	}
	var rq *recvQueue
	var posted, done *uint32
	if s := h.nd.Layout.SRQ; s >= 0 {
		rq, posted, done = h.h.srqs[s], &h.srqPosted[s], &h.srqDone[s]
	} else {
		if peer < 0 || peer >= len(h.c.nodes) || peer == h.nd.ID {
			return fmt.Errorf("node %d: receive from node %d: %w", h.nd.ID, peer, ErrNoQP)
		}
		num := h.nd.Layout.QPs[peer]
		rq, posted, done = &h.h.qp(num).RQ, &h.rqPosted[num], &h.rqDone[num]
	}
	if *posted-*done >= rq.Depth {
		return fmt.Errorf("node %d: receive %w (%d buffers posted)", h.nd.ID, ErrQueueFull, rq.Depth)
	}
	var b [64]byte
	w.encode(b[:])
	h.nd.Mem.Write(rq.Addr+uint64(*posted%rq.Depth)*64, b[:])
	*posted++
	h.h.ringRecv(h.Now(), rq, *posted)
	return nil
}

// Outstanding is how many send WQEs to peer have not completed.
func (h *Host) Outstanding(peer int) int {
	num := h.nd.Layout.QPs[peer]
	return int(h.sqPosted[num] - h.sqDone[num])
}

// RecvBuffer is the address of receive buffer i (of the queue for peer, per-peer RC).
func (h *Host) RecvBuffer(peer, i int) uint64 {
	l := &h.nd.Layout
	size := uint64(h.c.p.MaxMessage)
	if l.SRQ >= 0 {
		return l.RecvBuf + uint64(i)*size
	}
	return l.RecvBuf + (uint64(peerIndex(h.nd.ID, peer))*uint64(h.c.cfg.RecvDepth)+uint64(i))*size
}

// peerIndex numbers node me's peers 0..n-2.
func peerIndex(me, peer int) int {
	if peer > me {
		return peer - 1
	}
	return peer
}

// SendBuffer is the address of send buffer i.
func (h *Host) SendBuffer(i int) uint64 {
	return h.nd.Layout.SendBuf + uint64(i%h.c.cfg.SendBuffers)*uint64(h.c.p.MaxMessage)
}
