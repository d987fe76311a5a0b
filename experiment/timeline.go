package experiment

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// MachineTimeline records machine k of a command's runs on w (docs/timeline.md): its node n
// is process k*timeline.MachinePids+n, named after name; nil without a timeline.
func MachineTimeline(w *timeline.Writer, c *cluster.Cluster, k int, name string) *timeline.Net {
	net := MachineNet(w, c.Network(), k, name)
	if net != nil {
		c.Observe(net)
	}
	return net
}

// MachineNet is MachineTimeline's recorder of machine k on fabric f, not yet observing it:
// the caller attaches it, or an observer that wraps it, as a hook of its machine
// (netsim/machine); nil without a timeline.
func MachineNet(w *timeline.Writer, f *fabric.Network, k int, name string) *timeline.Net {
	if w == nil {
		return nil
	}
	net := timeline.NewNet(w, f.Nodes())
	net.PidBase = k * timeline.MachinePids
	net.NodeName = func(n int) string { return fmt.Sprintf("%s node %d", name, n) }
	net.RunsName = name + " runs"
	net.SampleLinks(f)
	return net
}

// RTLTimeline records a machine's RTL receive paths on its Net, as a hook of the machine
// (netsim/machine): each message's arrival, its last beat taken, its LH entry, its end (the
// tail in the SO-DIMM ring when it has one) and the host's release, with their cycles
// (docs/timeline.md).
type RTLTimeline struct{ Net *timeline.Net }

// Rx implements machine.RxObserver.
func (t RTLTimeline) Rx(n int, e lhsnic.RxEvent) {
	name := e.Kind.String()
	if e.Kind == lhsnic.RxDone && e.Tail > 0 {
		name = "tail in SO-DIMM"
	}
	t.Net.RTLStep(n, int(e.Kind), name, e.Time, e.Cycle, e.Board, e.Msg, e.Size, e.Tail)
}
