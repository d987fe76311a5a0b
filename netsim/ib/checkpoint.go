package ib

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Checkpoint and restart, as the PM/InfiniBand-FJ paper's §5.5 and §6 do it under SCore: the job's processes are
// stopped; each node sends its HCA one stop command for the range of all its QPs (or, to
// compare, one per QP) and waits until every QP is stable, nothing of it on the wire
// (pmSendStable); then each node saves all its QP and CQ contexts with one save command (or
// one per QP) into host memory (pmSaveContext). The lhsim checkpoint file then holds every
// node's memory (with those images), its programs' state and the machine's description. A
// restart builds the machine again, makes each node's QPs from its images (pmRestoreContext:
// CreateQP with the saved context) and resumes; a run that was only checkpointed resumes
// from the same point with its HCAs as they were. Both go on alike, bit for bit: the images
// hold everything of the HCA that matters.

// CheckpointReport is what a checkpoint took.
type CheckpointReport struct {
	Bulk       bool        `json:"bulk"`       // one command per node for all QPs (else one per QP)
	At         netsim.Time `json:"at_ps"`      // the request
	Stopped    netsim.Time `json:"stopped_ps"` // the last node's stop commands done
	Stable     netsim.Time `json:"stable_ps"`  // every QP stable
	Saved      netsim.Time `json:"saved_ps"`   // the last node's contexts saved: the checkpoint's time
	Commands   int         `json:"commands"`
	ImageBytes []int       `json:"image_bytes"` // per node
	// InFlight is what was under way at the request, to show the checkpoint caught traffic:
	// packets in the network, messages started and not acknowledged, WQEs posted not started.
	InFlight InFlight `json:"in_flight"`
}

// InFlight counts traffic under way.
type InFlight struct {
	Packets     int `json:"packets"`
	Unacked     int `json:"unacknowledged_messages"`
	NotStarted  int `json:"posted_not_started"`
	RNRWaiting  int `json:"rnr_waiting_qps"`
	ReceiveHeld int `json:"receive_wqes_cached"`
}

// inFlight counts what is under way now.
func (c *Cluster) inFlight() InFlight {
	f := InFlight{Packets: c.net.InFlight()}
	for _, nd := range c.nodes {
		for _, q := range nd.HCA.qps {
			f.Unacked += len(q.Outstanding)
			f.NotStarted += int(q.SQProd - q.SQNext)
			if q.RNRWait || q.RNRDue {
				f.RNRWaiting++
			}
			f.ReceiveHeld += len(q.RQ.Cache)
		}
		for _, s := range nd.HCA.srqs {
			f.ReceiveHeld += len(s.Cache)
		}
	}
	return f
}

// image is where one context image of a node sits in its memory.
type image struct {
	Addr  uint64 `json:"addr"`
	Bytes int    `json:"bytes"`
}

// ckptState is the cluster's side of a checkpoint in progress or taken.
type ckptState struct {
	report    CheckpointReport
	images    [][]image // per node
	suspended netsim.Time
}

// ErrNoCheckpoint is returned by Continue and WriteCheckpoint without a checkpoint taken.
var ErrNoCheckpoint = errors.New("no checkpoint taken")

