package timeline

import (
	"github.com/lhsim/lhsim/netsim"
	"strconv"
)

// Track numbers (tid) inside a node's process (pid = the node's number).
const (
	TidCPU   = 0   // the rank's operations, tid TidCPU+c for its CPU c
	TidRTL   = 98  // an RTL receive path's commits, with their cycles
	TidMatch = 99  // the NIC's matcher: a message matched or queued as unexpected
	TidRecv  = 100 // posted receives, one track per receive outstanding at once
	TidRx    = 200 // the NIC's receive path: each message from first packet to landed
	tidLanes = 99  // lanes per group
)

// Lanes gives overlapping slices of one kind their own tracks: a slice takes the lowest
// track free when it starts and gives it back when it ends, so the slices on a track
// follow one another. A slice's end may be told before the engine reaches it (a receive
// path that runs ahead): a lane is free from the end it was given back with.
type Lanes struct {
	busy []bool
	end  []netsim.Time
}

// Take is the lane of a slice that starts at start.
func (l *Lanes) Take(start netsim.Time) int {
	for i, b := range l.busy {
		if !b && l.end[i] <= start {
			l.busy[i] = true
			return i
		}
	}
	l.busy = append(l.busy, true)
	l.end = append(l.end, 0)
	return len(l.busy) - 1
}

// Free gives lane i back from end on.
func (l *Lanes) Free(i int, end netsim.Time) { l.busy[i], l.end[i] = false, end }

// Net records a cluster's messages (it is a cluster.Observer): on the receiving node's
// process, a slice per message on the NIC's receive path from its first packet's arrival to
// its landing, with a flow step; a slice per message on the sender from its issue... the
// rank operations are the driver's (a goal schedule, a cluster program).
type Net struct {
	W     *Writer
	rx    []Lanes // per node
	msgs  []netMsg
	named []bool
	// Flow, when set, is the flow id of the message issued next (its sender's operation);
	// without it a message's flow is its id + 1.
	Flow     uint64
	HaveFlow bool
	// NodeName names a node's process (default "node N").
	NodeName func(node int) string
	// PidBase is added to a node's number to make its pid (several machines in one file).
	PidBase int
	// RunsName names the machine's runs process (Run).
	RunsName  string
	runsNamed bool
	next      uint64 // the last flow id given
	links     *linkSampler
}

type netMsg struct {
	flow        uint64
	kind        string
	src, dst    int
	size, tag   int
	issued, arr netsim.Time
	lane        int
}

// NewNet records nodes [0, n) on w.
func NewNet(w *Writer, n int) *Net {
	return &Net{W: w, rx: make([]Lanes, n), named: make([]bool, n)}
}

// Node names node's process the first time it is seen.
func (t *Net) Node(node int) {
	if node < 0 || node >= len(t.named) || t.named[node] {
		return
	}
	t.named[node] = true
	name := "node " + strconv.Itoa(node)
	if t.NodeName != nil {
		name = t.NodeName(node)
	}
	t.W.Process(t.PidBase+node, name)
}

// MsgFlow is the flow id of message id: the order in which it was issued (from 1), or the
// Flow set before it.
func (t *Net) MsgFlow(id uint64) uint64 {
	if id < uint64(len(t.msgs)) {
		return t.msgs[id].flow
	}
	return 0
}

// Issued implements cluster.Observer.
func (t *Net) Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int) {
	for uint64(len(t.msgs)) <= id {
		t.msgs = append(t.msgs, netMsg{})
	}
	if t.links != nil {
		t.links.start(now)
	}
	t.next++
	f := uint64(t.PidBase)<<20 + t.next // unique among the machines of a file
	if t.HaveFlow {
		f, t.HaveFlow = t.Flow, false
	}
	t.msgs[id] = netMsg{flow: f, kind: kind, src: src, dst: dst, size: size, tag: tag, issued: now, lane: -1}
}

// Arrived implements cluster.Observer.
func (t *Net) Arrived(now netsim.Time, id uint64, node int) {
	if id >= uint64(len(t.msgs)) || node >= len(t.rx) {
		return
	}
	m := &t.msgs[id]
	m.arr = now
	m.lane = t.rx[node].Take(now)
}

// Landed implements cluster.Observer: the receive-path slice and its flow step.
func (t *Net) Landed(now netsim.Time, id uint64, node int) {
	if id >= uint64(len(t.msgs)) || node >= len(t.rx) {
		return
	}
	m := &t.msgs[id]
	if m.lane < 0 {
		return
	}
	tid := TidRx + m.lane
	t.rx[node].Free(m.lane, now)
	m.lane = -1
	pid := t.PidBase + node
	if !t.W.Keep(pid) {
		return
	}
	t.Node(node)
	t.W.ThreadN(pid, tid, "NIC rx", tid-TidRx)
	peer := m.src
	if m.kind == "get" {
		peer = m.dst
	}
	t.W.Slice(pid, tid, m.kind+" in", m.arr, now, I("peer", int64(peer)), I("tag", int64(m.tag)), I("size", int64(m.size)), I("msg", int64(m.flow)))
	// A send's flow goes on to the recv that takes it; a put's or a get's ends here.
	ph := byte(FlowFinish)
	if m.kind == "send" {
		ph = FlowStep
	}
	// At its first packet's arrival: a receive path that runs ahead of the engine (lhsnic)
	// may report the landing after the engine has already matched the message.
	at := m.arr
	if ph == FlowFinish {
		at = Mid(m.arr, now)
	}
	t.W.Flow(ph, pid, tid, m.flow, at)
}

