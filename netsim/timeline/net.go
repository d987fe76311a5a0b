package timeline

import (
	"github.com/lhsim/lhsim/netsim"
)

// Track numbers (tid) inside a node's process (pid = the node's number).
const (
	TidCPU   = 0   // the rank's operations, tid TidCPU+c for its CPU c
	TidMatch = 99  // the NIC's matcher: a message matched or queued as unexpected
	TidRecv  = 100 // posted receives, one track per receive outstanding at once
	TidRx    = 200 // the NIC's receive path: each message from first packet to landed
	tidLanes = 99  // lanes per group
)

// Lanes gives overlapping slices of one kind their own tracks: a slice takes the lowest
// track free when it starts and gives it back when it ends, so the slices on a track
// follow one another.
type Lanes struct{ busy []bool }

// Take is the lane of a slice that starts now.
func (l *Lanes) Take() int {
	for i, b := range l.busy {
		if !b {
			l.busy[i] = true
			return i
		}
	}
	l.busy = append(l.busy, true)
	return len(l.busy) - 1
}

// Free gives lane i back.
func (l *Lanes) Free(i int) { l.busy[i] = false }

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
	name := "node " + itoa(node)
	if t.NodeName != nil {
		name = t.NodeName(node)
	}
	t.W.Process(node, name)
	t.W.Thread(node, TidMatch, "NIC matcher")
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i < 0 {
		b = append(b, '-')
		i = -i
	}
	var d [20]byte
	k := len(d)
	for {
		k--
		d[k] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	return append(b, d[k:]...)
}

// MsgFlow is the flow id of message id.
func (t *Net) MsgFlow(id uint64) uint64 {
	if id < uint64(len(t.msgs)) {
		return t.msgs[id].flow
	}
	return id + 1
}

// Issued implements cluster.Observer.
func (t *Net) Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int) {
	for uint64(len(t.msgs)) <= id {
		t.msgs = append(t.msgs, netMsg{})
	}
	f := id + 1
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
	m.lane = t.rx[node].Take()
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
	t.rx[node].Free(m.lane)
	tid := TidRx + m.lane
	t.Node(node)
	t.W.Thread(node, tid, "NIC rx "+itoa(m.lane))
	peer := m.src
	if m.kind == "get" {
		peer = m.dst
	}
	t.W.Slice(node, tid, m.kind+" in", m.arr, now, I("peer", int64(peer)), I("tag", int64(m.tag)), I("size", int64(m.size)), I("msg", int64(m.flow)))
	t.W.Flow(FlowStep, node, tid, m.flow, Mid(m.arr, now))
}

// Mid is the middle of [a, b], where a flow point sits inside its slice.
func Mid(a, b netsim.Time) netsim.Time { return a + (b-a)/2 }
