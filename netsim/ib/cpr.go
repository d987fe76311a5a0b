package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// CPRTimes is how long each step of a checkpoint/restart takes on one HCA with QPs queue
// pairs, from the host's first command to the completion of its last: with one command for
// the range of all of them (bulk), or one command per QP.
type CPRTimes struct {
	QPs        int         `json:"qps"`
	Bulk       bool        `json:"bulk"`
	Commands   int         `json:"commands"`
	Stop       netsim.Time `json:"stop_ps"`
	Save       netsim.Time `json:"save_ps"`
	Restore    netsim.Time `json:"restore_ps"`
	Resume     netsim.Time `json:"resume_ps"`
	ImageBytes int         `json:"image_bytes"`
}

// Total is the four steps together (a gang switch: stop, save, restore, resume).
func (t CPRTimes) Total() netsim.Time { return t.Stop + t.Save + t.Restore + t.Resume }

// loneHCA is one node's HCA with qps QPs to a peer that is never there: enough to run
// commands on (a machine of qps+1 nodes would hold qps*(qps+1) QPs).
func loneHCA(cfg Config, qps int) *Cluster {
	c := &Cluster{cfg: cfg, p: cfg.Params, eng: &netsim.Engine{}}
	nd := &Node{ID: 0, Mem: newMemory()}
	h := newHCA(c, 0, nd.Mem)
	nd.HCA = h
	p := &cfg.Params
	sendCQ := h.createCQ(nd.Mem.alloc(uint64(cfg.CQDepth*p.CQEBytes)), uint32(cfg.CQDepth))
	recvCQ := h.createCQ(nd.Mem.alloc(uint64(cfg.CQDepth*p.CQEBytes)), uint32(cfg.CQDepth))
	srq := h.createSRQ(nd.Mem.alloc(uint64(cfg.RecvDepth*p.WQEBytes)), uint32(cfg.RecvDepth), recvCQ)
	for q := range qps {
		h.createQP(qpConfig{Peer: 1, PeerQP: uint32(q + 1), SQAddr: nd.Mem.alloc(uint64(cfg.SQDepth * p.WQEBytes)),
			SQDepth: uint32(cfg.SQDepth), SRQ: srq, SendCQ: sendCQ, RecvCQ: recvCQ})
	}
	nd.Layout.SaveBytes = qps*(ctxHeaderBytes+qpBound(cfg)) + queuesBound(qps+1, cfg)
	nd.Layout.SaveArea = nd.Mem.alloc(uint64(nd.Layout.SaveBytes))
	c.nodes = []*Node{nd, {ID: 1}}
	return c
}

// CPRCost times stop, save, restore and resume of qps idle QPs on one HCA of cfg, bulk or
// one command per QP. The commands of a step are issued back to back; a step starts when the
// one before it has completed.
func CPRCost(cfg Config, qps int, bulk bool) (CPRTimes, error) {
	if err := cfg.Params.Validate(); err != nil {
		return CPRTimes{}, err
	}
	if qps < 1 || qps > 1<<16 {
		return CPRTimes{}, fmt.Errorf("ib: %d QPs: want 1..65536", qps)
	}
	c := loneHCA(cfg, qps)
	h := c.nodes[0].HCA
	l := &c.nodes[0].Layout
	res := CPRTimes{QPs: qps, Bulk: bulk}
	var images []image
	step := func(kind CommandKind) (netsim.Time, error) {
		var cmds []Command
		if bulk {
			cmds = []Command{{Kind: kind, First: 1, Last: uint32(qps), Queues: true}}
		} else {
			for q := 1; q <= qps; q++ {
				cmds = append(cmds, Command{Kind: kind, First: uint32(q), Last: uint32(q), Queues: q == 1})
			}
		}
		addr := l.SaveArea
		for i := range cmds {
			switch kind {
			case CmdSave:
				room := ctxHeaderBytes + qpBound(cfg)*int(cmds[i].Last-cmds[i].First+1)
				if cmds[i].Queues {
					room += queuesBound(qps+1, cfg)
				}
				cmds[i].Addr, cmds[i].Bytes = addr, room
				addr += uint64(room)
			case CmdRestore:
				cmds[i].Addr, cmds[i].Bytes = images[i].Addr, images[i].Bytes
			}
		}
		start := c.eng.Now()
		var last netsim.Time
		var failed error
		for _, cmd := range cmds {
			res.Commands++
			h.sched.Issue(start, cmd, func(r CommandResult) {
				if r.Err != nil && failed == nil {
					failed = r.Err
				}
				if kind == CmdSave {
					images = append(images, image{Addr: cmd.Addr, Bytes: r.Bytes})
					res.ImageBytes += r.Bytes
				}
				last = max(last, r.Done)
			})
		}
		c.eng.Run(netsim.Never)
		return last - start, failed
	}
	var err error
	for _, s := range []struct {
		kind CommandKind
		t    *netsim.Time
	}{{CmdStop, &res.Stop}, {CmdSave, &res.Save}, {CmdRestore, &res.Restore}, {CmdResume, &res.Resume}} {
		if *s.t, err = step(s.kind); err != nil {
			return res, fmt.Errorf("ib: %v: %w", s.kind, err)
		}
	}
	return res, nil
}
