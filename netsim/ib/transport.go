package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Doorbells: the host's PIO writes to the HCA. Each is a posted PCI-X write issued at at; the
// HCA acts on it when its data has crossed the bus.

func (h *HCA) doorbell(at netsim.Time, apply func(now netsim.Time)) {
	done := h.bus.write(h.now(), at, 8, toHCA)
	h.at(done, apply)
}

// ringSQ tells the HCA that QP qpn's send queue holds prod WQEs in all.
func (h *HCA) ringSQ(at netsim.Time, qpn, prod uint32) {
	h.doorbell(at, func(now netsim.Time) {
		q := h.qp(qpn)
		if q == nil || q.State == QPError {
			return
		}
		if int(prod-q.SQProd) > 0 {
			q.SQProd = prod
		}
		h.enqueue(q)
		h.kickSQ(now)
	})
}

// ringRecv tells the HCA that a receive queue holds prod WQEs in all.
func (h *HCA) ringRecv(at netsim.Time, rq *recvQueue, prod uint32) {
	h.doorbell(at, func(now netsim.Time) {
		if int(prod-rq.Prod) > 0 {
			rq.Prod = prod
		}
		h.fetch(now, rq)
	})
}

// ringCQ tells the HCA the host has consumed cq's entries up to cons.
func (h *HCA) ringCQ(at netsim.Time, cqn, cons uint32) {
	h.doorbell(at, func(now netsim.Time) {
		c := h.cq(cqn)
		if int(cons-c.Cons) <= 0 || int(c.Prod-cons) < 0 {
			return
		}
		c.Cons = cons
		for len(c.Pending) > 0 && c.Prod-c.Cons < c.Depth {
			e := c.Pending[0]
			c.Pending = c.Pending[1:]
			h.writeCQE(now, c, e)
		}
	})
}

// The SQ processor.

func (h *HCA) runnable(q *qp) bool {
	return q.State == QPReady && !q.RNRWait && !q.RewindPending && q.SQErr == 0 && q.SQNext != q.SQProd
}

// enqueue puts q in the SQ processor's turn if it has work.
func (h *HCA) enqueue(q *qp) {
	if !q.queued && !q.sqBusy && h.runnable(q) {
		q.queued = true
		h.ready = append(h.ready, q.Num)
	}
}

// kickSQ starts the next QP's next WQE if the SQ processor is free.
func (h *HCA) kickSQ(now netsim.Time) {
	for !h.sqBusy && len(h.ready) > 0 {
		q := h.qp(h.ready[0])
		h.ready = h.ready[1:]
		q.queued = false
		if !h.runnable(q) {
			continue
		}
		h.sqBusy, q.sqBusy = true, true
		h.startWQE(now, q)
	}
}

// startWQE fetches q's next WQE by DMA, checks it, charges the firmware and sends it.
func (h *HCA) startWQE(now netsim.Time, q *qp) {
	idx := q.SQNext
	addr := q.SQAddr + uint64(idx%q.SQDepth)*64
	h.Stats.DMAReads++
	done := h.bus.read(now, now, h.p.WQEBytes)
	h.at(done, func(now netsim.Time) {
		w := decodeWQE(h.mem.Bytes(addr, 64))
		if st, err := h.checkSend(&w); st != StatusOK {
			// The bad WQE completes with its error once the messages before it are
			// acknowledged (so completions stay in order), then the QP goes to the error state.
			if q.SQErr == 0 {
				h.note("QP %d WQE %d: %s (%v): the QP goes to the error state", q.Num, idx, st, err)
			}
			q.SQErr = st
			h.failPending(now, q)
			h.endSQ(now, q)
			return
		}
		h.at(now+h.p.hca(h.p.SQCycles), func(now netsim.Time) {
			if q.State == QPError {
				h.endSQ(now, q)
				return
			}
			n := max(1, (int(w.Length)+h.p.MTU-1)/h.p.MTU)
			m := sentMsg{Index: idx, FirstPSN: q.NextPSN, LastPSN: psnAdd(q.NextPSN, n-1), Op: w.Op, WRID: w.WRID, Length: w.Length}
			q.NextPSN = psnAdd(q.NextPSN, n)
			q.Outstanding = append(q.Outstanding, m)
			q.SQNext++
			h.Stats.MessagesSent++
			if w.Inline {
				h.sendPackets(now, q, &w, m, 0, w.Data)
				h.endSQ(now, q)
				return
			}
			h.readChunk(now, q, &w, m, 0)
		})
	})
}

