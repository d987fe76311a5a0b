package ib

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/netsim"
)

// script is a test's program: its steps in order, each returning what it then waits for.
type script struct {
	steps []func(h *Host) Wait
	i     int
}

func (s *script) Step(h *Host) (Wait, error) {
	if s.i == len(s.steps) {
		return Done(), nil
	}
	s.i++
	return s.steps[s.i-1](h), nil
}
func (s *script) MarshalState() ([]byte, error) { return nil, nil }
func (s *script) UnmarshalState([]byte) error   { return nil }

// takeAll takes every completion the CQ holds.
func takeAll(h *Host, cq uint32) []CQE { return h.PollCQ(cq, 1<<30) }

func twoNodes(t *testing.T, mod func(*Config)) *Cluster {
	cfg := DefaultConfig()
	cfg.RecvDepth = 8
	if mod != nil {
		mod(&cfg)
	}
	c, err := Build(cfg)
	require.NoError(t, err)
	return c
}

// A WQE whose buffer is not inside registered memory is refused when posted, with an error
// naming the region; nothing is queued and the QP goes on working.
func TestPostSendOutsideRegisteredMemory(t *testing.T) {
	c := twoNodes(t, nil)
	h := c.Node(0).Host
	l := h.Layout()
	end := l.SendMR.Addr + l.SendMR.Len
	for _, w := range []WQE{
		{Op: OpSend, Length: 100, Addr: end - 50, LKey: l.SendMR.LKey},
		{Op: OpSend, Length: 100, Addr: 0x100, LKey: l.SendMR.LKey},
		{Op: OpSend, Length: 100, Addr: l.SendBuf, LKey: 99},
		{Op: OpRDMAWrite, Length: 100, Addr: l.SendBuf, LKey: l.RecvMR.LKey},
	} {
		err := h.PostSend(1, w)
		require.ErrorIs(t, err, ErrOutsideMR)
		require.ErrorContains(t, err, "node 0: QP 2")
	}
	require.ErrorIs(t, h.PostSend(1, WQE{Op: OpSend, Inline: true, Data: make([]byte, 49)}), ErrBadRequest)
	require.ErrorIs(t, h.PostSend(1, WQE{Op: OpRecv, Length: 8, Addr: l.SendBuf, LKey: l.SendMR.LKey}), ErrBadRequest)
	require.ErrorIs(t, h.PostSend(0, WQE{Op: OpSend, Inline: true, Data: make([]byte, 16)}), ErrNoQP)
	require.ErrorIs(t, h.PostRecv(-1, l.RecvBuf+l.RecvMR.Len-8, 64, 0), ErrOutsideMR)
	require.Zero(t, h.Outstanding(1), "nothing queued")
	a := &PingPong{Me: 0, Peer: 1, Initiator: true, Size: 64, Iterations: 3}
	c.Start(0, 0, a)
	c.Start(1, 0, &PingPong{Me: 1, Peer: 0, Size: 64, Iterations: 3})
	require.NoError(t, c.Run(netsim.Never))
	require.Positive(t, a.RTT())
}

