package ib

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/lhsim/lhsim/netsim"
)

// Workload is a run of mixed traffic, all nodes at once: every node sends Messages messages
// to every other node, in turns, of sizes drawn from the seed (most short enough for Data
// on WQE, some up to MaxMessage, every RDMAEvery-th an RDMA write into the peer's region),
// with a random gap of up to 2*Gap between sends; each host takes each message it receives
// for up to 2*Consume before it posts the buffer again. With a shared receive queue smaller
// than the traffic, queues run dry and RNR NAKs and retries happen. Each node checks every
// message is the next from its sender, whole.
type Workload struct {
	Messages  int         `json:"messages"`
	RDMAEvery int         `json:"rdma_every"` // 0: no RDMA writes
	Gap       netsim.Time `json:"gap_ps"`
	Consume   netsim.Time `json:"consume_ps"`
	Seed      uint64      `json:"seed"`
}

// Validate reports what cannot run.
func (w Workload) Validate() error {
	if w.Messages < 1 || w.RDMAEvery < 0 || w.Gap < 0 || w.Consume < 0 {
		return fmt.Errorf("ib: workload %+v: want at least one message and no negative numbers", w)
	}
	return nil
}

// Traffic is one node's program of a Workload.
type Traffic struct {
	W  Workload `json:"workload"`
	Me int      `json:"me"`

	RNG      []byte      `json:"rng"` // the PCG's state between steps
	Sent     []int       `json:"sent"`
	Next     []uint32    `json:"next"` // next sequence number expected from each node
	Got      int         `json:"got"`
	Done     int         `json:"done"` // send completions
	Turn     int         `json:"turn"`
	NextSend netsim.Time `json:"next_send"`
	Held     []CQE       `json:"held"`
	BusyTill netsim.Time `json:"busy_till"`
	RDMA     int         `json:"rdma"`
	Recv     []byte      `json:"recv_digest"`
	Content  [][]byte    `json:"content_digest"` // what arrived from each node, without when
	Send     []byte      `json:"send_digest"`
	Started  bool        `json:"started"`
	End      netsim.Time `json:"end"`

	rng *rand.Rand
	pcg *rand.PCG
}

// NewTraffic is node me's program of w.
func NewTraffic(w Workload, me int) *Traffic {
	t := &Traffic{W: w, Me: me}
	t.pcg = rand.NewPCG(w.Seed, uint64(me)+0x9e3779b97f4a7c15)
	t.rng = rand.New(t.pcg)
	return t
}

func (t *Traffic) sends(h *Host) int { return t.W.Messages * (h.Nodes() - 1) }