// checkSend says whether a send WQE can run, and why not (an error wrapping ErrBadRequest
// or ErrOutsideMR).
func (h *HCA) checkSend(w *WQE) (Status, error) {
	bad := func(f string, a ...any) (Status, error) {
		return StatusLocalQPOp, fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(f, a...))
	}
	switch {
	case w.Op != OpSend && w.Op != OpRDMAWrite:
		return bad("opcode %v on a send queue", w.Op)
	case w.reserved:
		return bad("reserved bytes set")
	case w.Inline && w.Op != OpSend:
		return bad("data on WQE on an RDMA write")
	case w.Inline && int(w.Length) > h.p.InlineBytes:
		return bad("%d bytes of data on WQE: it holds %d", w.Length, h.p.InlineBytes)
	case w.Op == OpSend && int(w.Length) > h.p.MaxMessage:
		return bad("a message of %d bytes: the largest is %d", w.Length, h.p.MaxMessage)
	case w.Length > 1<<30:
		return bad("length %d over 1 GiB", w.Length)
	}
	if !w.Inline && w.Length > 0 {
		if err := h.checkLocal(w.Addr, w.Length, w.LKey); err != nil {
			return StatusLocalProt, err
		}
	}
	return StatusOK, nil
}

// failPending completes the bad WQE at q's SQNext with its error once nothing is
// outstanding before it, then moves q to the error state.
func (h *HCA) failPending(now netsim.Time, q *qp) {
	if q.SQErr == 0 || len(q.Outstanding) > 0 || q.State == QPError {
		return
	}
	w := decodeWQE(h.mem.Bytes(q.SQAddr+uint64(q.SQNext%q.SQDepth)*64, 64))
	h.completeSend(now, q, sentMsg{Index: q.SQNext, Op: w.Op, WRID: w.WRID, Length: w.Length}, q.SQErr)
	q.SQNext++
	q.SQErr = 0
	h.qpError(now, q)
}

// chunkBytes is how much data one DMA read brings: whole packets, at most DMAReadMaxBytes.
func (h *HCA) chunkBytes() int { return max(1, h.p.DMAReadMaxBytes/h.p.MTU) * h.p.MTU }

// readChunk reads the data at off by DMA and sends it, then the next chunk: one DMA read
// outstanding at a time.
func (h *HCA) readChunk(now netsim.Time, q *qp, w *WQE, m sentMsg, off int) {
	n := min(h.chunkBytes(), int(w.Length)-off)
	if n <= 0 { // a message of 0 bytes
		h.sendPackets(now, q, w, m, 0, nil)
		h.endSQ(now, q)
		return
	}
	h.Stats.DMAReads++
	done := h.bus.read(now, now, n)
	h.at(done, func(now netsim.Time) {
		if q.State == QPError {
			h.endSQ(now, q)
			return
		}
		h.sendPackets(now, q, w, m, off, h.mem.Bytes(w.Addr+uint64(off), n))
		if off+n < int(w.Length) {
			h.readChunk(now, q, w, m, off+n)
			return
		}
		h.endSQ(now, q)
	})
}

// sendPackets puts data, which starts at byte off of message m, on the link as MTU packets.
func (h *HCA) sendPackets(now netsim.Time, q *qp, w *WQE, m sentMsg, off int, data []byte) {
	mtu := h.p.MTU
	total := int(w.Length)
	for first := true; first || len(data) > 0; first = false {
		k := min(mtu, len(data))
		i := off / mtu // packet number within the message
		last := off+k >= total
		pk := &packet{src: h.node, dst: q.Peer, srcQP: q.Num, dstQP: q.PeerQP, psn: psnAdd(m.FirstPSN, i),
			payload: append([]byte(nil), data[:k]...)}
		switch {
		case w.Op == OpSend && i == 0 && last:
			pk.op = pSendOnly
		case w.Op == OpSend && i == 0:
			pk.op = pSendFirst
		case w.Op == OpSend && last:
			pk.op = pSendLast
		case w.Op == OpSend:
			pk.op = pSendMiddle
		case i == 0 && last:
			pk.op = pWriteOnly
		case i == 0:
			pk.op = pWriteFirst
		case last:
			pk.op = pWriteLast
		default:
			pk.op = pWriteMiddle
		}
		if i == 0 && w.Op == OpRDMAWrite {
			pk.va, pk.rkey, pk.dmaLen = w.Remote, w.RKey, w.Length
		}
		h.Stats.PacketsSent++
		h.c.send(now, pk)
		data, off = data[k:], off+k
	}
}

