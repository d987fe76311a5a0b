package ib

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Message contents: every message a program sends carries a 16-byte header (source, sequence
// number to its destination, length, a check word) and a body that is a function of them,
// so the receiver checks each message is the next from its sender, whole and unchanged.

const msgHeader = 16

// payload is message seq from src to dst, n bytes (n >= msgHeader).
func payload(src, dst int, seq uint32, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], uint32(src))
	binary.LittleEndian.PutUint32(b[4:], seq)
	binary.LittleEndian.PutUint32(b[8:], uint32(n))
	binary.LittleEndian.PutUint32(b[12:], uint32(src)*2654435761^seq*40503^uint32(dst))
	x := uint32(src)<<20 ^ uint32(dst)<<10 ^ seq
	for i := msgHeader; i < n; i++ {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// checkMessage says what is wrong with got, which should be message seq from src to dst.
func checkMessage(got []byte, src, dst int, seq uint32) error {
	if len(got) < msgHeader {
		return fmt.Errorf("message of %d bytes from node %d: shorter than its header", len(got), src)
	}
	gs, gseq := binary.LittleEndian.Uint32(got[0:]), binary.LittleEndian.Uint32(got[4:])
	if int(gs) != src || gseq != seq {
		return fmt.Errorf("from node %d expected message %d, got message %d of node %d (order or exactly-once broken)", src, seq, gseq, gs)
	}
	want := payload(src, dst, seq, len(got))
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("message %d from node %d: byte %d is %#x, want %#x", seq, src, i, got[i], want[i])
		}
	}
	return nil
}

// sendMessage posts message seq to peer: on the WQE when inline, else from the send buffer
// the QP's slot gives (a QP never has more than SQDepth outstanding, each in its own slot).
func sendMessage(h *Host, peer int, seq uint32, n int, inline bool, wrid uint64) error {
	data := payload(h.ID(), peer, seq, n)
	if inline {
		return h.PostSend(peer, WQE{Op: OpSend, Inline: true, Data: data, WRID: wrid})
	}
	slot := peerIndex(h.ID(), peer)*h.Config().SQDepth + int(wrid%uint64(h.Config().SQDepth))
	if slot >= h.Config().SendBuffers {
		return fmt.Errorf("node %d: %d send buffers for %d peers with %d WQEs each: want at least %d",
			h.ID(), h.Config().SendBuffers, h.Nodes()-1, h.Config().SQDepth, (h.Nodes()-1)*h.Config().SQDepth)
	}
	addr := h.SendBuffer(slot)
	h.Mem().Write(addr, data)
	return h.PostSend(peer, WQE{Op: OpSend, Length: uint32(n), Addr: addr, LKey: h.Layout().SendMR.LKey, WRID: wrid})
}