// A WQE changed in host memory after it was posted (its lkey wrong) fails when the HCA
// fetches it: it completes with a local protection error, the QP goes to the error state
// and the WQEs behind it complete as flushed. Every WQE comes back; the receiver gets only
// the message before it; the QP takes no more sends.
func TestCorruptedWQEInHostMemory(t *testing.T) {
	c := twoNodes(t, nil)
	var sends []CQE
	var got []CQE
	sender := &script{steps: []func(h *Host) Wait{
		func(h *Host) Wait {
			for i := range 3 {
				require.NoError(t, sendMessage(h, 1, uint32(i), 200, false, uint64(i)))
			}
			q := h.HCA().qp(h.Layout().QPs[1])
			// WQE 1's lkey (bytes 24..27) changed to one that names no region.
			h.Mem().Write(q.SQAddr+64+24, []byte{0xee, 0, 0, 0})
			return OnCQ(h.Layout().SendCQ, "completions")
		},
		func(h *Host) Wait {
			sends = append(sends, takeAll(h, h.Layout().SendCQ)...)
			if len(sends) < 3 {
				return OnCQ(h.Layout().SendCQ, "completions")
			}
			return Done()
		},
	}}
	// The second step repeats until three completions are in.
	sender.steps = append(sender.steps, sender.steps[1], sender.steps[1], sender.steps[1])
	receiver := &script{steps: []func(h *Host) Wait{
		func(h *Host) Wait { require.NoError(t, recvAll(h)); return Until(netsim.Millisecond, "the sends") },
		func(h *Host) Wait { got = takeAll(h, h.Layout().RecvCQ); return Done() },
	}}
	c.Start(0, 0, sender)
	c.Start(1, 0, receiver)
	require.NoError(t, c.Run(netsim.Never))
	require.Len(t, sends, 3)
	require.Equal(t, []Status{StatusOK, StatusLocalProt, StatusFlushed}, []Status{sends[0].Status, sends[1].Status, sends[2].Status})
	require.Len(t, got, 1)
	st, err := c.Node(0).HCA.QPState(c.Node(0).Layout.QPs[1])
	require.NoError(t, err)
	require.Equal(t, QPError, st)
	require.Contains(t, c.Node(0).HCA.Log()[0], "local protection error")
	require.ErrorIs(t, c.Node(0).Host.PostSend(1, WQE{Op: OpSend, Inline: true, Data: make([]byte, 16)}), ErrQPState)
}

// A message that arrives while its receive CQ is full is refused with an RNR NAK (the CQ
// would overflow), noted in the HCA's log; the sender retries, and once the host has taken
// completions every message arrives, in order. Nothing is lost.
func TestReceiveOnFullCQ(t *testing.T) {
	c := twoNodes(t, func(cfg *Config) { cfg.CQDepth = 2 })
	var got []CQE
	recv := &script{}
	recv.steps = append(recv.steps,
		func(h *Host) Wait {
			require.NoError(t, recvAll(h))
			return Until(300*netsim.Microsecond, "a full CQ for a while")
		})
	for range 6 {
		recv.steps = append(recv.steps, func(h *Host) Wait {
			for _, e := range takeAll(h, h.Layout().RecvCQ) {
				msg, err := received(h, e)
				require.NoError(t, err)
				require.NoError(t, checkMessage(msg, 0, 1, uint32(len(got))))
				got = append(got, e)
				require.NoError(t, repost(h, e))
			}
			if len(got) == 6 {
				return Done()
			}
			return OnCQ(h.Layout().RecvCQ, "the rest")
		})
	}
	c.Start(0, 0, &script{steps: []func(h *Host) Wait{func(h *Host) Wait {
		for i := range 6 {
			require.NoError(t, sendMessage(h, 1, uint32(i), 100, false, uint64(i)))
		}
		return Until(5*netsim.Millisecond, "the end")
	}}})
	c.Start(1, 0, recv)
	require.NoError(t, c.Run(netsim.Never))
	require.Len(t, got, 6)
	st := c.Node(1).HCA.Stats
	require.Positive(t, st.CQFull)
	require.Equal(t, st.CQFull, st.RNRNaksSent)
	require.Contains(t, c.Node(1).HCA.Log()[0], "CQ 2 full")
}

// An RDMA write with a key that names no remotely writable region is refused by the target:
// the sender's WQE completes with a remote access error and its QP goes to the error state;
// the target's memory is untouched.
func TestRDMAWriteRefused(t *testing.T) {
	c := twoNodes(t, nil)
	before := c.Node(1).Mem.Digest()
	var e []CQE
	c.Start(0, 0, &script{steps: []func(h *Host) Wait{
		func(h *Host) Wait {
			l := h.Layout()
			pl := h.c.nodes[1].Layout
			require.NoError(t, h.PostSend(1, WQE{Op: OpRDMAWrite, Length: 64, Addr: l.SendBuf, LKey: l.SendMR.LKey, Remote: pl.RDMA, RKey: pl.RecvMR.RKey}))
			require.NoError(t, h.PostSend(1, WQE{Op: OpRDMAWrite, Length: 64, Addr: l.SendBuf, LKey: l.SendMR.LKey, Remote: pl.RDMA, RKey: pl.RDMAMR.RKey}))
			return Until(200*netsim.Microsecond, "the writes")
		},
		func(h *Host) Wait { e = takeAll(h, h.Layout().SendCQ); return Done() },
	}})
	require.NoError(t, c.Run(netsim.Never))
	require.Len(t, e, 2)
	require.Equal(t, StatusRemoteAccess, e[0].Status)
	require.Equal(t, StatusFlushed, e[1].Status)
	require.Equal(t, before, c.Node(1).Mem.Digest())
	require.Contains(t, c.Node(1).HCA.Log()[0], "RDMA write of 64 bytes")
}