// endSQ frees the SQ processor after a WQE and gives the next QP its turn.
func (h *HCA) endSQ(now netsim.Time, q *qp) {
	h.sqBusy, q.sqBusy = false, false
	if q.RewindPending {
		q.RewindPending = false
		h.rewind(now, q)
	}
	h.enqueue(q)
	h.kickSQ(now)
}

// rewind makes q send again from its oldest unacknowledged message (go-back-N).
func (h *HCA) rewind(now netsim.Time, q *qp) {
	if q.sqBusy {
		q.RewindPending = true
		return
	}
	if len(q.Outstanding) == 0 || q.State == QPError {
		return
	}
	m := q.Outstanding[0]
	h.Stats.Retransmits += uint64(len(q.Outstanding))
	q.SQNext, q.NextPSN, q.Outstanding = m.Index, m.FirstPSN, nil
	q.SQErr = 0 // a bad WQE further on is found again when the SQ reaches it
	h.enqueue(q)
	h.kickSQ(now)
}

// The RQ processor: every inbound packet, one at a time, in arrival order. A packet stays in
// the fabric's ejection buffer until the processor has handled it (InfiniBand's link-level
// flow control then holds the sender off).

// Receive implements fabric.Endpoint.
func (h *HCA) Receive(now netsim.Time, p *fabric.Packet) {
	h.inbound = append(h.inbound, p)
	if !h.rqBusy {
		h.nextInbound(now)
	}
}

