package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// rqProc is the RQ processor: every inbound packet, one at a time, in arrival order
// (requests into receive WQEs it fetches, responses into completions). A packet stays in the
// fabric's ejection buffer until the processor has handled it (InfiniBand's link-level flow
// control then holds the sender off).
type rqProc struct {
	*HCA
	inbound []*fabric.Packet
	busy    bool
	waiting bool // waiting for a receive WQE fetch
}

// Receive implements fabric.Endpoint.
func (h *rqProc) Receive(now netsim.Time, p *fabric.Packet) {
	h.inbound = append(h.inbound, p)
	if !h.busy {
		h.nextInbound(now)
	}
}

func (h *rqProc) nextInbound(now netsim.Time) {
	if len(h.inbound) == 0 {
		h.busy = false
		return
	}
	h.busy = true
	pk := h.c.packet(h.inbound[0])
	cycles := h.p.ContinueCycles
	switch {
	case pk.op == pAck:
		cycles = h.p.AckCycles
	case pk.op.first():
		cycles = h.p.RQCycles
	}
	h.at(now+h.p.hca(cycles), h.handleInbound)
}

// handleInbound handles the packet at the head; one that must wait for a receive WQE fetch
// is handled again when the fetch ends.
func (h *rqProc) handleInbound(now netsim.Time) {
	fp := h.inbound[0]
	pk := h.c.packet(fp)
	if pk.op == pAck {
		h.response(now, pk)
	} else if !h.request(now, pk) {
		h.waiting = true
		return
	}
	h.inbound = h.inbound[1:]
	h.c.consume(now, fp)
	h.nextInbound(now)
}

// request handles a request packet at its responder; false means it waits for a fetch.
func (h *rqProc) request(now netsim.Time, pk *packet) bool {
	q := h.qp(pk.dstQP)

	if q == nil || q.State == QPError || q.Peer != pk.src || q.PeerQP != pk.srcQP {
		h.Stats.DroppedPackets++
		return true
	}
	switch d := psnDiff(pk.psn, q.ExpPSN); {
	case d < 0: // a duplicate: acknowledge again, deliver nothing
		h.Stats.DroppedPackets++
		if pk.op.last() {
			h.respond(now, q, psnAdd(q.ExpPSN, -1), synAck)
		}
		return true
	case d > 0:
		h.Stats.DroppedPackets++
		if !q.RNRDrop {
			q.RNRDrop = true
			h.respond(now, q, q.ExpPSN, synSeq)
		}
		return true
	}
	if pk.op.send() {
		return h.sendArrives(now, q, pk)
	}
	h.writeArrives(now, q, pk)
	return true
}

// sendArrives places a send's packet in the receive buffer it takes.
func (h *rqProc) sendArrives(now netsim.Time, q *qp, pk *packet) bool {
	rq := h.recvQueueOf(q)
	c := h.cq(rq.CQ)
	if pk.op.first() {
		if len(rq.Cache) == 0 {
			if rq.fetching() {
				return false
			}
			h.Stats.SRQEmpty++
			h.rnr(now, q, pk)
			return true
		}
		if c.room() <= 0 {
			h.Stats.CQFull++
			h.note("CQ %d full (%d entries not consumed): send to QP %d PSN %d refused with an RNR NAK", c.Num, c.Prod-c.Cons, q.Num, pk.psn)
			h.rnr(now, q, pk)
			return true
		}
		q.Recv, rq.Cache = rq.Cache[0], rq.Cache[1:]
		q.RecvActive, q.RecvOff = true, 0
		c.Reserved++
		if rq != &q.RQ {
			h.fetch(now, rq) // keep the shared queue's cache filled
		}
	}
	if !q.RecvActive { // cannot happen: a middle packet with the expected PSN has a buffer
		h.Stats.DroppedPackets++
		return true
	}
	q.RNRDrop = false
	q.ExpPSN = psnAdd(q.ExpPSN, 1)
	n := uint32(len(pk.payload))
	if q.RecvOff+n > q.Recv.Length {
		h.note("QP %d: a message of more than %d bytes for a %d-byte receive buffer: refused", q.Num, q.RecvOff+n, q.Recv.Length)
		q.RecvActive = false
		q.RNRDrop = true
		h.Stats.Errors++
		h.completeRecv(now, q, c, StatusLocalLength, q.RecvOff+n)
		h.respond(now, q, pk.psn, synInvalid)
		return true
	}
	h.placeData(now, q.Recv.Addr+uint64(q.RecvOff), pk.payload)
	q.RecvOff += n
	if pk.op.last() {
		q.RecvActive = false
		h.Stats.MessagesReceived++
		h.completeRecv(now, q, c, StatusOK, q.RecvOff)
		h.respond(now, q, pk.psn, synAck)
	}
	return true
}

