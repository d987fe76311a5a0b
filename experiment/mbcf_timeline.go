package experiment

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/mbcf"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// Tracks of an MBCF node's process, beside timeline's (the tasks' are timeline.TidCPU+task).
const (
	tidMBCFKernel = 99 // the kernel's jobs on the node's CPU
)

// mbcfTracer writes one System's run (an mbcf.Tracer) as machine k of a timeline: per node,
// a track per task (its send system calls, awaits, computations), the kernel's jobs on the
// CPU, the adapter's frames on the wire and off it, and its queues. A data packet's flow
// starts at the kernel job that posted it, steps at its first frame on the wire and at the
// frame the receiver accepted it from, and ends at the receive interrupt that accepted it.
type mbcfTracer struct {
	w    *timeline.Writer
	net  *timeline.Net
	base int
	rx   []timeline.Lanes
}

var _ mbcf.Tracer = (*mbcfTracer)(nil)

func newMBCFTracer(w *timeline.Writer, k, nodes int, name string) *mbcfTracer {
	net := timeline.NewNet(w, nodes)
	net.PidBase = k * timeline.MachinePids
	net.NodeName = func(n int) string { return fmt.Sprintf("%s node %d", name, n) }
	return &mbcfTracer{w: w, net: net, base: net.PidBase, rx: make([]timeline.Lanes, nodes)}
}

func (t *mbcfTracer) flow(f uint64) uint64 { return uint64(t.base)<<20 | f }

func (t *mbcfTracer) pid(node int) (int, bool) {
	pid := t.base + node
	if !t.w.Keep(pid) {
		return pid, false
	}
	t.net.Node(node)
	return pid, true
}

func (t *mbcfTracer) Call(node, task int, name, ops string, start, end netsim.Time, peer, size int, flow uint64) {
	pid, ok := t.pid(node)
	if !ok {
		return
	}
	tid := timeline.TidCPU + task
	t.w.ThreadN(pid, tid, "task", task)
	if name == "send" {
		t.w.Slice(pid, tid, "send "+ops, start, end, timeline.I("peer", int64(peer)), timeline.I("size", int64(size)), timeline.I("msg", int64(t.flow(flow))))
		return
	}
	t.w.Slice(pid, tid, name, start, end)
}

func (t *mbcfTracer) Kernel(node int, what string, start, end netsim.Time, posted []uint64, accepted uint64) {
	pid, ok := t.pid(node)
	if !ok {
		return
	}
	t.w.Thread(pid, tidMBCFKernel, "kernel (CPU)")
	var args []timeline.Arg
	if accepted != 0 {
		args = append(args, timeline.I("msg", int64(t.flow(accepted))))
	}
	t.w.Slice(pid, tidMBCFKernel, what, start, end, args...)
	for _, f := range posted {
		t.w.Flow(timeline.FlowStart, pid, tidMBCFKernel, t.flow(f), start)
	}
	if accepted != 0 {
		t.w.Flow(timeline.FlowFinish, pid, tidMBCFKernel, t.flow(accepted), start)
	}
}

func frameName(flow uint64) string {
	if flow == 0 {
		return "frame"
	}
	return "packet"
}

func (t *mbcfTracer) Wire(node int, start, end netsim.Time, bytes int, flow uint64) {
	pid, ok := t.pid(node)
	if !ok {
		return
	}
	t.w.Thread(pid, timeline.TidTx, "NIC tx")
	args := []timeline.Arg{timeline.I("bytes", int64(bytes))}
	if flow != 0 {
		args = append(args, timeline.I("msg", int64(t.flow(flow))))
	}
	t.w.Slice(pid, timeline.TidTx, frameName(flow), start, end, args...)
	if flow != 0 {
		t.w.Flow(timeline.FlowStep, pid, timeline.TidTx, t.flow(flow), start)
	}
}

func (t *mbcfTracer) Arrived(node int, start, end netsim.Time, bytes int, flow uint64) {
	lane := t.rx[node].Take(start)
	t.rx[node].Free(lane, end)
	pid, ok := t.pid(node)
	if !ok {
		return
	}
	tid := timeline.TidRx + lane
	t.w.ThreadN(pid, tid, "NIC rx", lane)
	args := []timeline.Arg{timeline.I("bytes", int64(bytes))}
	if flow != 0 {
		args = append(args, timeline.I("msg", int64(t.flow(flow))))
	}
	t.w.Slice(pid, tid, frameName(flow)+" in", start, end, args...)
	if flow != 0 {
		t.w.Flow(timeline.FlowStep, pid, tid, t.flow(flow), start)
	}
}

func (t *mbcfTracer) Queues(node int, at netsim.Time, tx, rx int) {
	if pid, ok := t.pid(node); ok {
		t.w.Counter(pid, "adapter queues", at, timeline.I("tx", int64(tx)), timeline.I("rx", int64(rx)))
	}
}
