package experiment

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ib"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// ibHosts writes an ib run's host operations (an ib.Tracer) on the nodes' processes of
// net: the posts on a "host posts" track (a SEND's flow starts there), each message's
// consumption on a "host consumes" track (its flow ends there); the packets between are
// timeline.Packets'.
type ibHosts struct{ net *timeline.Net }

var _ ib.Tracer = ibHosts{}

func (t ibHosts) HostOp(node int, name string, start, end netsim.Time, peer, bytes int, flow uint64) {
	w := t.net.W
	pid := t.net.PidBase + node
	if !w.Keep(pid) {
		return
	}
	t.net.Node(node)
	tid, track := timeline.TidCPU, "host posts"
	if name == "consume" {
		tid, track = timeline.TidCPU+1, "host consumes"
	}
	w.Thread(pid, tid, track)
	args := []timeline.Arg{timeline.I("peer", int64(peer))}
	if bytes >= 0 {
		args = append(args, timeline.I("size", int64(bytes)))
	}
	if flow != 0 {
		args = append(args, timeline.I("msg", int64(flow)))
	}
	w.Slice(pid, tid, name, start, end, args...)
	switch {
	case flow == 0:
	case name == "consume":
		w.Flow(timeline.FlowFinish, pid, tid, flow, start)
	default:
		w.Flow(timeline.FlowStart, pid, tid, flow, start)
	}
}
