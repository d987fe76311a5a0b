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

	p        *netsim.Proc // the program, a Stepper on the cluster's machine
	prog     Program
	wait     Wait
	deadline netsim.Time // the wait fails at this time
	stopped  bool        // suspended by a checkpoint

	// The verbs layer's bookkeeping, by QP number, shared receive queue and CQ number.
	sqPosted, sqDone   []uint32
	rqPosted, rqDone   []uint32 // per QP (its own receive queue)
	srqPosted, srqDone []uint32
	cqCons             []uint32
}

func newHost(c *Cluster, nd *Node) *Host {
	h := nd.HCA
	return &Host{c: c, nd: nd, h: h, p: c.m.NewProc(fmt.Sprintf("node %d", nd.ID)),
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
func (h *Host) Done() (bool, netsim.Time) { return h.ended(), h.p.End() }

// ended reports whether the program has ended.
func (h *Host) ended() bool { st := h.p.State(); return st == netsim.Done || st == netsim.Failed }

// Start runs prog from at.
func (h *Host) Start(at netsim.Time, prog Program) {
	h.begin(prog)
	h.arm(Until(at, "start"), at)
}

// begin makes prog the host's program, not yet scheduled.
func (h *Host) begin(prog Program) {
	h.prog = prog
	h.p.FailFormat = fmt.Sprintf("ib: node %d: %%w", h.nd.ID)
	h.p.StartStepper((*hostStep)(h))
}

// arm makes w the host's wait from now; a wait has a deadline WaitLimit later.
func (h *Host) arm(w Wait, now netsim.Time) {
	h.p.Rearm()
	h.wait = w
	h.deadline = now + h.c.p.WaitLimit
	h.p.Await(netsim.Why{Of: (*hostWait)(h)})
	h.schedule(now)
}

// schedule sets up the wake-up of the present wait, and its deadline.
func (h *Host) schedule(now netsim.Time) {
	h.p.LimitAt(max(h.deadline, now))
	switch w := h.wait; w.Kind {
	case WaitUntil:
		h.p.ResumeAt(max(w.At, now))
	case WaitCQ:
		if h.cqReady(w.CQ) {
			h.p.ResumeAt(now + h.c.p.PollRead)
			return
		}
		c := h.h.cq(w.CQ)
		c.waiters = append(c.waiters, cqWaiter{h, h.p.Generation()})
	}
}

// cqWaiter is a host waiting for a CQE, in the wait of generation gen.
type cqWaiter struct {
	h   *Host
	gen uint64
}

// written tells the waiter a CQE landed at now: it polls it a memory read later.
func (w cqWaiter) written(now netsim.Time) {
	if w.gen == w.h.p.Generation() {
		w.h.p.ResumeAt(now + w.h.c.p.PollRead)
	}
}

// hostStep is the host as its process's Stepper.
type hostStep Host

// Step runs the program from its wait: it fails past the wait's limit, waits on when the CQ
// entry it was woken for has been taken, and arms the next wait.
func (s *hostStep) Step(p *netsim.Proc) (bool, error) {
	h := (*Host)(s)
	now := p.Now()
	if h.stopped {
		return false, nil
	}
	if p.TimedOut() {
		return false, fmt.Errorf("%w: waited %v for %s", ErrWaitLimit, h.c.p.WaitLimit, h.describe())
	}
	if h.wait.Kind == WaitCQ && !h.cqReady(h.wait.CQ) {
		h.schedule(now) // another waiter took it (cannot happen with one program a host)
		return false, nil
	}
	w, err := h.prog.Step(h)
	if err != nil {
		return false, err
	}
	if w.Kind == WaitDone {
		return true, nil
	}
	h.arm(w, now)
	return false, nil
}

// hostWait formats what the host waits for, for a hang report.
type hostWait Host

func (w *hostWait) String() string { return (*Host)(w).describe() }

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
	h.p.Rearm()
}

// resume lets the program go on from now: its wait is looked at again, with what was left
// of its deadline.
func (h *Host) resume(now, suspendedAt netsim.Time) {
	h.stopped = false
	if h.p.State() != netsim.Waiting {
		return
	}
	h.deadline = now + max(0, h.deadline-suspendedAt)
	h.p.Rearm()
	h.schedule(now)
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
