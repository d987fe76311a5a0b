package experiment

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// MachineTimeline records machine k of a command's runs on w (docs/timeline.md): its node n
// is process k*timeline.MachinePids+n, named after name; nil without a timeline.
func MachineTimeline(w *timeline.Writer, c *cluster.Cluster, k int, name string) *timeline.Net {
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
