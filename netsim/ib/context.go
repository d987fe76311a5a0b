package ib

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The context image. Little-endian; "IBCX", version 1, the node, the QP range, whether it
// holds the queues, the counts; each QP's context, each CQ's, each shared receive queue's;
// then the CRC-32 (IEEE) of all that.

const (
	ctxMagic   = "IBCX"
	ctxVersion = 1
)

type enc struct{ b []byte }

func (e *enc) u8(v uint8)   { e.b = append(e.b, v) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) flag(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}

func (e *enc) recvWQE(r recvWQE) {
	e.u64(r.WRID)
	e.u64(r.Addr)
	e.u32(r.Length)
	e.u32(r.LKey)
}

func (e *enc) recvQueue(rq *recvQueue) {
	e.u64(rq.Addr)
	e.u32(rq.Depth)
	e.u32(rq.Prod)
	e.u32(rq.Fetched)
	e.u32(rq.CQ)
	e.u32(uint32(len(rq.Cache)))
	for _, r := range rq.Cache {
		e.recvWQE(r)
	}
}

// Save is the context image of QPs first..last (and, with queues, of every CQ and shared
// receive queue): what CmdSave writes to host memory. The QPs must be stopped or in error
// and the HCA quiet, so that nothing changes while the image is taken.
func (h *scheduler) Save(first, last uint32, queues bool) ([]byte, error) {
	qs, err := h.rangeQPs(first, last)
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		if q.State == QPReady {
			return nil, fmt.Errorf("node %d: save QP %d: %w (it is ready: stop it first)", h.node, q.Num, ErrQPState)
		}
	}
	if now := h.now(); !h.dataQuiet(now) {
		return nil, fmt.Errorf("node %d: save: %w: %s", h.node, ErrNotQuiet, h.busyWith(now))
	}
	e := &enc{}
	e.b = append(e.b, ctxMagic...)
	e.u32(ctxVersion)
	e.u32(uint32(h.node))
	e.u32(first)
	e.u32(last)
	e.flag(queues)
	e.u32(uint32(len(qs)))
	for _, q := range qs {
		e.u32(q.Num)
		e.u32(uint32(q.Peer))
		e.u32(q.PeerQP)
		e.u64(q.SQAddr)
		e.u32(q.SQDepth)
		e.u32(uint32(q.SRQ))
		e.u32(q.SendCQ)
		e.u32(q.RecvCQ)
		e.recvQueue(&q.RQ)
		e.u8(uint8(q.State))
		e.u32(q.SQProd)
		e.u32(q.SQNext)
		e.u32(q.SQDone)
		e.u32(q.NextPSN)
		e.u32(uint32(len(q.Outstanding)))
		for _, m := range q.Outstanding {
			e.u32(m.Index)
			e.u32(m.FirstPSN)
			e.u32(m.LastPSN)
			e.u8(uint8(m.Op))
			e.u64(m.WRID)
			e.u32(m.Length)
		}
		for _, f := range []bool{q.RNRWait, q.RNRDue, q.RewindPending, q.RNRDrop, q.RecvActive, q.WriteActive} {
			e.flag(f)
		}
		e.u8(uint8(q.RNRLeft))
		e.u8(uint8(q.SQErr))
		e.u32(q.ExpPSN)
		e.recvWQE(q.Recv)
		e.u32(q.RecvOff)
		e.u64(q.WriteAddr)
		e.u32(q.WriteLeft)
	}
	if queues {
		e.u32(uint32(len(h.cqs)))
		for _, c := range h.cqs {
			e.u32(c.Num)
			e.u64(c.Addr)
			e.u32(c.Depth)
			e.u32(c.Prod)
			e.u32(c.Cons)
			e.u32(c.Reserved)
			e.u32(uint32(len(c.Pending)))
			var b [32]byte
			for _, p := range c.Pending {
				p.encode(b[:])
				e.b = append(e.b, b[:]...)
			}
		}
		e.u32(uint32(len(h.srqs)))
		for _, s := range h.srqs {
			e.recvQueue(s)
		}
	}
	e.u32(crc32.ChecksumIEEE(e.b))
	return e.b, nil
}

