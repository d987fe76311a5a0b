// Package mbcf is the MBCF paper's memory-based communication (MBCF, Matsumoto and Hiraki): user
// tasks write, read, swap and append to queues straight in other tasks' address spaces on
// other workstations, through a light send system call and a receive interrupt routine, over
// plain Ethernet (netsim/ether). Protection is by task IDs and access keys checked at the
// target; reliability by sequence numbers, acknowledgements and copies kept for
// retransmission, in the packet's own control bytes (§3).
//
// # The machine
//
// A System is nodes on one Ethernet hub. Each node has one CPU, whose kernel work (system
// calls, interrupt routines) runs one job at a time and preempts the users; an adapter that
// sends one frame at a time and copies received frames into memory; and a kernel with a
// channel to every other node. Tasks on the nodes run Programs: plain functions, coroutines
// of the engine, that call Write, Read, Swap, FIFOWrite or Send, and wait with Await, Spin or
// Compute. Every cost is a parameter of Config with its source (FastEthernet, Ethernet10);
// Model is the closed form of a round trip, which the simulator meets to the picosecond on an
// idle machine.
//
// # Protection
//
// A command reaches its target's space only if the destination task exists, the command's
// key is that space's key, and the whole range is mapped there with the access the command
// needs. Otherwise nothing is written, the target counts the refusal by reason, and the
// sender is told: its flag gets a failure status, or, without a flag, a NOTICE comes back and
// the kernel records a Fault for the task. Replies pass the same checks in the requester's
// space. A packet that is truncated or malformed is refused whole before any of it is acted
// on, counted, and its claimed sender gets a NAK, so that it resends its own intact copy; a
// packet that comes again (a retransmission or a replay within the sequence window) is
// dropped, counted and acknowledged.
//
// # Reliability
//
// Each channel numbers its data packets (byte 21), acknowledges cumulatively (byte 22, with
// byte 23's control bits) on every packet it sends back or on an acknowledgement of its own,
// and keeps a copy of each packet until it is acknowledged. A receiver takes packets only in
// order; a gap is NAKed and the sender goes back to the first unacknowledged packet; a
// timeout does the same. So every command lands exactly once and in order however frames are
// lost, duplicated or reordered (TestLossyLink).
package mbcf

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// System is the machine: an engine, a hub and the nodes on it.
type System struct {
	cfg   Config
	m     *netsim.Machine // the engine and the tasks' programs (a task's error ends only it)
	eng   *netsim.Engine
	hub   *ether.Hub
	nodes []*Node
	tasks []*Task // by logical task number
	// injector is Inject's port (-1 until first used).
	injector int
	tr       Tracer
}

// MaxNodes bounds a System (a hub's worth of workstations and more).
const MaxNodes = 1024

// New builds nodes workstations on one hub.
func New(cfg Config, nodes int) (*System, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if nodes < 2 || nodes > MaxNodes {
		return nil, fmt.Errorf("mbcf: %d nodes: want 2..%d", nodes, MaxNodes)
	}
	m := netsim.NewMachine(nil)
	m.ContinueOnError = true
	hub, err := ether.NewHub(m.Engine(), cfg.Medium, cfg.Seed)
	if err != nil {
		return nil, err
	}
	s := &System{cfg: cfg, m: m, eng: m.Engine(), hub: hub, injector: -1}
	if cfg.Trace != nil {
		s.tr = cfg.Trace(nodes)
	}
	for i := range nodes {
		n := &Node{s: s, id: uint32(i), mac: ether.StationMAC(uint32(i)), byID: map[uint32]*Task{}}
		n.cpu.n, n.ad.n = n, n
		if n.port, err = hub.Attach(n.mac, &n.ad); err != nil {
			return nil, err
		}
		s.nodes = append(s.nodes, n)
	}
	for _, n := range s.nodes {
		n.chans = make([]*channel, nodes)
		for j, peer := range s.nodes {
			if j != int(n.id) {
				n.chans[j] = &channel{peer: peer, nakFor: -1}
			}
		}
	}
	return s, nil
}

// Config is the machine's parameters.
func (s *System) Config() Config { return s.cfg }

// Engine is the event engine the machine runs on.
func (s *System) Engine() *netsim.Engine { return s.eng }

// Hub is the Ethernet.
func (s *System) Hub() *ether.Hub { return s.hub }

// Nodes are the workstations.
func (s *System) Nodes() []*Node { return s.nodes }

// Tasks are the tasks by logical task number.
func (s *System) Tasks() []*Task { return s.tasks }

// SetFaults makes the Ethernet lossy (ether.Faults) for what follows.
func (s *System) SetFaults(f ether.Faults) error { return s.hub.SetFaults(f) }

