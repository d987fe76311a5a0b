package ib

import (
	"github.com/lhsim/lhsim/netsim"
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
		h.sq.enqueue(q)
		h.sq.kickSQ(now)
	})
}

// ringRecv tells the HCA that a receive queue holds prod WQEs in all.
func (h *HCA) ringRecv(at netsim.Time, rq *recvQueue, prod uint32) {
	h.doorbell(at, func(now netsim.Time) {
		if int(prod-rq.Prod) > 0 {
			rq.Prod = prod
		}
		h.rq.fetch(now, rq)
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

func (rq *recvQueue) fetching() bool { return rq.fetchDone != 0 }
