package experiment

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// machineTimeline records machine k of a command's runs on w (docs/timeline.md): its node n
// is process k*timeline.MachinePids+n, named after name; nil without a timeline.
func machineTimeline(w *timeline.Writer, c *cluster.Cluster, k int, name string) *timeline.Net {
	if w == nil {
		return nil
	}
	net := timeline.NewNet(w, c.Size())
	net.PidBase = k * timeline.MachinePids
	net.NodeName = func(n int) string { return fmt.Sprintf("%s node %d", name, n) }
	net.RunsName = name + " runs"
	net.SampleLinks(c.Network())
	c.Observe(net)
	return net
}

// traceRTL records node n's RTL receive path on net: each message's arrival, its last beat
// taken, its LH entry, its end (the tail in the SO-DIMM ring when it has one) and the host's
// release, with their cycles (docs/timeline.md).
func traceRTL(net *timeline.Net, n int, node *lhsnic.Node) {
	node.OnEvent = func(e lhsnic.RxEvent) {
		name := e.Kind.String()
		if e.Kind == lhsnic.RxDone && e.Tail > 0 {
			name = "tail in SO-DIMM"
		}
		net.RTLStep(n, int(e.Kind), name, e.Time, e.Cycle, e.Board, e.Msg, e.Size, e.Tail)
	}
}