// Step implements Program.
func (t *Traffic) Step(h *Host) (Wait, error) {
	l := h.Layout()
	n := h.Nodes()
	if !t.Started {
		t.Started = true
		t.Sent, t.Next, t.Content = make([]int, n), make([]uint32, n), make([][]byte, n)
		if err := recvAll(h); err != nil {
			return Wait{}, err
		}
	}
	// Consume the message the host holds, if its time is up.
	if len(t.Held) > 0 && h.Now() >= t.BusyTill {
		e := t.Held[0]
		t.Held = t.Held[1:]
		msg, err := received(h, e)
		if err == nil {
			err = checkMessage(msg, int(e.SrcNode), t.Me, t.Next[e.SrcNode])
		}
		if err != nil {
			return Wait{}, fmt.Errorf("node %d: %w", t.Me, err)
		}
		t.Next[e.SrcNode]++
		t.Got++
		t.Recv = digestAdd(t.Recv, e, msg, h.Now())
		t.Content[e.SrcNode] = digestAdd(t.Content[e.SrcNode], CQE{Bytes: e.Bytes}, msg, 0)
		if err := repost(h, e); err != nil {
			return Wait{}, err
		}
		if len(t.Held) > 0 {
			t.BusyTill = h.Now() + t.consumeTime()
			t.consuming(h, t.Held[0])
		}
	}
	for _, e := range h.PollCQ(l.SendCQ, 1<<30) {
		switch {
		case e.Op == OpRecv:
			if len(t.Held) == 0 {
				t.BusyTill = h.Now() + t.consumeTime()
				t.consuming(h, e)
			}
			t.Held = append(t.Held, e)
		case e.Status != StatusOK:
			return Wait{}, fmt.Errorf("node %d: %v to QP %d failed: %v", t.Me, e.Op, e.QPN, e.Status)
		default:
			t.Done++
			t.Send = digestAdd(t.Send, e, nil, h.Now())
		}
	}
	if l.RecvCQ != l.SendCQ {
		return Wait{}, fmt.Errorf("node %d: the traffic workload wants one CQ (Config.OneCQ)", t.Me)
	}
	// One send per step, to the next peer in turn that has messages left and room.
	if h.Now() >= t.NextSend {
		for k := 0; k < n; k++ {
			p := (t.Turn + k) % n
			if p == t.Me || t.Sent[p] >= t.W.Messages || h.Outstanding(p) >= h.Config().SQDepth {
				continue
			}
			if err := t.send(h, p); err != nil {
				return Wait{}, err
			}
			t.Turn = p + 1
			t.NextSend = h.Now() + netsim.Time(t.rng.Int64N(int64(2*t.W.Gap)+1))
			break
		}
	}
	recvs := t.W.Expected() * (n - 1)
	if t.Done == t.sends(h) && t.Got == recvs && len(t.Held) == 0 {
		t.End = h.Now()
		return Done(), nil
	}
	switch {
	case len(t.Held) > 0:
		return Until(t.BusyTill, "consuming a message"), nil
	case t.posted() < t.sends(h) && t.NextSend > h.Now():
		return Until(t.NextSend, "the next send"), nil
	}
	return OnCQ(l.SendCQ, fmt.Sprintf("messages (%d of %d in, %d of %d sends done)", t.Got, recvs, t.Done, t.sends(h))), nil
}

func (t *Traffic) posted() int {
	s := 0
	for _, v := range t.Sent {
		s += v
	}
	return s
}

func (t *Traffic) consumeTime() netsim.Time {
	return netsim.Time(t.rng.Int64N(int64(2*t.W.Consume) + 1))
}

// send posts the next message (or RDMA write) to p.
// consuming tells the tracer the host starts to consume e, until BusyTill: the message
// from e's source numbered Next (all before it are consumed).
func (t *Traffic) consuming(h *Host, e CQE) {
	if tr := h.c.tr; tr != nil {
		src := int(e.SrcNode)
		tr.HostOp(t.Me, "consume", h.Now(), t.BusyTill, src, int(e.Bytes), MessageFlow(src, t.Me, h.Nodes(), t.Next[src]))
	}
}

func (t *Traffic) send(h *Host, p int) error {
	err := t.post(h, p)
	if tr := h.c.tr; tr != nil && err == nil {
		seq := t.Sent[p] - 1
		if t.W.RDMAEvery > 0 && (seq+1)%t.W.RDMAEvery == 0 {
			tr.HostOp(t.Me, "post RDMA WRITE", h.Now(), h.Now(), p, -1, 0)
		} else {
			tr.HostOp(t.Me, "post SEND", h.Now(), h.Now(), p, -1, MessageFlow(t.Me, p, h.Nodes(), uint32(t.Next0(p, seq))))
		}
	}
	return err
}

