package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// sqProc is the SQ processor: the QPs with work, in turn, each WQE fetched by DMA, checked,
// charged its firmware cycles and sent as packets; busy while it runs one WQE. It shares
// the HCA's tables and bus with the other two processors.
type sqProc struct {
	*HCA
	ready []uint32 // QPs with work, in turn
	busy  bool
}

func (h *sqProc) runnable(q *qp) bool {
	return q.State == QPReady && !q.RNRWait && !q.RewindPending && q.SQErr == 0 && q.SQNext != q.SQProd
}

// enqueue puts q in the SQ processor's turn if it has work.
func (h *sqProc) enqueue(q *qp) {
	if !q.queued && !q.sqBusy && h.runnable(q) {
		q.queued = true
		h.ready = append(h.ready, q.Num)
	}
}

// kickSQ starts the next QP's next WQE if the SQ processor is free.
func (h *sqProc) kickSQ(now netsim.Time) {
	for !h.busy && len(h.ready) > 0 {
		q := h.qp(h.ready[0])
		h.ready = h.ready[1:]
		q.queued = false
		if !h.runnable(q) {
			continue
		}
		h.busy, q.sqBusy = true, true
		h.startWQE(now, q)
	}
}

// startWQE fetches q's next WQE by DMA, checks it, charges the firmware and sends it.
func (h *sqProc) startWQE(now netsim.Time, q *qp) {
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
func (h *sqProc) failPending(now netsim.Time, q *qp) {
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
func (h *sqProc) chunkBytes() int { return max(1, h.p.DMAReadMaxBytes/h.p.MTU) * h.p.MTU }

// readChunk reads the data at off by DMA and sends it, then the next chunk: one DMA read
// outstanding at a time.
func (h *sqProc) readChunk(now netsim.Time, q *qp, w *WQE, m sentMsg, off int) {
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
func (h *sqProc) sendPackets(now netsim.Time, q *qp, w *WQE, m sentMsg, off int, data []byte) {
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
func (h *sqProc) endSQ(now netsim.Time, q *qp) {
	h.busy, q.sqBusy = false, false
	if q.RewindPending {
		q.RewindPending = false
		h.rewind(now, q)
	}
	h.enqueue(q)
	h.kickSQ(now)
}

// rewind makes q send again from its oldest unacknowledged message (go-back-N).
func (h *sqProc) rewind(now netsim.Time, q *qp) {
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