// Checkpoint runs the machine to at, then takes a checkpoint there (stop, stable, save). It
// returns when every node has saved; the hosts stay suspended until Continue.
func (c *Cluster) Checkpoint(at netsim.Time, bulk bool) (*CheckpointReport, error) {
	if c.ckpt != nil {
		return nil, errors.New("ib: a checkpoint is already taken; Continue first")
	}
	if err := c.Run(at); err != nil {
		return nil, err
	}
	if c.m.Live() == 0 {
		return nil, fmt.Errorf("ib: nothing to checkpoint at %v: every program has ended", at)
	}
	st := &ckptState{report: CheckpointReport{Bulk: bulk, At: at}, images: make([][]image, len(c.nodes)), suspended: at}
	c.ckpt = st
	n := uint32(len(c.nodes))
	var failed error
	fail := func(err error) {
		if failed == nil {
			failed = err
		}
		c.eng.Stop()
	}
	pending := 0
	// Issue sends one command, or one per QP, to node nd's HCA; after runs when all are done.
	issue := func(nd *Node, t netsim.Time, kind CommandKind, after func(now netsim.Time)) {
		var cmds []Command
		if bulk {
			cmds = []Command{{Kind: kind, First: 1, Last: n, Queues: true}}
		} else {
			for q := uint32(1); q <= n; q++ {
				cmds = append(cmds, Command{Kind: kind, First: q, Last: q, Queues: q == 1})
			}
		}
		if kind == CmdSave {
			addr := nd.Layout.SaveArea
			for i := range cmds {
				room := qpBound(c.cfg) + ctxHeaderBytes
				if cmds[i].Queues {
					room += queuesBound(int(n), c.cfg)
				}
				if bulk {
					room = nd.Layout.SaveBytes
				}
				cmds[i].Addr, cmds[i].Bytes = addr, room
				addr += uint64(room)
			}
		}
		left := len(cmds)
		pending++
		for _, cmd := range cmds {
			st.report.Commands++
			nd.HCA.sched.Issue(t, cmd, func(r CommandResult) {
				if r.Err != nil {
					fail(fmt.Errorf("ib: checkpoint: node %d: %v %d..%d: %w", nd.ID, cmd.Kind, cmd.First, cmd.Last, r.Err))
					return
				}
				if cmd.Kind == CmdSave {
					st.images[nd.ID] = append(st.images[nd.ID], image{Addr: cmd.Addr, Bytes: r.Bytes})
					st.report.ImageBytes[nd.ID] += r.Bytes
				}
				if left--; left == 0 {
					pending--
					after(r.Done)
				}
			})
		}
	}
	st.report.ImageBytes = make([]int, len(c.nodes))
	saved := 0
	var poll func(now netsim.Time)
	poll = func(now netsim.Time) {
		if pending > 0 {
			c.eng.At(now+c.p.StablePoll, netsim.Func(func(t netsim.Time, _ int64) { poll(t) }), 0)
			return
		}
		if why := c.unstable(); why != "" {
			if now-at > c.p.WaitLimit {
				fail(fmt.Errorf("ib: checkpoint: %w: not stable %v after the request: %s", ErrWaitLimit, c.p.WaitLimit, why))
				return
			}
			c.eng.At(now+c.p.StablePoll, netsim.Func(func(t netsim.Time, _ int64) { poll(t) }), 0)
			return
		}
		st.report.Stable = now
		for _, nd := range c.nodes {
			issue(nd, now, CmdSave, func(done netsim.Time) {
				st.report.Saved = max(st.report.Saved, done)
				if saved++; saved == len(c.nodes) {
					c.eng.Stop()
				}
			})
		}
	}
	c.eng.At(at, netsim.Func(func(now netsim.Time, _ int64) {
		st.report.InFlight = c.inFlight()
		stopped := 0
		for _, nd := range c.nodes {
			nd.Host.suspend()
			issue(nd, now, CmdStop, func(done netsim.Time) {
				st.report.Stopped = max(st.report.Stopped, done)
				if stopped++; stopped == len(c.nodes) {
					poll(done)
				}
			})
		}
	}), 0)
	c.eng.Run(netsim.Never)
	if failed == nil {
		failed = c.m.Err()
	}
	if failed == nil && saved < len(c.nodes) {
		failed = fmt.Errorf("ib: checkpoint: %d of %d nodes saved when nothing was left to happen", saved, len(c.nodes))
	}
	if failed != nil {
		return nil, failed
	}
	// Whatever else was due at that instant (there should be nothing but stale wake-ups).
	c.eng.Run(st.report.Saved)
	return &st.report, nil
}

// unstable says why the machine is not yet stable, or "" when it is.
func (c *Cluster) unstable() string {
	n := uint32(len(c.nodes))
	for _, nd := range c.nodes {
		if ok, why := nd.HCA.sched.Stable(1, n); !ok {
			return fmt.Sprintf("node %d: %s", nd.ID, why)
		}
	}
	if k := c.net.InFlight(); k > 0 {
		return fmt.Sprintf("%d packets in the network", k)
	}
	return ""
}

// Continue resumes a checkpointed machine at the checkpoint's time: each node sends its HCA
// the resume command(s) and its host goes on when they are done. Run then runs it on.
func (c *Cluster) Continue() error {
	st := c.ckpt
	if st == nil {
		return fmt.Errorf("ib: continue: %w", ErrNoCheckpoint)
	}
	c.ckpt = nil
	n := uint32(len(c.nodes))
	t := st.report.Saved
	for _, nd := range c.nodes {
		var cmds []Command
		if st.report.Bulk {
			cmds = []Command{{Kind: CmdResume, First: 1, Last: n}}
		} else {
			for q := uint32(1); q <= n; q++ {
				cmds = append(cmds, Command{Kind: CmdResume, First: q, Last: q})
			}
		}
		left := len(cmds)
		for _, cmd := range cmds {
			nd.HCA.sched.Issue(t, cmd, func(r CommandResult) {
				if r.Err != nil {
					c.fail(fmt.Errorf("ib: resume: node %d: %w", nd.ID, r.Err))
					return
				}
				if left--; left == 0 {
					nd.Host.resume(r.Done, st.suspended)
				}
			})
		}
	}
	return nil
}