// post hands the next message to p to the HCA.
func (t *Traffic) post(h *Host, p int) error {
	seq := t.Sent[p]
	t.Sent[p]++
	wrid := uint64(p)<<32 | uint64(seq)
	if t.W.RDMAEvery > 0 && (seq+1)%t.W.RDMAEvery == 0 {
		// An RDMA write into p's region, in the slot of this node, from a send buffer.
		t.RDMA++
		size := 16 + rand.New(rand.NewPCG(t.W.Seed, uint64(t.Me)<<40|uint64(p)<<20|uint64(seq))).IntN(2033)
		data := payload(t.Me, p, uint32(seq), size)
		pn := h.c.nodes[p].Layout
		slot := uint64(h.Config().RDMABytes / h.Nodes())
		if uint64(size) > slot {
			return fmt.Errorf("node %d: RDMA write of %d bytes: the peer's slot is %d bytes", t.Me, size, slot)
		}
		src := h.SendBuffer(peerIndex(t.Me, p)*h.Config().SQDepth + seq%h.Config().SQDepth)
		h.Mem().Write(src, data)
		return h.PostSend(p, WQE{Op: OpRDMAWrite, Length: uint32(size), Addr: src, LKey: h.Layout().SendMR.LKey,
			Remote: pn.RDMA + uint64(t.Me)*slot, RKey: pn.RDMAMR.RKey, WRID: wrid})
	}
	// The message's size is a function of the seed, the pair and its number, so that a run
	// whose timing differs (a checkpoint) sends the same messages.
	x := rand.New(rand.NewPCG(t.W.Seed, uint64(t.Me)<<40|uint64(p)<<20|uint64(seq)))
	var size int
	switch r := x.IntN(10); {
	case r < 7:
		size = msgHeader + x.IntN(h.Params().InlineBytes-msgHeader+1)
	case r < 9:
		size = h.Params().InlineBytes + 1 + x.IntN(2048-h.Params().InlineBytes)
	default:
		size = 2049 + x.IntN(h.Params().MaxMessage-2048)
	}
	return sendMessage(h, p, uint32(t.Next0(p, seq)), size, size <= h.Params().InlineBytes, wrid)
}

// Next0 is the sequence number of p's seq-th message from this node among sends only (RDMA
// writes take no number of the receiver's).
func (t *Traffic) Next0(p, seq int) int {
	if t.W.RDMAEvery == 0 {
		return seq
	}
	return seq - (seq+1)/t.W.RDMAEvery
}

// Expected is how many messages (not RDMA writes) node me receives from each other node.
func (w Workload) Expected() int {
	if w.RDMAEvery == 0 {
		return w.Messages
	}
	return w.Messages - w.Messages/w.RDMAEvery
}

// MarshalState implements Program.
func (t *Traffic) MarshalState() ([]byte, error) {
	s, err := t.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	t.RNG = s
	return json.Marshal(t)
}

// UnmarshalState implements Program.
func (t *Traffic) UnmarshalState(b []byte) error {
	if err := json.Unmarshal(b, t); err != nil {
		return err
	}
	t.pcg = &rand.PCG{}
	if err := t.pcg.UnmarshalBinary(t.RNG); err != nil {
		return fmt.Errorf("traffic state: %w", err)
	}
	t.rng = rand.New(t.pcg)
	return nil
}

// NodeOutcome is what a node of a traffic run ended with: enough to tell two runs apart.
type NodeOutcome struct {
	Node       int    `json:"node"`
	EndPs      int64  `json:"end_ps"`
	Received   int    `json:"received"`
	RDMAWrites int    `json:"rdma_writes"`
	RecvDigest string `json:"recv_digest"`
	Content    string `json:"content_digest"`
	SendDigest string `json:"send_digest"`
	Memory     string `json:"memory_digest"`
	Stats      Stats  `json:"stats"`
}

// contentDigest is one digest of what arrived from each node, in node order: the same for
// two runs that delivered the same messages in each sender's order, whatever their timing.
func contentDigest(from [][]byte) string {
	x := sha256.New()
	for _, d := range from {
		x.Write(d)
	}
	return hex.EncodeToString(x.Sum(nil))
}

// Outcome is every node's outcome, once every program has ended.
func (c *Cluster) Outcome() ([]NodeOutcome, error) {
	var out []NodeOutcome
	for _, nd := range c.nodes {
		t, ok := nd.Host.prog.(*Traffic)
		if !ok || !nd.Host.ended() {
			return nil, fmt.Errorf("ib: node %d has not finished a traffic program", nd.ID)
		}
		d := nd.Mem.Digest()
		out = append(out, NodeOutcome{Node: nd.ID, EndPs: int64(t.End), Received: t.Got, RDMAWrites: t.RDMA,
			RecvDigest: hex.EncodeToString(t.Recv), Content: contentDigest(t.Content), SendDigest: hex.EncodeToString(t.Send), Memory: hex.EncodeToString(d[:]),
			Stats: nd.HCA.Stats})
	}
	return out, nil
}
