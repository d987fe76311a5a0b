package ib

import (
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// QPState is a queue pair's state (IBA vol. 1 §10.3, the states this model uses).
type QPState uint8

const (
	// QPReady is IBA's ready-to-send: the QP sends and receives.
	QPReady QPState = iota + 1
	// QPStopped is IBA's send queue drained (SQD), seed 004's 通信停止状態: the QP finishes
	// the message it is sending and starts no other; it still receives and answers.
	QPStopped
	// QPError: every WQE left completes as flushed; nothing is sent or received.
	QPError
)

func (s QPState) String() string {
	switch s {
	case QPReady:
		return "ready"
	case QPStopped:
		return "stopped"
	case QPError:
		return "error"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// sentMsg is a message the requester has started and the responder not yet acknowledged.
type sentMsg struct {
	Index    uint32 // its WQE's number in the send queue (counting from 0)
	FirstPSN uint32
	LastPSN  uint32
	Op       Opcode
	WRID     uint64
	Length   uint32
}

// recvWQE is a receive work request the HCA has fetched from host memory.
type recvWQE struct {
	WRID   uint64
	Addr   uint64
	Length uint32
	LKey   uint32
}

// recvQueue is a receive queue in host memory and the WQEs the HCA has fetched from it:
// a QP's own (per-peer RC) or a shared receive queue.
type recvQueue struct {
	Addr    uint64
	Depth   uint32
	Prod    uint32    // posted (the host's doorbell), counting from 0
	Fetched uint32    // fetched into Cache
	Cache   []recvWQE // fetched, not yet taken by a message
	CQ      uint32    // where its completions go (an SRQ's; a QP's own RQ uses the QP's)
	qpn     uint32    // the QP whose own queue this is (0: a shared queue)

	fetchDone netsim.Time // a fetch is in flight until then (0: none)
}

// qp is one reliable-connection queue pair: its configuration and its context.
type qp struct {
	Num           uint32
	Peer          int
	PeerQP        uint32
	SQAddr        uint64
	SQDepth       uint32
	SRQ           int32 // the shared receive queue it takes buffers from, or -1: its own RQ
	SendCQ        uint32
	RecvCQ        uint32
	RQ            recvQueue // its own receive queue (SRQ < 0)
	State         QPState
	SQProd        uint32 // WQEs posted (the doorbell)
	SQNext        uint32 // next WQE to start
	SQDone        uint32 // WQEs completed
	NextPSN       uint32
	Outstanding   []sentMsg
	RNRWait       bool   // an RNR NAK came: no new packet until the timer
	RNRDue        bool   // the timer ended while the QP was stopped: resend on resume
	RNRLeft       int    // retries left for the message at the head (7: without limit)
	RewindPending bool   // resend from Outstanding[0] when the SQ finishes its message
	SQErr         Status // the WQE at SQNext is bad: it fails once those before it are acknowledged
	ExpPSN        uint32 // the next request PSN the responder takes
	RNRDrop       bool   // the responder NAKed ExpPSN: later PSNs are dropped until it comes again
	RecvActive    bool   // a send is arriving in Recv
	Recv          recvWQE
	RecvOff       uint32
	WriteActive   bool // an RDMA write is arriving at WriteAddr
	WriteAddr     uint64
	WriteLeft     uint32

	// Not part of the context: the SQ processor is on this QP, an RNR timer's generation.
	sqBusy bool
	queued bool
	timer  uint64
}

// cq is a completion queue.
type cq struct {
	Num      uint32
	Addr     uint64
	Depth    uint32
	Prod     uint32 // CQEs written, counting from 0
	Cons     uint32 // consumed, as the host last told the HCA
	Reserved uint32 // slots held for receives in progress
	Pending  []CQE  // completions waiting for room

	waiters []cqWaiter // hosts waiting for a CQE
}

func (c *cq) room() int { return int(c.Depth) - int(c.Prod-c.Cons) - len(c.Pending) - int(c.Reserved) }

// HCA is one host channel adapter: its queue pairs, shared receive queues and completion
// queues, the SQ, RQ and scheduler processors of seed 004 Figure 1, and its PCI-X bus.
type HCA struct {
	c    *Cluster
	node int
	p    *Params
	mem  *Memory
	bus  bus

	mrs  []MR
	qps  []*qp // by number-1
	srqs []*recvQueue
	cqs  []*cq

	// The three processors of seed 004 Figure 1, sharing the tables above and the bus.
	sq    sqProc
	rq    rqProc
	sched scheduler

	Stats Stats
	log   []string
}

// Stats counts what an HCA did.
type Stats struct {
	MessagesSent     uint64 `json:"messages_sent"`
	PacketsSent      uint64 `json:"packets_sent"`
	MessagesReceived uint64 `json:"messages_received"`
	AcksSent         uint64 `json:"acks_sent"`
	RNRNaksSent      uint64 `json:"rnr_naks_sent"`
	RNRNaksReceived  uint64 `json:"rnr_naks_received"`
	Retransmits      uint64 `json:"retransmitted_messages"`
	DroppedPackets   uint64 `json:"dropped_packets"` // duplicates and packets after an RNR NAK
	CQFull           uint64 `json:"cq_full_refusals"`
	SRQEmpty         uint64 `json:"srq_empty_refusals"`
	DMAReads         uint64 `json:"dma_reads"`
	DMAWrites        uint64 `json:"dma_writes"`
	Errors           uint64 `json:"error_completions"`
	Commands         uint64 `json:"commands"`
	LastDataAt       int64  `json:"last_data_ps"`     // when the last inbound payload reached memory
	FirstRNRAt       int64  `json:"first_rnr_nak_ps"` // when this HCA first refused a message (0: never)
}

// Errors the HCA's calls return; test with errors.Is.
var (
	ErrNoQP        = errors.New("no such QP")
	ErrQueueFull   = errors.New("queue full")
	ErrOutsideMR   = errors.New("outside registered memory")
	ErrBadRequest  = errors.New("bad work request")
	ErrQPState     = errors.New("QP not in a state that takes this")
	ErrContext     = errors.New("bad QP context image")
	ErrNotQuiet    = errors.New("HCA not quiet")
	ErrSaveTooLong = errors.New("context image larger than the save area")
)

func newHCA(c *Cluster, node int, mem *Memory) *HCA {
	h := &HCA{c: c, node: node, p: &c.p, mem: mem}
	h.bus.p = h.p
	h.sq.HCA, h.rq.HCA, h.sched.HCA = h, h, h
	return h
}

func (h *HCA) now() netsim.Time { return h.c.eng.Now() }

func (h *HCA) at(t netsim.Time, f func(now netsim.Time)) {
	h.c.eng.At(t, netsim.Func(func(now netsim.Time, _ int64) { f(now) }), 0)
}

// note records something the user should be able to find out: a refusal, an error.
func (h *HCA) note(format string, a ...any) {
	msg := fmt.Sprintf("%v node %d: ", h.now(), h.node) + fmt.Sprintf(format, a...)
	if len(h.log) == 64 {
		copy(h.log, h.log[1:])
		h.log = h.log[:63]
	}
	h.log = append(h.log, msg)
}

// Log is what the HCA noted last (refused messages, error completions), oldest first, at
// most 64 lines.
func (h *HCA) Log() []string { return append([]string(nil), h.log...) }

// RegisterMR registers [addr, addr+n) and returns its keys (set-up: no simulated time).
func (h *HCA) RegisterMR(addr, n uint64, remoteWrite bool) MR {
	k := uint32(len(h.mrs) + 1)
	r := MR{Addr: addr, Len: n, LKey: k, RKey: k | 0x8000_0000, RemoteWrite: remoteWrite}
	h.mrs = append(h.mrs, r)
	return r
}

// Deregister removes a region: WQEs that still point into it fail when the HCA runs them.
func (h *HCA) Deregister(lkey uint32) {
	for i := range h.mrs {
		if h.mrs[i].LKey == lkey {
			h.mrs[i].Len = 0
		}
	}
}

// checkLocal finds the region lkey names and reports whether [addr, addr+n) is in it.
func (h *HCA) checkLocal(addr uint64, n uint32, lkey uint32) error {
	if lkey == 0 || int(lkey) > len(h.mrs) {
		return fmt.Errorf("%w: lkey %d names no region", ErrOutsideMR, lkey)
	}
	r := h.mrs[lkey-1]
	if !r.contains(addr, uint64(n)) {
		return fmt.Errorf("%w: %d bytes at %#x are not inside region %v", ErrOutsideMR, n, addr, r)
	}
	return nil
}

// checkRemote finds the region rkey names and reports whether a remote write of n bytes at
// addr may go there.
func (h *HCA) checkRemote(addr uint64, n uint32, rkey uint32) bool {
	k := rkey &^ 0x8000_0000
	if rkey&0x8000_0000 == 0 || k == 0 || int(k) > len(h.mrs) {
		return false
	}
	r := h.mrs[k-1]
	return r.RemoteWrite && r.contains(addr, uint64(n))
}

// createCQ makes a CQ of depth entries at addr.
func (h *HCA) createCQ(addr uint64, depth uint32) uint32 {
	c := &cq{Num: uint32(len(h.cqs) + 1), Addr: addr, Depth: depth}
	h.cqs = append(h.cqs, c)
	return c.Num
}

// createSRQ makes a shared receive queue of depth WQEs at addr, completing into cqn.
func (h *HCA) createSRQ(addr uint64, depth, cqn uint32) int32 {
	h.srqs = append(h.srqs, &recvQueue{Addr: addr, Depth: depth, CQ: cqn})
	return int32(len(h.srqs) - 1)
}

// qpConfig is a QP's fixed part.
type qpConfig struct {
	Peer           int
	PeerQP         uint32
	SQAddr         uint64
	SQDepth        uint32
	SRQ            int32
	RQAddr         uint64
	RQDepth        uint32
	SendCQ, RecvCQ uint32
}

// createQP makes a QP connected to its peer, ready to send (the connection set-up takes no
// simulated time).
func (h *HCA) createQP(cfg qpConfig) uint32 {
	q := &qp{Num: uint32(len(h.qps) + 1), Peer: cfg.Peer, PeerQP: cfg.PeerQP, SQAddr: cfg.SQAddr, SQDepth: cfg.SQDepth,
		SRQ: cfg.SRQ, SendCQ: cfg.SendCQ, RecvCQ: cfg.RecvCQ, State: QPReady, RNRLeft: h.p.RNRRetry}
	q.RQ = recvQueue{Addr: cfg.RQAddr, Depth: cfg.RQDepth, CQ: cfg.RecvCQ, qpn: q.Num}
	h.qps = append(h.qps, q)
	return q.Num
}

func (h *HCA) qp(n uint32) *qp {
	if n == 0 || int(n) > len(h.qps) {
		return nil
	}
	return h.qps[n-1]
}

func (h *HCA) cq(n uint32) *cq {
	if n == 0 || int(n) > len(h.cqs) {
		return nil
	}
	return h.cqs[n-1]
}

// QPState is QP n's state.
func (h *HCA) QPState(n uint32) (QPState, error) {
	q := h.qp(n)
	if q == nil {
		return 0, fmt.Errorf("node %d: QP %d: %w", h.node, n, ErrNoQP)
	}
	return q.State, nil
}

// recvQueueOf is where q takes its receive buffers.
func (h *HCA) recvQueueOf(q *qp) *recvQueue {
	if q.SRQ >= 0 {
		return h.srqs[q.SRQ]
	}
	return &q.RQ
}

// quiet reports whether the HCA has nothing in progress: no processor busy, nothing inbound,
// no fetch or bus transfer in flight, no command queued.
func (h *HCA) quiet(now netsim.Time) bool {
	return !h.sched.busy && len(h.sched.cmds) == 0 && h.bus.idle(now) && h.dataQuiet(now)
}

// dataQuiet says no processor but the scheduler (whose command may be the one asking) is at
// work on a QP's or queue's context: what a save needs.
func (h *HCA) dataQuiet(now netsim.Time) bool {
	if h.sq.busy || h.rq.busy || len(h.rq.inbound) > 0 {
		return false
	}
	for _, s := range h.srqs {
		if s.fetchDone > now {
			return false
		}
	}
	for _, q := range h.qps {
		if q.RQ.fetchDone > now {
			return false
		}
	}
	return true
}

// busyWith says what keeps the HCA from being quiet, for error messages.
func (h *HCA) busyWith(now netsim.Time) string {
	switch {
	case h.sq.busy:
		return "the SQ processor is sending"
	case h.rq.busy || len(h.rq.inbound) > 0:
		return fmt.Sprintf("the RQ processor has %d packets", len(h.rq.inbound))
	case h.sched.busy || len(h.sched.cmds) > 0:
		return fmt.Sprintf("the scheduler has %d commands", len(h.sched.cmds))
	case !h.bus.idle(now):
		return "the PCI-X bus is busy"
	}
	return "a receive WQE fetch is in flight"
}