// AddTask makes a task with ID id on node, whose space (the segments) other tasks reach with
// key. Its logical task number is the number of tasks made before it.
func (s *System) AddTask(node int, id, key uint32, segs ...Segment) (*Task, error) {
	if node < 0 || node >= len(s.nodes) {
		return nil, fmt.Errorf("mbcf: task on node %d of %d", node, len(s.nodes))
	}
	n := s.nodes[node]
	if _, ok := n.byID[id]; ok {
		return nil, fmt.Errorf("mbcf: node %d already has task ID %d", node, id)
	}
	sp, err := NewSpace(segs...)
	if err != nil {
		return nil, err
	}
	t := &Task{n: n, id: id, key: key, space: sp, num: len(s.tasks)}
	t.p = s.m.NewProc(fmt.Sprintf("task %d", t.num))
	t.p.Hold = n.cpu.isBusy
	n.tasks = append(n.tasks, t)
	n.byID[id] = t
	s.tasks = append(s.tasks, t)
	return t, nil
}

// RetireTask takes a task off its node, as when it has exited: its logical number still
// names it (a stale entry), but commands sent to it fail with ReasonNoTask.
func (s *System) RetireTask(num int) error {
	if num < 0 || num >= len(s.tasks) {
		return fmt.Errorf("mbcf: no task %d (%d tasks)", num, len(s.tasks))
	}
	t := s.tasks[num]
	if t.p.State() != netsim.Idle {
		return fmt.Errorf("mbcf: task %d is running a program", num)
	}
	delete(t.n.byID, t.id)
	return nil
}

// Result is what a run measured.
type Result struct {
	// Finished is when each task's program returned, by logical task number (0 for tasks
	// that ran none); End is the last of them.
	Finished []netsim.Time
	End      netsim.Time
	Events   uint64
}

// Run starts progs (by logical task number) at the engine's current time and runs until every
// program has returned and the kernels have nothing left to do (acknowledgements,
// retransmissions). Programs' errors come back joined, each with its task; a program still
// waiting at the end (it cannot be: every wait has a limit) is an error too.
func (s *System) Run(progs map[int]Program) (Result, error) {
	nums := make([]int, 0, len(progs))
	for k := range progs {
		if k < 0 || k >= len(s.tasks) {
			return Result{}, fmt.Errorf("mbcf: program for task %d of %d", k, len(s.tasks))
		}
		nums = append(nums, k)
	}
	sort.Ints(nums)
	start := s.eng.Fired()
	for _, k := range nums {
		if progs[k] != nil {
			s.tasks[k].start(progs[k])
		}
	}
	hang := s.m.Drain()
	res := Result{Finished: make([]netsim.Time, len(s.tasks)), Events: s.eng.Fired() - start}
	var errs []error
	if err := s.m.Err(); err != nil {
		errs = append(errs, err)
		hang = s.m.Hang()
	}
	for _, k := range nums {
		t := s.tasks[k]
		switch t.p.State() {
		case netsim.Done, netsim.Failed:
			res.Finished[k] = t.p.End()
			res.End = max(res.End, t.p.End())
			if err := t.p.Err(); err != nil {
				errs = append(errs, fmt.Errorf("task %d (node %d, ID %d): %w", k, t.n.id, t.id, err))
			}
		}
	}
	if hang != nil {
		errs = append(errs, fmt.Errorf("mbcf: %w", hang))
	}
	s.m.Abandon()
	return res, errors.Join(errs...)
}

// fail records a fault of the simulator itself and stops the run.
func (s *System) fail(err error) { s.m.Fail(err) }

// Stats sums the nodes' counters.
func (s *System) Stats() NodeStats {
	var sum NodeStats
	for _, n := range s.nodes {
		st := n.Stats()
		sum.Sent += st.Sent
		sum.Received += st.Received
		sum.Retransmitted += st.Retransmitted
		sum.AcksSent += st.AcksSent
		sum.NaksSent += st.NaksSent
		sum.NaksReceived += st.NaksReceived
		sum.Timeouts += st.Timeouts
		sum.Duplicates += st.Duplicates
		sum.OutOfOrder += st.OutOfOrder
		sum.Malformed += st.Malformed
		sum.BadAcks += st.BadAcks
		sum.CRCErrors += st.CRCErrors
		sum.Overruns += st.Overruns
		sum.TxDropped += st.TxDropped
		sum.Applied += st.Applied
		for i := range sum.Refused {
			sum.Refused[i] += st.Refused[i]
		}
		sum.Told += st.Told
		sum.ChannelsFailed += st.ChannelsFailed
		sum.KernelTime += st.KernelTime
	}
	return sum
}

// Inject puts a raw frame on the wire at the engine's current time from a port of its own (a
// station with no node behind it, attached on first use): for tests of what a receiver makes
// of a forged, replayed or truncated packet. The frame is sent as given (Seal one to give it
// a valid FCS); it claims whatever source its bytes say. One frame at a time: call Run
// before the next.
func (s *System) Inject(frame []byte) error {
	if s.injector < 0 {
		p, err := s.hub.Attach(ether.StationMAC(0xffff_fffe), injector{})
		if err != nil {
			return err
		}
		s.injector = p
	}
	return s.hub.Send(s.eng.Now(), s.injector, slices.Clone(frame), func(netsim.Time, error) {})
}

// injector is the station behind Inject's port: it takes nothing.
type injector struct{}

func (injector) Receive(netsim.Time, []byte) {}