func (h *HCA) nextInbound(now netsim.Time) {
	if len(h.inbound) == 0 {
		h.rqBusy = false
		return
	}
	h.rqBusy = true
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
func (h *HCA) handleInbound(now netsim.Time) {
	fp := h.inbound[0]
	pk := h.c.packet(fp)
	if pk.op == pAck {
		h.response(now, pk)
	} else if !h.request(now, pk) {
		h.rqWaiting = true
		return
	}
	h.inbound = h.inbound[1:]
	h.c.consume(now, fp)
	h.nextInbound(now)
}

// request handles a request packet at its responder; false means it waits for a fetch.
func (h *HCA) request(now netsim.Time, pk *packet) bool {
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
func (h *HCA) sendArrives(now netsim.Time, q *qp, pk *packet) bool {
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
func (h *HCA) writeArrives(now netsim.Time, q *qp, pk *packet) {
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
func (h *HCA) placeData(now netsim.Time, addr uint64, payload []byte) {
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
func (h *HCA) rnr(now netsim.Time, q *qp, pk *packet) {
	if h.Stats.RNRNaksSent == 0 {
		h.Stats.FirstRNRAt = int64(now)
	}
	h.Stats.RNRNaksSent++
	q.RNRDrop = true
	h.respond(now, q, pk.psn, synRNR)
}

// respond sends an ACK or NAK for psn to q's requester.
func (h *HCA) respond(now netsim.Time, q *qp, psn uint32, syn uint8) {
	h.Stats.AcksSent++
	h.c.send(now, &packet{op: pAck, src: h.node, dst: q.Peer, srcQP: q.Num, dstQP: q.PeerQP, psn: psn, syndrome: syn})
}

// response handles an ACK or NAK at its requester.
func (h *HCA) response(now netsim.Time, pk *packet) {
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
			h.rewind(now, q)
		})
	case synSeq:
		h.ackUpTo(now, q, psnAdd(pk.psn, -1))
		h.rewind(now, q)
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
func (h *HCA) ackUpTo(now netsim.Time, q *qp, psn uint32) bool {
	done := false
	for len(q.Outstanding) > 0 && psnDiff(q.Outstanding[0].LastPSN, psn) <= 0 && psnDiff(psn, q.NextPSN) < 0 {
		m := q.Outstanding[0]
		q.Outstanding = q.Outstanding[1:]
		h.completeSend(now, q, m, StatusOK)
		done = true
	}
	h.failPending(now, q)
	return done
}

// completeSend writes a send WQE's completion.
func (h *HCA) completeSend(now netsim.Time, q *qp, m sentMsg, st Status) {
	q.SQDone++
	if st != StatusOK {
		h.Stats.Errors++
	}
	h.complete(now, h.cq(q.SendCQ), CQE{Status: st, Op: m.Op, Bytes: m.Length, WRID: m.WRID, QPN: q.Num,
		SrcNode: uint32(h.node), SrcQPN: q.Num}, false)
}

// completeRecv writes the completion of q's current receive into c (whose slot it holds).
func (h *HCA) completeRecv(now netsim.Time, q *qp, c *cq, st Status, n uint32) {
	h.complete(now, c, CQE{Status: st, Op: OpRecv, Bytes: n, WRID: q.Recv.WRID, QPN: q.Num,
		SrcNode: uint32(q.Peer), SrcQPN: q.PeerQP}, true)
}

// complete writes e into c after whatever the HCA wrote before (the bus keeps the order), or
// holds it until the host has made room. reserved says e takes a slot held for it.
func (h *HCA) complete(now netsim.Time, c *cq, e CQE, reserved bool) {
	if reserved {
		c.Reserved--
	}
	if len(c.Pending) > 0 || c.Prod-c.Cons >= c.Depth {
		if len(c.Pending) == 0 {
			h.note("CQ %d full (%d entries): completions wait for the host to consume some", c.Num, c.Depth)
		}
		c.Pending = append(c.Pending, e)
		return
	}
	h.writeCQE(now, c, e)
}

func (h *HCA) writeCQE(now netsim.Time, c *cq, e CQE) {
	e.seq = c.Prod
	addr := c.Addr + uint64(c.Prod%c.Depth)*32
	c.Prod++
	h.Stats.DMAWrites++
	done := h.bus.write(now, now, h.p.CQEBytes, toMemory)
	h.at(done, func(now netsim.Time) {
		var b [32]byte
		e.encode(b[:])
		h.mem.Write(addr, b[:])
		w := c.waiters
		c.waiters = nil
		for _, f := range w {
			f.written(now)
		}
	})
}

// qpError moves q to the error state: every WQE not yet completed completes as flushed, its
// own receive queue's WQEs too. Nothing is lost: the host gets each one back.
func (h *HCA) qpError(now netsim.Time, q *qp) {
	if q.State == QPError {
		return
	}
	q.State = QPError
	q.RNRWait = false
	q.timer++
	for _, m := range q.Outstanding {
		h.completeSend(now, q, m, StatusFlushed)
	}
	q.Outstanding = nil
	for i := q.SQNext; i != q.SQProd; i++ {
		w := decodeWQE(h.mem.Bytes(q.SQAddr+uint64(i%q.SQDepth)*64, 64))
		h.completeSend(now, q, sentMsg{Index: i, Op: w.Op, WRID: w.WRID, Length: w.Length}, StatusFlushed)
	}
	q.SQNext = q.SQProd
	if q.SRQ < 0 {
		c := h.cq(q.RecvCQ)
		for _, r := range q.RQ.Cache {
			h.complete(now, c, CQE{Status: StatusFlushed, Op: OpRecv, WRID: r.WRID, QPN: q.Num}, false)
		}
		q.RQ.Cache = nil
	}
}

// fetch reads posted receive WQEs into rq's cache by DMA (the HCA's fetch engine, no
// firmware time), up to 64 at a time, until it holds every posted one.
func (h *HCA) fetch(now netsim.Time, rq *recvQueue) {
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
		if h.rqWaiting {
			h.rqWaiting = false
			h.handleInbound(now)
		}
	})
}

func (rq *recvQueue) fetching() bool { return rq.fetchDone != 0 }

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