// dec reads an image; the first failure sticks and names where it was.
type dec struct {
	b   []byte
	off int
	err error
}

func (d *dec) fail(f string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrContext, d.off, fmt.Sprintf(f, a...))
	}
}

func (d *dec) need(n int) bool {
	if d.err != nil {
		return false
	}
	if len(d.b)-d.off < n {
		d.fail("the image ends (%d bytes, %d more wanted)", len(d.b), n)
		return false
	}
	return true
}

func (d *dec) u8() uint8 {
	if !d.need(1) {
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

func (d *dec) u32() uint32 {
	if !d.need(4) {
		return 0
	}
	d.off += 4
	return binary.LittleEndian.Uint32(d.b[d.off-4:])
}

func (d *dec) u64() uint64 {
	if !d.need(8) {
		return 0
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.b[d.off-8:])
}

func (d *dec) flag() bool {
	switch v := d.u8(); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("a flag of %d (want 0 or 1)", v)
		return false
	}
}

// count reads a count of entries of at least size bytes each and checks it against limit
// and against what is left of the image.
func (d *dec) count(what string, limit uint32, size int) uint32 {
	n := d.u32()
	switch {
	case n > limit:
		d.fail("%d %s, more than %d", n, what, limit)
		return 0
	case d.err == nil && uint64(n)*uint64(size) > uint64(len(d.b)-d.off):
		d.fail("%d %s in the %d bytes left", n, what, len(d.b)-d.off)
		return 0
	}
	return n
}

func (d *dec) recvWQE() recvWQE {
	return recvWQE{WRID: d.u64(), Addr: d.u64(), Length: d.u32(), LKey: d.u32()}
}

func (d *dec) recvQueue() recvQueue {
	rq := recvQueue{Addr: d.u64(), Depth: d.u32(), Prod: d.u32(), Fetched: d.u32(), CQ: d.u32()}
	n := d.count("cached receive WQEs", rq.Depth, ctxRecvBytes)
	if d.err == nil && (int(rq.Prod-rq.Fetched) < 0 || rq.Prod-rq.Fetched > rq.Depth) {
		d.fail("receive queue posted %d, fetched %d, depth %d", rq.Prod, rq.Fetched, rq.Depth)
	}
	for range n {
		rq.Cache = append(rq.Cache, d.recvWQE())
	}
	return rq
}

// decodeContext reads and checks an image made by Save for an HCA like h (the same QP
// count, CQs and shared receive queues). It changes nothing.
func (h *scheduler) decodeContext(img []byte) (first, last uint32, qs []*qp, cqs []*cq, srqs []*recvQueue, err error) {
	if len(img) < len(ctxMagic)+8 || string(img[:4]) != ctxMagic {
		return 0, 0, nil, nil, nil, fmt.Errorf("%w: no %q magic (%d bytes)", ErrContext, ctxMagic, len(img))
	}
	body, sum := img[:len(img)-4], binary.LittleEndian.Uint32(img[len(img)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, 0, nil, nil, nil, fmt.Errorf("%w: checksum mismatch (damaged or cut short)", ErrContext)
	}
	d := &dec{b: body, off: 4}
	if v := d.u32(); v != ctxVersion {
		d.fail("version %d (want %d)", v, ctxVersion)
	}
	if node := d.u32(); d.err == nil && int(node) != h.node {
		d.fail("saved on node %d, restored on node %d", node, h.node)
	}
	first, last = d.u32(), d.u32()
	queues := d.flag()
	if d.err == nil {
		if _, e := h.rangeQPs(first, last); e != nil {
			d.fail("%v", e)
		}
	}
	n := d.count("QPs", uint32(len(h.qps)), ctxQPBytes)
	if d.err == nil && n != last-first+1 {
		d.fail("%d QPs for the range %d..%d", n, first, last)
	}
	for i := range n {
		if d.err != nil {
			break
		}
		q := &qp{Num: d.u32(), Peer: int(d.u32()), PeerQP: d.u32(), SQAddr: d.u64(), SQDepth: d.u32(), SRQ: int32(d.u32()),
			SendCQ: d.u32(), RecvCQ: d.u32()}
		if d.err == nil && q.Num != first+i {
			d.fail("QP %d where QP %d belongs", q.Num, first+i)
		}
		q.RQ = d.recvQueue()
		q.RQ.qpn = q.Num
		q.State = QPState(d.u8())
		q.SQProd, q.SQNext, q.SQDone, q.NextPSN = d.u32(), d.u32(), d.u32(), d.u32()
		no := d.count("outstanding messages", max(q.SQDepth, 1), ctxSentBytes)
		for range no {
			q.Outstanding = append(q.Outstanding, sentMsg{Index: d.u32(), FirstPSN: d.u32(), LastPSN: d.u32(), Op: Opcode(d.u8()), WRID: d.u64(), Length: d.u32()})
		}
		for _, f := range []*bool{&q.RNRWait, &q.RNRDue, &q.RewindPending, &q.RNRDrop, &q.RecvActive, &q.WriteActive} {
			*f = d.flag()
		}
		q.RNRLeft = int(d.u8())
		q.SQErr = Status(d.u8())
		q.ExpPSN = d.u32()
		q.Recv = d.recvWQE()
		q.RecvOff = d.u32()
		q.WriteAddr = d.u64()
		q.WriteLeft = d.u32()
		if d.err == nil {
			h.checkQP(d, q)
		}
		qs = append(qs, q)
	}
	if queues {
		nc := d.count("CQs", uint32(len(h.cqs)), ctxCQBytes)
		if d.err == nil && int(nc) != len(h.cqs) {
			d.fail("%d CQs for an HCA with %d", nc, len(h.cqs))
		}
		for i := range nc {
			if d.err != nil {
				break
			}
			c := &cq{Num: d.u32(), Addr: d.u64(), Depth: d.u32(), Prod: d.u32(), Cons: d.u32(), Reserved: d.u32()}
			np := d.count("pending completions", 1<<20, 32)
			for range np {
				if !d.need(32) {
					break
				}
				e, _ := decodeCQE(d.b[d.off:])
				d.off += 32
				if e.Status > lastStatus || e.Op == 0 || e.Op > lastOpcode {
					d.fail("a pending completion with status %d, opcode %d", e.Status, e.Op)
				}
				c.Pending = append(c.Pending, e)
			}
			if d.err == nil && (c.Num != i+1 || c.Depth == 0 || c.Prod-c.Cons > c.Depth) {
				d.fail("CQ %d (at %d): depth %d, produced %d, consumed %d", c.Num, i+1, c.Depth, c.Prod, c.Cons)
			}
			cqs = append(cqs, c)
		}
		ns := d.count("shared receive queues", uint32(len(h.srqs)), ctxSRQBytes)
		if d.err == nil && int(ns) != len(h.srqs) {
			d.fail("%d shared receive queues for an HCA with %d", ns, len(h.srqs))
		}
		for range ns {
			s := d.recvQueue()
			if d.err == nil && (s.Depth == 0 || h.cq(s.CQ) == nil) {
				d.fail("a shared receive queue of depth %d completing to CQ %d", s.Depth, s.CQ)
			}
			srqs = append(srqs, &s)
		}
	}
	if d.err == nil && d.off != len(body) {
		d.fail("%d bytes left over", len(body)-d.off)
	}
	if d.err != nil {
		return 0, 0, nil, nil, nil, fmt.Errorf("node %d: %w", h.node, d.err)
	}
	return first, last, qs, cqs, srqs, nil
}

// checkQP checks a decoded QP's fields against each other and the HCA.
func (h *scheduler) checkQP(d *dec, q *qp) {
	switch {
	case q.State < QPReady || q.State > QPError:
		d.fail("QP %d: state %d", q.Num, q.State)
	case q.SQDepth == 0:
		d.fail("QP %d: send queue of depth 0", q.Num)
	case int(q.SQNext-q.SQDone) < 0 || int(q.SQProd-q.SQNext) < 0 || q.SQProd-q.SQDone > q.SQDepth:
		d.fail("QP %d: send queue done %d, next %d, posted %d, depth %d", q.Num, q.SQDone, q.SQNext, q.SQProd, q.SQDepth)
	case q.SRQ < -1 || int(q.SRQ) >= len(h.srqs):
		d.fail("QP %d: shared receive queue %d", q.Num, q.SRQ)
	case h.cq(q.SendCQ) == nil || h.cq(q.RecvCQ) == nil:
		d.fail("QP %d: CQs %d and %d", q.Num, q.SendCQ, q.RecvCQ)
	case q.Peer < 0 || q.Peer >= len(h.c.nodes) || q.PeerQP == 0:
		d.fail("QP %d: peer node %d QP %d", q.Num, q.Peer, q.PeerQP)
	case q.RNRLeft > 7 || q.NextPSN > psnMask || q.ExpPSN > psnMask || q.SQErr > lastStatus:
		d.fail("QP %d: RNR retries %d, PSNs %d and %d, error %d", q.Num, q.RNRLeft, q.NextPSN, q.ExpPSN, q.SQErr)
	case q.SRQ < 0 && (q.RQ.Depth == 0 || h.cq(q.RQ.CQ) == nil):
		d.fail("QP %d: its receive queue has depth %d and CQ %d", q.Num, q.RQ.Depth, q.RQ.CQ)
	}
	for _, m := range q.Outstanding {
		if d.err == nil && (int(m.Index-q.SQDone) < 0 || int(q.SQNext-m.Index) <= 0 || m.Op != OpSend && m.Op != OpRDMAWrite) {
			d.fail("QP %d: outstanding WQE %d (%v) outside done %d .. next %d", q.Num, m.Index, m.Op, q.SQDone, q.SQNext)
		}
	}
}

// Restore makes the QPs (and queues) an image holds from it, replacing those of the same
// numbers: seed 004's pmRestoreContext (CreateQP with the saved context). A damaged or
// foreign image is refused whole and the HCA is left as it was.
func (h *scheduler) Restore(img []byte) error {
	first, last, qs, cqs, srqs, err := h.decodeContext(img)
	if err != nil {
		return err
	}
	for i, q := range qs {
		old := h.qps[int(first)-1+i]
		old.timer++ // a timer of the replaced QP finds it gone
		h.qps[int(first)-1+i] = q
	}
	if cqs != nil {
		for i, c := range cqs {
			c.waiters = h.cqs[i].waiters
			h.cqs[i] = c
		}
		h.srqs = srqs
	}
	// The SQ processor's turn: the restored QPs that have work, in QP order.
	kept := h.sq.ready[:0]
	for _, n := range h.sq.ready {
		if n < first || n > last {
			kept = append(kept, n)
		}
	}
	h.sq.ready = kept
	for _, q := range qs {
		h.sq.enqueue(q)
	}
	return nil
}

// Context image sizes: the fixed part of the image, of a QP, of a CQ, and what each list
// entry adds.
const (
	ctxHeaderBytes = 4 + 4 + 4 + 4 + 4 + 1 + 4 + 4 // magic .. QP count, CRC
	ctxQPBytes     = 36 + 28 + 1 + 16 + 4 + 6 + 1 + 1 + 4 + 24 + 4 + 8 + 4
	ctxCQBytes     = 32
	ctxQueuesBytes = 4 + 4 // CQ and SRQ counts
	ctxRecvBytes   = 24    // a cached receive WQE
	ctxSentBytes   = 25    // an outstanding message
	ctxSRQBytes    = 28
)

// qpBound is room enough for one QP's context in an image.
func qpBound(cfg Config) int {
	own := 0
	if cfg.Receive == PerPeerRQ {
		own = cfg.RecvDepth
	}
	return ctxQPBytes + ctxSentBytes*cfg.SQDepth + ctxRecvBytes*own
}

// queuesBound is room enough for every CQ and shared receive queue of a node on n nodes:
// a CQ's pending completions are at most every WQE the node can have posted.
func queuesBound(n int, cfg Config) int {
	wqes := n*cfg.SQDepth + cfg.RecvDepth*n
	return ctxQueuesBytes + 2*(ctxCQBytes+32*wqes) + ctxSRQBytes + ctxRecvBytes*cfg.RecvDepth
}

// contextBound is room enough for a node's images on n nodes, bulk or one per QP.
func contextBound(n int, cfg Config) int {
	return n*(ctxHeaderBytes+qpBound(cfg)) + queuesBound(n, cfg)
}