// writeArrives places an RDMA write's packet where its first packet said.
func (h *rqProc) writeArrives(now netsim.Time, q *qp, pk *packet) {
	if pk.op.first() {
		if !h.checkRemote(pk.va, pk.dmaLen, pk.rkey) {
			h.note("QP %d: RDMA write of %d bytes at %#x with rkey %#x refused: not a remotely writable registered region", q.Num, pk.dmaLen, pk.va, pk.rkey)
			h.Stats.DroppedPackets++
			q.RNRDrop = true
			h.respond(now, q, pk.psn, synAccess)
			return
		}
		q.WriteActive, q.WriteAddr, q.WriteLeft = true, pk.va, pk.dmaLen
	}
	n := uint32(len(pk.payload))
	if !q.WriteActive || n > q.WriteLeft || pk.op.last() && n != q.WriteLeft {
		q.WriteActive = false
		q.RNRDrop = true
		h.Stats.DroppedPackets++
		h.respond(now, q, pk.psn, synInvalid)
		return
	}
	q.RNRDrop = false
	q.ExpPSN = psnAdd(q.ExpPSN, 1)
	h.placeData(now, q.WriteAddr, pk.payload)
	q.WriteAddr += uint64(n)
	q.WriteLeft -= n
	if pk.op.last() {
		q.WriteActive = false
		h.Stats.MessagesReceived++
		h.respond(now, q, pk.psn, synAck)
	}
}

// placeData writes payload to host memory by a posted DMA write.
func (h *rqProc) placeData(now netsim.Time, addr uint64, payload []byte) {
	if len(payload) == 0 {
		return
	}
	h.Stats.DMAWrites++
	done := h.bus.write(now, now, len(payload), toMemory)
	h.at(done, func(now netsim.Time) {
		h.mem.Write(addr, payload)
		h.Stats.LastDataAt = int64(now)
	})
}

// rnr refuses a send's first packet: receiver not ready. Later packets of the QP are dropped
// until the requester sends this PSN again.
func (h *rqProc) rnr(now netsim.Time, q *qp, pk *packet) {
	if h.Stats.RNRNaksSent == 0 {
		h.Stats.FirstRNRAt = int64(now)
	}
	h.Stats.RNRNaksSent++
	q.RNRDrop = true
	h.respond(now, q, pk.psn, synRNR)
}

// respond sends an ACK or NAK for psn to q's requester.
func (h *rqProc) respond(now netsim.Time, q *qp, psn uint32, syn uint8) {
	h.Stats.AcksSent++
	h.c.send(now, &packet{op: pAck, src: h.node, dst: q.Peer, srcQP: q.Num, dstQP: q.PeerQP, psn: psn, syndrome: syn})
}

