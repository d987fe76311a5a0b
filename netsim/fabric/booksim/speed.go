package booksim

import "github.com/lhsim/lhsim/netsim/fabric"

// MeasureSpeed runs one point of the speed benchmark (lhsim bench-net) on the booksim
// router: BookSim2's uniform traffic, cycle after cycle, its events what the channels
// delivered (a flit or a credit arriving at a router or a node).
func MeasureSpeed(c fabric.SpeedConfig) (fabric.Speed, error) {
	return fabric.MeasureSpeedOf(c, func() (fabric.SpeedRun, error) {
		n, err := New(c.Topology, c.Config, c.Seed)
		if err != nil {
			return nil, err
		}
		pat, err := fabric.ParseBookSimPattern("uniform", c.Topology)
		if err != nil {
			return nil, err
		}
		s, err := newSim(n, pat, c.Load, c.PacketFlits, DefaultMeasure())
		if err != nil {
			return nil, err
		}
		return speedRun{s}, nil
	})
}

type speedRun struct{ s *sim }

func (r speedRun) Step(cycles int64) { r.s.advance(r.s.n.now + cycles) }

func (r speedRun) Count() (uint64, uint64, uint64) {
	var acc, events int64
	for i := range r.s.t {
		acc += r.s.t[i].accepted
	}
	for _, p := range r.s.n.parts {
		events += p.events
	}
	return uint64(events), uint64(r.s.n.moved()), uint64(acc)
}