// recvAll posts every receive buffer the host has, wrid = buffer number (per-peer: peer's
// buffers, wrid = peer<<32 | buffer).
func recvAll(h *Host) error {
	cfg := h.Config()
	size := uint32(h.Params().MaxMessage)
	if cfg.Receive == SharedRQ {
		for i := range cfg.RecvDepth {
			if err := h.PostRecv(-1, h.RecvBuffer(-1, i), size, uint64(i)); err != nil {
				return err
			}
		}
		return nil
	}
	for p := range h.Nodes() {
		if p == h.ID() {
			continue
		}
		for i := range cfg.RecvDepth {
			if err := h.PostRecv(p, h.RecvBuffer(p, i), size, uint64(p)<<32|uint64(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// repost posts the receive buffer a completion used again.
func repost(h *Host, e CQE) error {
	size := uint32(h.Params().MaxMessage)
	if h.Config().Receive == SharedRQ {
		return h.PostRecv(-1, h.RecvBuffer(-1, int(e.WRID)), size, e.WRID)
	}
	p, i := int(e.WRID>>32), int(uint32(e.WRID))
	return h.PostRecv(p, h.RecvBuffer(p, i), size, e.WRID)
}

// received reads the message a receive completion delivered.
func received(h *Host, e CQE) ([]byte, error) {
	if e.Status != StatusOK {
		return nil, fmt.Errorf("receive completion %d: %v", e.WRID, e.Status)
	}
	var addr uint64
	if h.Config().Receive == SharedRQ {
		addr = h.RecvBuffer(-1, int(e.WRID))
	} else {
		addr = h.RecvBuffer(int(e.WRID>>32), int(uint32(e.WRID)))
	}
	return h.Mem().Bytes(addr, int(e.Bytes)), nil
}

// jsonState is the MarshalState of programs whose state is one JSON-able struct.
func jsonState(v any) ([]byte, error) { return json.Marshal(v) }

// PingPong is pmtest's round trip: node Me sends Size bytes to Peer and waits for them to
// come back, Iterations times after Warmup; the peer sends each message straight back.
type PingPong struct {
	Me, Peer   int
	Initiator  bool
	Size       int
	Inline     bool // Data on WQE (the message rides in the WQE)
	Warmup     int
	Iterations int

	Iter   int         `json:"iter"`
	Posted bool        `json:"posted"`
	Start  netsim.Time `json:"start"`
	End    netsim.Time `json:"end"`
}

// RTT is the mean round trip of the measured iterations.
func (p *PingPong) RTT() netsim.Time {
	return (p.End - p.Start) / netsim.Time(p.Iterations)
}

// Step implements Program.
func (p *PingPong) Step(h *Host) (Wait, error) {
	l := h.Layout()
	if !p.Posted {
		p.Posted = true
		if err := recvAll(h); err != nil {
			return Wait{}, err
		}
		if p.Initiator {
			p.Start = h.Now()
			if err := sendMessage(h, p.Peer, 0, p.Size, p.Inline, 0); err != nil {
				return Wait{}, err
			}
		}
		return OnCQ(l.RecvCQ, fmt.Sprintf("ping-pong message 0 from node %d", p.Peer)), nil
	}
	h.PollCQ(l.SendCQ, 1<<30) // free the send queue
	for _, e := range h.PollCQ(l.RecvCQ, 1) {
		seq := uint32(p.Iter)
		msg, err := received(h, e)
		if err == nil {
			from := p.Peer
			err = checkMessage(msg, from, p.Me, seq)
		}
		if err != nil {
			return Wait{}, err
		}
		if err := repost(h, e); err != nil {
			return Wait{}, err
		}
		p.Iter++
		if p.Initiator && p.Iter == p.Warmup {
			p.Start = h.Now()
		}
		if p.Iter == p.Warmup+p.Iterations {
			p.End = h.Now()
			if p.Initiator {
				return Done(), nil
			}
		}
		next := seq
		if p.Initiator {
			next = seq + 1
		}
		if !p.Initiator || p.Iter < p.Warmup+p.Iterations {
			if err := sendMessage(h, p.Peer, next, p.Size, p.Inline, uint64(next)); err != nil {
				return Wait{}, err
			}
		}
		if !p.Initiator && p.Iter == p.Warmup+p.Iterations {
			return Done(), nil
		}
	}
	return OnCQ(l.RecvCQ, fmt.Sprintf("ping-pong message %d from node %d", p.Iter, p.Peer)), nil
}

// MarshalState implements Program.
func (p *PingPong) MarshalState() ([]byte, error) { return jsonState(p) }

// UnmarshalState implements Program.
func (p *PingPong) UnmarshalState(b []byte) error { return json.Unmarshal(b, p) }

// Stream is pmtest's bandwidth test: node Me sends Count messages (or RDMA writes) of Size
// bytes to Peer, keeping the send queue full; the peer takes each message and posts its
// buffer again. Bandwidth is the bytes over the time from the first post to the last
// completion at the sender.
type Stream struct {
	Me, Peer int
	Sender   bool
	Size     int
	Count    int
	RDMA     bool

	Posted int         `json:"posted"`
	Done   int         `json:"done"`
	Got    int         `json:"got"`
	Start  netsim.Time `json:"start"`
	End    netsim.Time `json:"end"`
	Ready  bool        `json:"ready"`
}

// MBps is the bandwidth in MB/s (10^6 bytes a second).
func (s *Stream) MBps() float64 {
	return float64(s.Count) * float64(s.Size) / (s.End - s.Start).Microseconds()
}

// Step implements Program.
func (s *Stream) Step(h *Host) (Wait, error) {
	l := h.Layout()
	if !s.Sender {
		if !s.Ready {
			s.Ready = true
			if s.RDMA {
				return Done(), nil // RDMA writes need nothing of the target's host
			}
			if err := recvAll(h); err != nil {
				return Wait{}, err
			}
			return OnCQ(l.RecvCQ, "a streamed message"), nil
		}
		for _, e := range h.PollCQ(l.RecvCQ, 1<<30) {
			if e.Status != StatusOK {
				return Wait{}, fmt.Errorf("stream: receive completion: %v", e.Status)
			}
			s.Got++
			if err := repost(h, e); err != nil {
				return Wait{}, err
			}
		}
		if s.Got == s.Count {
			s.End = h.Now()
			return Done(), nil
		}
		return OnCQ(l.RecvCQ, fmt.Sprintf("streamed message %d of %d", s.Got, s.Count)), nil
	}
	if !s.Ready {
		s.Ready = true
		s.Start = h.Now()
	}
	for _, e := range h.PollCQ(l.SendCQ, 1<<30) {
		if e.Status != StatusOK {
			return Wait{}, fmt.Errorf("stream: send completion %d: %v", e.WRID, e.Status)
		}
		s.Done++
	}
	if s.Done == s.Count {
		s.End = h.Now()
		return Done(), nil
	}
	for s.Posted < s.Count && h.Outstanding(s.Peer) < h.Config().SQDepth {
		if err := s.post(h); err != nil {
			return Wait{}, err
		}
	}
	return OnCQ(l.SendCQ, fmt.Sprintf("send completion %d of %d", s.Done, s.Count)), nil
}

func (s *Stream) post(h *Host) error {
	seq := uint32(s.Posted)
	s.Posted++
	if !s.RDMA {
		return sendMessage(h, s.Peer, seq, s.Size, s.Size <= h.Params().InlineBytes, uint64(seq))
	}
	// RDMA: the source is the send buffers as one region, the target the peer's RDMA region.
	pool := h.Config().SendBuffers * h.Params().MaxMessage
	src := h.Layout().SendBuf + uint64((int(seq)*s.Size)%max(1, pool-s.Size+1))
	dst := h.c.nodes[s.Peer].Layout.RDMA
	return h.PostSend(s.Peer, WQE{Op: OpRDMAWrite, Length: uint32(s.Size), Addr: src, LKey: h.Layout().SendMR.LKey,
		Remote: dst, RKey: h.c.nodes[s.Peer].Layout.RDMAMR.RKey, WRID: uint64(seq)})
}

// MarshalState implements Program.
func (s *Stream) MarshalState() ([]byte, error) { return jsonState(s) }

// UnmarshalState implements Program.
func (s *Stream) UnmarshalState(b []byte) error { return json.Unmarshal(b, s) }

// Incast: every other node sends Count messages of Size bytes to node 0, one every Gap; node
// 0's host takes each message for Consume before it posts the buffer again. With a shared
// receive queue of D buffers and senders faster than the host, the queue runs dry: the HCA
// answers RNR NAKs, the senders wait the RNR timer and send again, and nothing is lost.
type Incast struct {
	Me      int
	Size    int
	Count   int
	Gap     netsim.Time
	Consume netsim.Time

	Sent     int         `json:"sent"`
	Acked    int         `json:"acked"`
	Next     []uint32    `json:"next"` // receiver: next sequence number from each sender
	Got      int         `json:"got"`
	Held     []CQE       `json:"held"` // receiver: taken, being consumed
	BusyTill netsim.Time `json:"busy_till"`
	Ready    bool        `json:"ready"`
	End      netsim.Time `json:"end"`
	Digest   []byte      `json:"digest"`
}

// Step implements Program.
func (c *Incast) Step(h *Host) (Wait, error) {
	l := h.Layout()
	if c.Me != 0 {
		for _, e := range h.PollCQ(l.SendCQ, 1<<30) {
			if e.Status != StatusOK {
				return Wait{}, fmt.Errorf("incast: send completion %d: %v", e.WRID, e.Status)
			}
			c.Acked++
		}
		if c.Acked == c.Count {
			c.End = h.Now()
			return Done(), nil
		}
		if c.Sent < c.Count && h.Now() >= netsim.Time(c.Sent)*c.Gap {
			if h.Outstanding(0) >= h.Config().SQDepth {
				return OnCQ(l.SendCQ, "room in the send queue"), nil
			}
			if err := sendMessage(h, 0, uint32(c.Sent), c.Size, c.Size <= h.Params().InlineBytes, uint64(c.Sent)); err != nil {
				return Wait{}, err
			}
			c.Sent++
		}
		if c.Sent < c.Count {
			return Until(netsim.Time(c.Sent)*c.Gap, "the next send"), nil
		}
		return OnCQ(l.SendCQ, fmt.Sprintf("send completion %d of %d", c.Acked, c.Count)), nil
	}
	if !c.Ready {
		c.Ready = true
		c.Next = make([]uint32, h.Nodes())
		if err := recvAll(h); err != nil {
			return Wait{}, err
		}
	}
	// The host consumes one message at a time, Consume each, then posts its buffer again.
	if len(c.Held) > 0 && h.Now() >= c.BusyTill {
		e := c.Held[0]
		c.Held = c.Held[1:]
		msg, err := received(h, e)
		if err == nil {
			err = checkMessage(msg, int(e.SrcNode), 0, c.Next[e.SrcNode])
		}
		if err != nil {
			return Wait{}, err
		}
		c.Next[e.SrcNode]++
		c.Digest = digestAdd(c.Digest, e, msg, h.Now())
		c.Got++
		if err := repost(h, e); err != nil {
			return Wait{}, err
		}
		if len(c.Held) > 0 {
			c.BusyTill = h.Now() + c.Consume
		}
	}
	for _, e := range h.PollCQ(l.RecvCQ, 1<<30) {
		if len(c.Held) == 0 {
			c.BusyTill = h.Now() + c.Consume
		}
		c.Held = append(c.Held, e)
	}
	if c.Got == c.Count*(h.Nodes()-1) {
		c.End = h.Now()
		return Done(), nil
	}
	if len(c.Held) > 0 {
		return Until(c.BusyTill, "consuming a message"), nil
	}
	return OnCQ(l.RecvCQ, fmt.Sprintf("message %d of %d", c.Got, c.Count*(h.Nodes()-1))), nil
}

// digestAdd chains a received message into a digest: who sent it, its status, its bytes and
// when the host took it.
func digestAdd(d []byte, e CQE, msg []byte, at netsim.Time) []byte {
	x := sha256.New()
	x.Write(d)
	var b [32]byte
	e.encode(b[:])
	x.Write(b[:])
	x.Write(msg)
	x.Write(binary.LittleEndian.AppendUint64(nil, uint64(at)))
	return x.Sum(nil)
}

// MarshalState implements Program.
func (c *Incast) MarshalState() ([]byte, error) { return jsonState(c) }

// UnmarshalState implements Program.
func (c *Incast) UnmarshalState(b []byte) error { return json.Unmarshal(b, c) }