// CheckpointMeta is the description a checkpoint file carries: enough to build the machine
// and its programs again.
type CheckpointMeta struct {
	Kind   string `json:"kind"` // "ib"
	Config Config `json:"config"`
	// Topology is Config.Topology's text (fabric.ParseTopology's), when it has one.
	Topology string           `json:"topology,omitempty"`
	Workload Workload         `json:"workload"`
	Report   CheckpointReport `json:"report"`
}

// nodeState is one node's section of a checkpoint file.
type nodeState struct {
	Memory  []byte    `json:"memory"`
	Images  []image   `json:"images"`
	MRs     []MR      `json:"mrs"`
	Stats   Stats     `json:"stats"`
	Bus     busState  `json:"bus"`
	Log     []string  `json:"log"`
	Host    hostState `json:"host"`
	Program []byte    `json:"program"`
}

type busState struct {
	BusyTime netsim.Time `json:"busy_ps"`
	Reads    uint64      `json:"reads"`
	Writes   uint64      `json:"writes"`
}

type hostState struct {
	Wait      Wait        `json:"wait"`
	Deadline  netsim.Time `json:"deadline_ps"`
	Started   bool        `json:"started"`
	Done      bool        `json:"done"`
	End       netsim.Time `json:"end_ps"`
	SQPosted  []uint32    `json:"sq_posted"`
	SQDone    []uint32    `json:"sq_done"`
	RQPosted  []uint32    `json:"rq_posted"`
	RQDone    []uint32    `json:"rq_done"`
	SRQPosted []uint32    `json:"srq_posted"`
	SRQDone   []uint32    `json:"srq_done"`
	CQCons    []uint32    `json:"cq_cons"`
}

// SectionPrefix names the checkpoint file's sections of an InfiniBand run.
const SectionPrefix = "ib/node/"