// A message longer than the receive buffer it takes: the receiver's WQE completes with a
// local length error, the sender's with a remote invalid request, and its QP stops.
func TestReceiveBufferTooShort(t *testing.T) {
	c := twoNodes(t, nil)
	var s, r []CQE
	c.Start(1, 0, &script{steps: []func(h *Host) Wait{
		func(h *Host) Wait {
			require.NoError(t, h.PostRecv(-1, h.RecvBuffer(-1, 0), 32, 7))
			return Until(200*netsim.Microsecond, "the message")
		},
		func(h *Host) Wait { r = takeAll(h, h.Layout().RecvCQ); return Done() },
	}})
	c.Start(0, 0, &script{steps: []func(h *Host) Wait{
		func(h *Host) Wait {
			require.NoError(t, sendMessage(h, 1, 0, 100, false, 1))
			return Until(200*netsim.Microsecond, "the send")
		},
		func(h *Host) Wait { s = takeAll(h, h.Layout().SendCQ); return Done() },
	}})
	require.NoError(t, c.Run(netsim.Never))
	require.Equal(t, []Status{StatusLocalLength}, []Status{r[0].Status})
	require.Equal(t, uint64(7), r[0].WRID)
	require.Equal(t, StatusRemoteInvalid, s[0].Status)
}

// taken runs the checkpoint workload to a checkpoint and returns it with node 0's image.
func taken(t *testing.T) (*Cluster, []byte) {
	cfg, w := ckptConfig()
	c := startTraffic(t, cfg, w)
	_, err := c.Checkpoint(400*netsim.Microsecond, true)
	require.NoError(t, err)
	im := c.ckpt.images[0][0]
	return c, c.Node(0).Mem.Bytes(im.Addr, im.Bytes)
}

