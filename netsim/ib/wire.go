package ib

import (
	"encoding/binary"
	"fmt"
)

// Opcode is what a work request does.
type Opcode uint8

// Work request opcodes (in WQE byte 0 and CQE byte 1).
const (
	OpSend      Opcode = 1 // a PM message: the peer consumes a receive WQE
	OpRDMAWrite Opcode = 2 // data into the peer's registered memory, no receive consumed
	OpRecv      Opcode = 3 // a receive buffer (RQ or SRQ)
	lastOpcode         = OpRecv
)

func (o Opcode) String() string {
	switch o {
	case OpSend:
		return "send"
	case OpRDMAWrite:
		return "rdma-write"
	case OpRecv:
		return "recv"
	}
	return fmt.Sprintf("opcode(%d)", uint8(o))
}

// Status is a completion's outcome (CQE byte 0), as the InfiniBand verbs name them.
type Status uint8

// Completion statuses.
const (
	StatusOK            Status = iota
	StatusLocalProt            // the WQE's buffer is not inside the registered region its lkey names
	StatusLocalQPOp            // the WQE in host memory is malformed (bad opcode, length, reserved bits)
	StatusLocalLength          // a message longer than the receive buffer
	StatusRemoteAccess         // the peer refused an RDMA write (rkey, bounds, permission)
	StatusRemoteInvalid        // the peer refused the request (its receive buffer too short)
	StatusRNRRetryExc          // receiver not ready, retries used up
	StatusFlushed              // the QP went to the error state before this WQE ran
	lastStatus          = StatusFlushed
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusLocalProt:
		return "local protection error"
	case StatusLocalQPOp:
		return "local QP operation error"
	case StatusLocalLength:
		return "local length error"
	case StatusRemoteAccess:
		return "remote access error"
	case StatusRemoteInvalid:
		return "remote invalid request"
	case StatusRNRRetryExc:
		return "RNR retry exceeded"
	case StatusFlushed:
		return "flushed"
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// WQE flags (byte 1).
const flagInline = 1 << 0

// WQE is a work queue element as it sits in host memory (64 bytes):
//
//	0      opcode            8..15  wr_id
//	1      flags (bit 0: data on WQE)
//	2..3   reserved, 0       4..7   length (bytes)
//	16..63 with data on WQE: the message (up to 48 bytes); else
//	16..23 local address     24..27 lkey      28..31 reserved, 0
//	32..39 remote address    40..43 rkey      44..63 reserved, 0
type WQE struct {
	Op       Opcode
	Inline   bool
	Length   uint32
	WRID     uint64
	Addr     uint64 // local buffer (not with Inline)
	LKey     uint32
	Remote   uint64 // RDMA write target
	RKey     uint32
	Data     []byte // Inline: the message
	reserved bool   // decode found non-zero reserved bytes
}

func (w *WQE) encode(b []byte) {
	clear(b[:64])
	b[0] = byte(w.Op)
	if w.Inline {
		b[1] = flagInline
	}
	binary.LittleEndian.PutUint32(b[4:], w.Length)
	binary.LittleEndian.PutUint64(b[8:], w.WRID)
	if w.Inline {
		copy(b[16:64], w.Data)
		return
	}
	binary.LittleEndian.PutUint64(b[16:], w.Addr)
	binary.LittleEndian.PutUint32(b[24:], w.LKey)
	binary.LittleEndian.PutUint64(b[32:], w.Remote)
	binary.LittleEndian.PutUint32(b[40:], w.RKey)
}

func decodeWQE(b []byte) WQE {
	w := WQE{Op: Opcode(b[0]), Inline: b[1]&flagInline != 0, Length: binary.LittleEndian.Uint32(b[4:]),
		WRID: binary.LittleEndian.Uint64(b[8:])}
	w.reserved = b[1]&^flagInline != 0 || b[2] != 0 || b[3] != 0
	if w.Inline {
		w.Data = append([]byte(nil), b[16:16+min(int(w.Length), 48)]...)
		return w
	}
	w.Addr = binary.LittleEndian.Uint64(b[16:])
	w.LKey = binary.LittleEndian.Uint32(b[24:])
	w.Remote = binary.LittleEndian.Uint64(b[32:])
	w.RKey = binary.LittleEndian.Uint32(b[40:])
	for _, x := range b[28:32] {
		w.reserved = w.reserved || x != 0
	}
	for _, x := range b[44:64] {
		w.reserved = w.reserved || x != 0
	}
	return w
}

// CQE is a completion queue entry as the HCA writes it to host memory (32 bytes):
//
//	0 status  1 opcode  2..3 reserved  4..7 byte count  8..15 wr_id
//	16..19 QP number  20..23 source node (receives)  24..27 source QP  28..31 sequence + 1
//
// The sequence number tells the host a new entry from the one the ring held before: entry k
// of the CQ (counting from 0 since it was made) carries k+1.
type CQE struct {
	Status  Status
	Op      Opcode
	Bytes   uint32
	WRID    uint64
	QPN     uint32
	SrcNode uint32
	SrcQPN  uint32
	seq     uint32
}

func (c *CQE) encode(b []byte) {
	clear(b[:32])
	b[0] = byte(c.Status)
	b[1] = byte(c.Op)
	binary.LittleEndian.PutUint32(b[4:], c.Bytes)
	binary.LittleEndian.PutUint64(b[8:], c.WRID)
	binary.LittleEndian.PutUint32(b[16:], c.QPN)
	binary.LittleEndian.PutUint32(b[20:], c.SrcNode)
	binary.LittleEndian.PutUint32(b[24:], c.SrcQPN)
	binary.LittleEndian.PutUint32(b[28:], c.seq+1)
}

func decodeCQE(b []byte) (CQE, uint32) {
	c := CQE{Status: Status(b[0]), Op: Opcode(b[1]), Bytes: binary.LittleEndian.Uint32(b[4:]),
		WRID: binary.LittleEndian.Uint64(b[8:]), QPN: binary.LittleEndian.Uint32(b[16:]),
		SrcNode: binary.LittleEndian.Uint32(b[20:]), SrcQPN: binary.LittleEndian.Uint32(b[24:])}
	return c, binary.LittleEndian.Uint32(b[28:])
}

// Packet opcodes on the wire (the BTH opcode, RC only).
type pktOp uint8

const (
	pSendFirst pktOp = iota + 1
	pSendMiddle
	pSendLast
	pSendOnly
	pWriteFirst
	pWriteMiddle
	pWriteLast
	pWriteOnly
	pAck // AETH syndrome: ack, RNR NAK or NAK
)

var pktOpNames = [...]string{pSendFirst: "SEND first", pSendMiddle: "SEND middle", pSendLast: "SEND last", pSendOnly: "SEND only",
	pWriteFirst: "RDMA WRITE first", pWriteMiddle: "RDMA WRITE middle", pWriteLast: "RDMA WRITE last", pWriteOnly: "RDMA WRITE only", pAck: "ACK"}

// PacketKind names the InfiniBand packet a fabric.Packet's Kind stands for (the
// opcode of its base transport header: "SEND first", "RDMA WRITE only", "ACK").
func PacketKind(kind uint8) string {
	if int(kind) < len(pktOpNames) && pktOpNames[kind] != "" {
		return pktOpNames[kind]
	}
	return "packet"
}

func (o pktOp) first() bool {
	return o == pSendFirst || o == pSendOnly || o == pWriteFirst || o == pWriteOnly
}
func (o pktOp) last() bool {
	return o == pSendLast || o == pSendOnly || o == pWriteLast || o == pWriteOnly
}
func (o pktOp) send() bool { return o >= pSendFirst && o <= pSendOnly }

// AETH syndromes.
const (
	synAck       uint8 = iota
	synRNR             // receiver not ready: try again after the RNR timer
	synSeq             // PSN sequence error: resend from the PSN
	synAccess          // remote access error
	synInvalid         // remote invalid request
	lastSyndrome = synInvalid
)

// packet is one InfiniBand packet's contents; the fabric carries its size, the cluster keeps
// it in a table by the fabric packet's ID.
type packet struct {
	op       pktOp
	src, dst int    // nodes
	srcQP    uint32 // requester (for responses: the responder's) QP number
	dstQP    uint32
	psn      uint32
	payload  []byte
	// RETH (first RDMA write packet): target, key, whole length.
	va     uint64
	rkey   uint32
	dmaLen uint32
	// AETH (responses).
	syndrome uint8
}

// wireBytes is the packet's size on the link.
func (p *packet) wireBytes() int {
	n := headerBytes + len(p.payload)
	if p.op == pWriteFirst || p.op == pWriteOnly {
		n += rethBytes
	}
	if p.op == pAck {
		n += aethBytes
	}
	return n
}

// PSNs are 24 bits (IBA).
const psnMask = 1<<24 - 1

// psnAdd is p+n modulo 2^24.
func psnAdd(p uint32, n int) uint32 { return uint32(int64(p)+int64(n)) & psnMask }

// psnDiff is a-b as a signed distance within half the PSN space.
func psnDiff(a, b uint32) int {
	d := int32((a-b)&psnMask) << 8 >> 8
	return int(d)
}