// Op implements cluster.OpObserver: a rank's call as a slice on its rank track, with its
// message's flow starting (put, get, send) or finishing (recv) there.
func (t *Net) Op(rank int, name string, start, end netsim.Time, peer, tag, size int, msg int64) {
	pid := t.PidBase + rank
	if !t.W.Keep(pid) {
		return
	}
	t.Node(rank)
	t.W.Thread(pid, TidCPU, "rank")
	args := make([]Arg, 0, 4)
	if peer >= 0 {
		args = append(args, I("peer", int64(peer)))
	}
	if tag >= 0 {
		args = append(args, I("tag", int64(tag)))
	}
	if size > 0 {
		args = append(args, I("size", int64(size)))
	}
	var f uint64
	if msg >= 0 {
		f = t.MsgFlow(uint64(msg))
		args = append(args, I("msg", int64(f)))
	}
	t.W.Slice(pid, TidCPU, name, start, end, args...)
	switch {
	case f == 0:
	case name == "put" || name == "get" || name == "send":
		t.W.Flow(FlowStart, pid, TidCPU, f, Mid(start, end))
	case name == "recv":
		t.W.Flow(FlowFinish, pid, TidCPU, f, end)
	}
}

// TidHostRecv is the track of a host's own receives (HostRecv).
const TidHostRecv = 300

// HostRecv is a receive of node's host software (incast's MPI host: drivers/mpi's Irecv
// until its request is done) as a slice "recv" from its post to its completion on the node's
// "host recv" track, the times the run's table reports; msg (>= 0) is the cluster message it
// took, whose flow ends there. A host receives one message at a time, so the slices follow
// one another.
func (t *Net) HostRecv(node int, start, end netsim.Time, peer, tag, size, depth int, msg int64) {
	pid := t.PidBase + node
	if !t.W.Keep(pid) {
		return
	}
	t.Node(node)
	t.W.Thread(pid, TidHostRecv, "host recv")
	args := []Arg{I("peer", int64(peer)), I("tag", int64(tag)), I("size", int64(size)), I("depth", int64(depth))}
	var f uint64
	if msg >= 0 {
		f = t.MsgFlow(uint64(msg))
		args = append(args, I("msg", int64(f)))
	}
	t.W.Slice(pid, TidHostRecv, "recv", start, end, args...)
	if f != 0 {
		t.W.Flow(FlowFinish, pid, TidHostRecv, f, end)
	}
}

// Mid is the middle of [a, b], where a flow point sits inside its slice.
func Mid(a, b netsim.Time) netsim.Time { return a + (b-a)/2 }

// MachinePids is how many pids each machine in a file has: machine k's node n is pid
// k*MachinePids + n, and its last pid holds the runs.
const MachinePids = 1 << 20

// Run is one run of a sweep on the machine (a barrier of p processes, an all-to-all) as a
// slice on the machine's "runs" process.
func (t *Net) Run(name string, start, end netsim.Time, args ...Arg) {
	pid := t.PidBase + MachinePids - 1
	if !t.W.Keep(pid) {
		return
	}
	if !t.runsNamed {
		t.runsNamed = true
		t.W.Process(pid, t.RunsName)
		t.W.Thread(pid, 0, "runs")
	}
	t.W.Slice(pid, 0, name, start, end, args...)
}

// TidRTLStep is the first of the tracks of an RTL receive path's steps (RTLStep): one
// track per step, arrival to host release, so that each goes forward in time.
const TidRTLStep = 90

// RTLStep is step number step (0 arrival, 1 taken, 2 LH entry, 3 message done, 4 host
// release: lhsnic.RxKind) of the node's msg-th message (from 0) through an RTL receive
// path: an instant named name on its track, with the device's cycle (the node's clock) and
// the waveform's cycle (fst_cycle: where `lhsim trace --at` opens), the message's size and
// the bytes of it in the SO-DIMM ring (tail).
func (t *Net) RTLStep(node, step int, name string, at netsim.Time, cycle, fstCycle uint64, msg, size, tail int) {
	pid := t.PidBase + node
	if !t.W.Keep(pid) {
		return
	}
	t.Node(node)
	tid := TidRTLStep + step
	t.W.Thread(pid, tid, "RTL "+rtlTracks[step])
	t.W.Instant(pid, tid, name, at, I("cycle", int64(cycle)), I("fst_cycle", int64(fstCycle)), I("rtl_msg", int64(msg)), I("size", int64(size)), I("tail", int64(tail)))
}

var rtlTracks = [...]string{"arrival", "taken", "LH entry", "message done", "host release"}