// recrc puts a good checksum on an edited image, as a hand edit would.
func recrc(img []byte) []byte {
	b := bytes.Clone(img)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// A malformed context image is refused whole, with an error saying what is wrong, and the
// HCA is left exactly as it was.
func TestMalformedContextImageRefused(t *testing.T) {
	c, img := taken(t)
	h := c.Node(0).HCA
	before, err := h.sched.Save(1, uint32(len(h.qps)), true)
	require.NoError(t, err)
	require.Equal(t, img, before, "saving twice gives the same image")
	set := func(off int, v byte) []byte { b := bytes.Clone(img); b[off] = v; return recrc(b) }
	const qp1State = 25 + 36 + 28 // header, QP 1's fixed part, its own receive queue (empty)
	for name, bad := range map[string][]byte{
		"empty":          nil,
		"cut short":      img[:len(img)/2],
		"one bit":        func() []byte { b := bytes.Clone(img); b[40] ^= 1; return b }(),
		"other magic":    set(0, 'X'),
		"other version":  set(4, 9),
		"other node":     set(8, 3),
		"bad range":      set(16, 0),
		"bad state":      set(qp1State, 9),
		"bad flag":       set(qp1State+1+16+4, 2),
		"bad error":      set(qp1State+1+16+4+6+1, 99),
		"bytes left":     recrc(append(bytes.Clone(img[:len(img)-4]), 0, 0, 0, 0, 0)),
		"too many QPs":   set(21, 200),
		"QP out of turn": set(25, 5),
	} {
		err := h.sched.Restore(bad)
		require.ErrorIs(t, err, ErrContext, name)
		after, err2 := h.sched.Save(1, uint32(len(h.qps)), true)
		require.NoError(t, err2)
		require.Equal(t, before, after, "%s: the HCA changed", name)
	}
	require.ErrorContains(t, h.sched.Restore(set(8, 3)), "saved on node 3, restored on node 0")
	require.ErrorContains(t, h.sched.Restore(img[:len(img)-1]), "checksum mismatch")
	// The good image restores, and restoring it changes nothing.
	require.NoError(t, h.sched.Restore(img))
	after, err := h.sched.Save(1, uint32(len(h.qps)), true)
	require.NoError(t, err)
	require.Equal(t, before, after)
}

// Restore takes any bytes without panicking: it refuses them or restores what they say.
func FuzzRestoreContext(f *testing.F) {
	cfg, w := ckptConfig()
	c, err := Build(cfg)
	if err != nil {
		f.Fatal(err)
	}
	for i := range cfg.Nodes {
		c.Start(i, 0, NewTraffic(w, i))
	}
	if _, err := c.Checkpoint(400*netsim.Microsecond, true); err != nil {
		f.Fatal(err)
	}
	im := c.ckpt.images[0][0]
	f.Add(c.Node(0).Mem.Bytes(im.Addr, im.Bytes))
	f.Add([]byte("IBCX"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = c.Node(0).HCA.sched.Restore(b)
		_ = c.Node(0).HCA.sched.Restore(recrcAny(b))
	})
}

func recrcAny(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	return recrc(b)
}

// A checkpoint file that is not an InfiniBand run's, or whose node parts are damaged, is
// refused with an error naming what is wrong; nothing panics.
func TestMalformedCheckpointFileRefused(t *testing.T) {
	c, _ := taken(t)
	_, w := ckptConfig()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ckpt")
	require.NoError(t, c.WriteCheckpoint(good, w))
	write := func(name string, edit func(f *checkpoint.File)) string {
		g, err := checkpoint.Read(good)
		require.NoError(t, err)
		edit(g)
		p := filepath.Join(dir, name)
		require.NoError(t, g.Write(p))
		return p
	}
	node0 := func(g *checkpoint.File, edit func(ns *nodeState)) {
		var ns nodeState
		require.NoError(t, json.Unmarshal(g.Sections[0].Data, &ns))
		edit(&ns)
		data, err := json.Marshal(ns)
		require.NoError(t, err)
		g.Sections[0].Data = data
	}
	cases := map[string]struct {
		edit func(g *checkpoint.File)
		says string
	}{
		"a board run's": {func(g *checkpoint.File) { g.Meta = []byte(`{"Model":"go"}`); g.Sections = nil }, "not a checkpoint of an InfiniBand run"},
		"no node 3":     {func(g *checkpoint.File) { g.Sections = append(g.Sections[:3], g.Sections[4:]...) }, "5 node sections for 6 nodes"},
		"renamed":       {func(g *checkpoint.File) { g.Sections[3].Kind = "ib/node/9" }, "no section for node 3"},
		"garbage":       {func(g *checkpoint.File) { g.Sections[0].Data = []byte("{") }, "node 0: its section"},
		"memory cut":    {func(g *checkpoint.File) { node0(g, func(ns *nodeState) { ns.Memory = ns.Memory[:100] }) }, "bad host memory image"},
		"image outside": {func(g *checkpoint.File) {
			node0(g, func(ns *nodeState) { ns.Images[0].Addr = 0 })
		}, "outside the save area"},
		"image damaged": {func(g *checkpoint.File) {
			node0(g, func(ns *nodeState) { ns.Images[0].Bytes -= 3 })
		}, "bad QP context image"},
		"no image":    {func(g *checkpoint.File) { node0(g, func(ns *nodeState) { ns.Images = nil }) }, "no context image"},
		"bad program": {func(g *checkpoint.File) { node0(g, func(ns *nodeState) { ns.Program = []byte("[") }) }, "program state"},
		"bad nodes":   {func(g *checkpoint.File) { g.Meta = bytes.Replace(g.Meta, []byte(`"Nodes":6`), []byte(`"Nodes":1`), 1) }, "1 nodes"},
	}
	for name, tc := range cases {
		_, _, err := ReadCheckpoint(write(name, tc.edit))
		require.ErrorContains(t, err, tc.says, name)
	}
	_, _, err := ReadCheckpoint(filepath.Join(dir, "none"))
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk"), []byte("lhsim checkpoint 1\njunk"), 0o644))
	_, _, err = ReadCheckpoint(filepath.Join(dir, "junk"))
	require.ErrorIs(t, err, checkpoint.ErrFormat)
}
