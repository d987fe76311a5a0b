package fabric

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Links is how many links the fabric has, each driven by one output port: the router
// outputs (to a router or a node's ejection) and the nodes' injection links.
func (n *Network) Links() int { return len(n.out) }

// LinkBusy is how long link i has carried flits so far (flits sent times its flit time): its
// utilisation over a span is the growth of LinkBusy over the span's length.
func (n *Network) LinkBusy(i int) netsim.Time {
	return netsim.Time(n.out[i].flits) * n.out[i].flitTime
}

// LinkName names link i by its ends: "r3>r7" between routers, "n5>r3" a node's injection,
// "r3>n5" its ejection.
func (n *Network) LinkName(i int) string {
	o := &n.out[i]
	from := fmt.Sprintf("n%d", -1-o.owner)
	if o.owner >= 0 {
		from = fmt.Sprintf("r%d", o.owner)
	}
	switch {
	case o.down == noPort:
		return from + ">none"
	case o.down < 0:
		return fmt.Sprintf("%s>n%d", from, -1-o.down)
	}
	return fmt.Sprintf("%s>r%d", from, n.in[o.down].router)
}
