package goal

import (
	"github.com/lhsim/lhsim/experiment"
	"strconv"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// goalTracer writes a packet run of a schedule as a timeline (docs/timeline.md): each rank's
// process has a track per CPU (calc, and each send's CPU time), a track per receive posted
// at once (recv, from its post to its match), the NIC matcher's decisions, the NIC's
// receive path (timeline.Net) and the queue lengths as counters. A message's flow goes from
// its send to its landing at the NIC to the receive that matched it; its id is the send's
// number in the schedule (rank by rank, in the order written) + 1.
type goalTracer struct {
	s     *goal.Schedule
	w     *timeline.Writer
	net   *timeline.Net
	base  []uint64
	lanes []timeline.Lanes
	recv  []postedRecv // by id
}

type postedRecv struct {
	at   netsim.Time
	lane int
}

func newGoalTracer(s *goal.Schedule, net *timeline.Net) *goalTracer {
	t := &goalTracer{s: s, w: net.W, net: net, base: make([]uint64, len(s.Ranks)), lanes: make([]timeline.Lanes, len(s.Ranks))}
	var n uint64
	for i := range s.Ranks {
		t.base[i] = n
		n += uint64(len(s.Ranks[i].Ops))
	}
	t.recv = make([]postedRecv, n+1)
	net.NodeName = func(node int) string { return "rank " + strconv.Itoa(node) }
	return t
}

func (t *goalTracer) id(rank int, op uint32) uint64 { return t.base[rank] + uint64(op) + 1 }

func peerArg(p uint32) timeline.Arg {
	if p == goal.Any {
		return timeline.S("peer", "any")
	}
	return timeline.I("peer", int64(p))
}

func tagArg(p uint32) timeline.Arg {
	if p == goal.Any {
		return timeline.S("tag", "any")
	}
	return timeline.I("tag", int64(p))
}

func (t *goalTracer) Busy(rank int, op uint32, start, end netsim.Time) {
	if !t.w.Keep(rank) {
		return
	}
	o := &t.s.Ranks[rank].Ops[op]
	t.net.Node(rank)
	tid := timeline.TidCPU + int(o.CPU)
	t.w.ThreadN(rank, tid, "cpu", int(o.CPU))
	line := timeline.I("line", int64(o.Line))
	if o.Kind == goal.Calc {
		t.w.Slice(rank, tid, "calc", start, end, timeline.I("ns", int64(o.Size)), line)
		return
	}
	id := t.id(rank, op)
	t.w.Slice(rank, tid, "send", start, end, peerArg(o.Peer), tagArg(o.Tag), timeline.I("size", int64(o.Size)), timeline.I("msg", int64(id)), line)
	t.w.Flow(timeline.FlowStart, rank, tid, id, timeline.Mid(start, end))
}

func (t *goalTracer) Sending(rank int, op uint32, now netsim.Time) {
	t.net.Flow, t.net.HaveFlow = t.id(rank, op), t.s.Ranks[rank].Ops[op].Peer != uint32(rank)
}

func (t *goalTracer) Posted(rank int, op uint32, now netsim.Time) {
	t.recv[t.id(rank, op)] = postedRecv{at: now, lane: t.lanes[rank].Take(now)}
}

func (t *goalTracer) Arrived(rank int, src, sendOp uint32, now netsim.Time, matched bool) {
	if !t.w.Keep(rank) {
		return
	}
	t.net.Node(rank)
	t.w.Thread(rank, timeline.TidMatch, "NIC matcher")
	name := "unexpected"
	if matched {
		name = "matched"
	}
	so := &t.s.Ranks[src].Ops[sendOp]
	t.w.Instant(rank, timeline.TidMatch, name, now, timeline.I("peer", int64(src)), timeline.I("tag", int64(so.Tag)), timeline.I("size", int64(so.Size)), timeline.I("msg", int64(t.id(int(src), sendOp))))
}

func (t *goalTracer) Matched(rank int, recvOp, src, sendOp uint32, now netsim.Time) {
	k := t.id(rank, recvOp)
	p := t.recv[k]
	t.lanes[rank].Free(p.lane, now)
	if !t.w.Keep(rank) {
		return
	}
	o := &t.s.Ranks[rank].Ops[recvOp]
	so := &t.s.Ranks[src].Ops[sendOp]
	tid := timeline.TidRecv + p.lane
	t.net.Node(rank)
	t.w.ThreadN(rank, tid, "recv", p.lane)
	id := t.id(int(src), sendOp)
	t.w.Slice(rank, tid, "recv", p.at, now, timeline.I("peer", int64(src)), timeline.I("tag", int64(so.Tag)), timeline.I("size", int64(so.Size)), timeline.I("msg", int64(id)), timeline.I("line", int64(o.Line)))
	t.w.Flow(timeline.FlowFinish, rank, tid, id, now)
}

func (t *goalTracer) Queues(rank int, now netsim.Time, posted, unexpected int) {
	if !t.w.Keep(rank) {
		return
	}
	t.net.Node(rank)
	t.w.Counter(rank, "queue", now, timeline.I("posted", int64(posted)), timeline.I("unexpected", int64(unexpected)))
}

// progressTracer counts the operations a packet run starts (each calc and send once at its
// CPU time, each recv at its post) for Config.Progress: a hook of the run's machine.
type progressTracer struct {
	done, total int64
	tell        *experiment.Progress
	told        int64
}

func (p *progressTracer) count() {
	if p.done++; p.done&(1<<14-1) == 0 || p.done == p.total {
		p.tell.Step(p.done-p.told, "")
		p.told = p.done
	}
}

func (p *progressTracer) Busy(rank int, op uint32, start, end netsim.Time)                    { p.count() }
func (p *progressTracer) Sending(rank int, op uint32, now netsim.Time)                        {}
func (p *progressTracer) Posted(rank int, op uint32, now netsim.Time)                         { p.count() }
func (p *progressTracer) Arrived(rank int, src, sendOp uint32, now netsim.Time, matched bool) {}
func (p *progressTracer) Matched(rank int, recvOp, src, sendOp uint32, now netsim.Time)       {}
func (p *progressTracer) Queues(rank int, now netsim.Time, posted, unexpected int)            {}

// progressFunc is a function of the simulated time as a machine's progress hook.
type progressFunc func(now netsim.Time)

func (f progressFunc) Progress(now netsim.Time) { f(now) }

// tracers are the run's goal.Tracer hooks (the timeline, the progress count), each told
// every call in the order they attached.
type tracers []goal.Tracer

func (ts tracers) Busy(rank int, op uint32, start, end netsim.Time) {
	for _, t := range ts {
		t.Busy(rank, op, start, end)
	}
}

func (ts tracers) Sending(rank int, op uint32, now netsim.Time) {
	for _, t := range ts {
		t.Sending(rank, op, now)
	}
}

func (ts tracers) Posted(rank int, op uint32, now netsim.Time) {
	for _, t := range ts {
		t.Posted(rank, op, now)
	}
}

func (ts tracers) Arrived(rank int, src, sendOp uint32, now netsim.Time, matched bool) {
	for _, t := range ts {
		t.Arrived(rank, src, sendOp, now, matched)
	}
}

func (ts tracers) Matched(rank int, recvOp, src, sendOp uint32, now netsim.Time) {
	for _, t := range ts {
		t.Matched(rank, recvOp, src, sendOp, now)
	}
}

func (ts tracers) Queues(rank int, now netsim.Time, posted, unexpected int) {
	for _, t := range ts {
		t.Queues(rank, now, posted, unexpected)
	}
}