// WriteCheckpoint writes the checkpoint taken to path (the lhsim checkpoint file: w is the
// workload the programs run).
func (c *Cluster) WriteCheckpoint(path string, w Workload) error {
	st := c.ckpt
	if st == nil {
		return fmt.Errorf("ib: write checkpoint: %w", ErrNoCheckpoint)
	}
	m := CheckpointMeta{Kind: "ib", Config: c.cfg, Workload: w, Report: st.report}
	if c.cfg.Topology != nil {
		m.Topology = c.cfg.Topology.String()
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	f := &checkpoint.File{Meta: meta}
	for _, nd := range c.nodes {
		h := nd.Host
		ns := nodeState{Memory: nd.Mem.marshal(), Images: st.images[nd.ID], MRs: nd.HCA.mrs, Stats: nd.HCA.Stats,
			Bus: busState{nd.HCA.bus.BusyTime, nd.HCA.bus.Reads, nd.HCA.bus.Writes}, Log: nd.HCA.log,
			Host: hostState{Wait: h.wait, Deadline: h.deadline, Started: h.p.State() != netsim.Idle, Done: h.ended(), End: h.p.End(),
				SQPosted: h.sqPosted, SQDone: h.sqDone, RQPosted: h.rqPosted, RQDone: h.rqDone,
				SRQPosted: h.srqPosted, SRQDone: h.srqDone, CQCons: h.cqCons}}
		if h.prog != nil {
			if ns.Program, err = h.prog.MarshalState(); err != nil {
				return fmt.Errorf("ib: node %d: program state: %w", nd.ID, err)
			}
		}
		data, err := json.Marshal(ns)
		if err != nil {
			return err
		}
		f.Sections = append(f.Sections, checkpoint.Section{Kind: fmt.Sprintf("%s%d", SectionPrefix, nd.ID), Data: data})
	}
	return f.Write(path)
}

// IsCheckpoint reports whether f is an InfiniBand run's checkpoint.
func IsCheckpoint(f *checkpoint.File) bool {
	var m struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(f.Meta, &m) == nil && m.Kind == "ib"
}

// ReadCheckpoint builds the machine a checkpoint file describes and restores every node:
// its memory, its HCA's QPs and queues from the context images in that memory (the restore
// command's effect; the restart happens outside the job's time), its host and its program.
// The machine is at the checkpoint's time, its hosts suspended: Continue resumes it. A file
// that is not such a checkpoint, or whose parts do not fit together, is refused with an
// error naming what is wrong.
func ReadCheckpoint(path string) (*Cluster, *CheckpointMeta, error) {
	f, err := checkpoint.Read(path)
	if err != nil {
		return nil, nil, err
	}
	if !IsCheckpoint(f) {
		return nil, nil, fmt.Errorf("ib: %s: not a checkpoint of an InfiniBand run (lhsim run --resume takes board runs)", path)
	}
	var meta CheckpointMeta
	if err := json.Unmarshal(f.Meta, &meta); err != nil {
		return nil, nil, fmt.Errorf("ib: %s: its description: %w", path, err)
	}
	if err := meta.Workload.Validate(); err != nil {
		return nil, nil, fmt.Errorf("ib: %s: %w", path, err)
	}
	if meta.Topology != "" { // (read from the file, as the rest of its description is)
		if meta.Config.Topology, err = fabric.ParseTopology(meta.Topology); err != nil {
			return nil, nil, fmt.Errorf("ib: %s: %w", path, err)
		}
	}
	c, err := Build(meta.Config)
	if err != nil {
		return nil, nil, fmt.Errorf("ib: %s: %w", path, err)
	}
	if len(f.Sections) != len(c.nodes) {
		return nil, nil, fmt.Errorf("ib: %s: %d node sections for %d nodes", path, len(f.Sections), len(c.nodes))
	}
	for _, nd := range c.nodes {
		data, ok := f.Section(fmt.Sprintf("%s%d", SectionPrefix, nd.ID))
		if !ok {
			return nil, nil, fmt.Errorf("ib: %s: no section for node %d", path, nd.ID)
		}
		if err := c.restoreNode(nd, data, meta.Workload); err != nil {
			return nil, nil, fmt.Errorf("ib: %s: node %d: %w", path, nd.ID, err)
		}
	}
	st := &ckptState{report: meta.Report, images: make([][]image, len(c.nodes)), suspended: meta.Report.At}
	c.ckpt = st
	return c, &meta, nil
}

func (c *Cluster) restoreNode(nd *Node, data []byte, w Workload) error {
	var ns nodeState
	if err := json.Unmarshal(data, &ns); err != nil {
		return fmt.Errorf("its section: %w", err)
	}
	mem, err := unmarshalMemory(ns.Memory)
	if err != nil {
		return err
	}
	h := nd.HCA
	hs := ns.Host
	for _, l := range [][]uint32{hs.SQPosted, hs.SQDone, hs.RQPosted, hs.RQDone} {
		if len(l) != len(nd.Host.sqPosted) {
			return fmt.Errorf("host queue counts for %d QPs, the node has %d", len(l)-1, len(h.qps))
		}
	}
	if len(hs.SRQPosted) != len(h.srqs) || len(hs.SRQDone) != len(h.srqs) || len(hs.CQCons) != len(h.cqs)+1 {
		return errors.New("host queue counts do not match the node's queues")
	}
	if len(ns.MRs) < len(h.mrs) {
		return fmt.Errorf("%d memory regions, the node registers %d", len(ns.MRs), len(h.mrs))
	}
	nd.Mem, h.mem = mem, mem
	h.mrs = ns.MRs
	if len(ns.Images) == 0 {
		return errors.New("no context image")
	}
	for _, im := range ns.Images {
		if im.Bytes <= 0 || im.Bytes > nd.Layout.SaveBytes || im.Addr < nd.Layout.SaveArea ||
			im.Addr+uint64(im.Bytes) > nd.Layout.SaveArea+uint64(nd.Layout.SaveBytes) {
			return fmt.Errorf("a context image of %d bytes at %#x, outside the save area", im.Bytes, im.Addr)
		}
		if err := h.sched.Restore(mem.Bytes(im.Addr, im.Bytes)); err != nil {
			return err
		}
	}
	h.Stats, h.log = ns.Stats, ns.Log
	h.bus.BusyTime, h.bus.Reads, h.bus.Writes = ns.Bus.BusyTime, ns.Bus.Reads, ns.Bus.Writes
	host := nd.Host
	host.wait, host.deadline = hs.Wait, hs.Deadline
	host.sqPosted, host.sqDone, host.rqPosted, host.rqDone = hs.SQPosted, hs.SQDone, hs.RQPosted, hs.RQDone
	host.srqPosted, host.srqDone, host.cqCons = hs.SRQPosted, hs.SRQDone, hs.CQCons
	host.stopped = true
	if hs.Started {
		t := NewTraffic(w, nd.ID)
		if err := t.UnmarshalState(ns.Program); err != nil {
			return fmt.Errorf("program state: %w", err)
		}
		host.begin(t) // Continue schedules its wait
		host.p.SetEnded(true, hs.Done, hs.End)
	}
	return nil
}

// String is the report on one line.
func (r *CheckpointReport) String() string {
	return fmt.Sprintf("requested at %v, stopped %v, stable %v, saved %v; %d commands", r.At, r.Stopped, r.Stable, r.Saved, r.Commands)
}