// response handles an ACK or NAK at its requester.
func (h *rqProc) response(now netsim.Time, pk *packet) {
	q := h.qp(pk.dstQP)
	if q == nil || q.State == QPError || q.Peer != pk.src || q.PeerQP != pk.srcQP {
		h.Stats.DroppedPackets++
		return
	}
	switch pk.syndrome {
	case synAck:
		if h.ackUpTo(now, q, pk.psn) {
			q.RNRLeft = h.p.RNRRetry
		}
	case synRNR:
		h.Stats.RNRNaksReceived++
		h.ackUpTo(now, q, psnAdd(pk.psn, -1))
		if len(q.Outstanding) == 0 || q.Outstanding[0].FirstPSN != pk.psn || q.RNRWait {
			return // stale: that message has been acknowledged, or a retry is already set
		}
		if q.RNRLeft == 0 {
			m := q.Outstanding[0]
			q.Outstanding = q.Outstanding[1:]
			h.note("QP %d: RNR retries used up for WQE %d", q.Num, m.Index)
			h.completeSend(now, q, m, StatusRNRRetryExc)
			h.qpError(now, q)
			return
		}
		if q.RNRLeft < 7 {
			q.RNRLeft--
		}
		q.RNRWait = true
		q.timer++
		gen := q.timer
		h.at(now+h.p.RNRTimer, func(now netsim.Time) {
			if q.timer != gen || !q.RNRWait {
				return
			}
			q.RNRWait = false
			if q.State == QPStopped {
				q.RNRDue = true
				return
			}
			h.sq.rewind(now, q)
		})
	case synSeq:
		h.ackUpTo(now, q, psnAdd(pk.psn, -1))
		h.sq.rewind(now, q)
	default: // access or invalid request: the head message fails, the QP goes to error
		h.ackUpTo(now, q, psnAdd(pk.psn, -1))
		if len(q.Outstanding) == 0 || q.Outstanding[0].FirstPSN != pk.psn {
			return
		}
		m := q.Outstanding[0]
		q.Outstanding = q.Outstanding[1:]
		st := StatusRemoteAccess
		if pk.syndrome == synInvalid {
			st = StatusRemoteInvalid
		}
		h.note("QP %d WQE %d: %s", q.Num, m.Index, st)
		h.completeSend(now, q, m, st)
		h.qpError(now, q)
	}
}

// ackUpTo completes q's messages whose last PSN is at or before psn; it reports whether
// any completed.
func (h *rqProc) ackUpTo(now netsim.Time, q *qp, psn uint32) bool {
	done := false
	for len(q.Outstanding) > 0 && psnDiff(q.Outstanding[0].LastPSN, psn) <= 0 && psnDiff(psn, q.NextPSN) < 0 {
		m := q.Outstanding[0]
		q.Outstanding = q.Outstanding[1:]
		h.completeSend(now, q, m, StatusOK)
		done = true
	}
	h.sq.failPending(now, q)
	return done
}

// fetch reads posted receive WQEs into rq's cache by DMA (the HCA's fetch engine, no
// firmware time), up to 64 at a time, until it holds every posted one.
func (h *rqProc) fetch(now netsim.Time, rq *recvQueue) {
	if rq.fetchDone != 0 || rq.Fetched == rq.Prod {
		return
	}
	slot := rq.Fetched % rq.Depth
	n := min(rq.Prod-rq.Fetched, rq.Depth-slot, uint32(h.p.DMAReadMaxBytes/64))
	addr := rq.Addr + uint64(slot)*64
	h.Stats.DMAReads++
	done := h.bus.read(now, now, int(n)*64)
	rq.fetchDone = done
	h.at(done, func(now netsim.Time) {
		rq.fetchDone = 0
		b := h.mem.Bytes(addr, int(n)*64)
		c := h.cq(rq.CQ)
		for i := range n {
			w := decodeWQE(b[i*64:])
			st, err := h.checkRecv(&w)
			if st != StatusOK {
				h.note("receive WQE %d: %s (%v): completed with an error, not used", rq.Fetched+i, st, err)
				h.Stats.Errors++
				h.complete(now, c, CQE{Status: st, Op: OpRecv, WRID: w.WRID, QPN: rq.qpn}, false)
				continue
			}
			rq.Cache = append(rq.Cache, recvWQE{WRID: w.WRID, Addr: w.Addr, Length: w.Length, LKey: w.LKey})
		}
		rq.Fetched += n
		h.fetch(now, rq)
		if h.waiting {
			h.waiting = false
			h.handleInbound(now)
		}
	})
}

// checkRecv says whether a receive WQE can be used, and why not.
func (h *HCA) checkRecv(w *WQE) (Status, error) {
	switch {
	case w.Op != OpRecv:
		return StatusLocalQPOp, fmt.Errorf("%w: opcode %v on a receive queue", ErrBadRequest, w.Op)
	case w.reserved || w.Inline:
		return StatusLocalQPOp, fmt.Errorf("%w: reserved bytes set", ErrBadRequest)
	}
	if err := h.checkLocal(w.Addr, w.Length, w.LKey); err != nil {
		return StatusLocalProt, err
	}
	return StatusOK, nil
}
