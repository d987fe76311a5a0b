package fabric

// The most packets in the network at once, on any number of parts: each part keeps the
// times of its own injections and deliveries, and the curve of packets in flight is made of
// all of them once the run is over. A count read from the whole network as a run goes
// (InFlight) is one instant's on one engine, but on parts each part has only its own events
// at that instant, and which instant a part's reading falls on depends on the split.

import (
	"slices"

	"github.com/lhsim/lhsim/netsim"
)

// flightLog is a part's injections and deliveries (RecordInFlight).
type flightLog struct {
	in, out []netsim.Time
	_       [64]byte // parts' logs on cache lines of their own (each appends on every packet)
}

// RecordInFlight makes the network keep the time of every packet's injection and delivery
// from now on, for InFlightMax (16 bytes a packet; off by default, it costs a nil test then).
func (n *Network) RecordInFlight() {
	if n.flight == nil {
		n.flight = make([]flightLog, len(n.stats))
	}
}

// InFlightMax is the most packets injected and not yet delivered at any instant since
// RecordInFlight, counted after all of that instant's injections and deliveries: the same on
// any number of parts (call it between runs). 0 if not recording.
func (n *Network) InFlightMax() int {
	var in, out []netsim.Time
	for _, f := range n.flight {
		in, out = append(in, f.in...), append(out, f.out...)
	}
	slices.Sort(in)
	slices.Sort(out)
	cur, best := 0, 0
	for i, j := 0, 0; i < len(in) || j < len(out); {
		t := netsim.Never
		if i < len(in) {
			t = in[i]
		}
		if j < len(out) {
			t = min(t, out[j])
		}
		for ; i < len(in) && in[i] == t; i++ {
			cur++
		}
		for ; j < len(out) && out[j] == t; j++ {
			cur--
		}
		best = max(best, cur)
	}
	return best
}
