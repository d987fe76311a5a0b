package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// IncastConfig is an incast onto one node's shared receive queue: every other node sends
// Count messages of Size bytes, one every Gap; the receiving host takes Consume per message
// before it posts the buffer again; the queue holds Depth buffers.
type IncastConfig struct {
	Params  Params
	Nodes   int
	Depth   int
	Size    int
	Count   int
	Gap     netsim.Time
	Consume netsim.Time
}

// IncastResult is what happened.
type IncastResult struct {
	Config IncastConfig `json:"-"`
	// OfferedRate is the senders' message rate, messages per µs; HCARate the rate the
	// receiver's RQ processor takes messages at (1/RQCycles); HostRate the rate the host
	// gives buffers back (1/Consume). derived.
	OfferedRate, HCARate, HostRate float64
	// PredictedDry is when the queue should first be empty: one-way latency plus Depth over
	// (arrivals - host rate), arrivals being the lower of the offered and HCA rates; 0 when
	// arrivals do not outrun the host, or the burst ends first. derived (closed form).
	PredictedDry netsim.Time
	// FirstRNR is the receiver's first RNR NAK (0: none), End the last message's arrival.
	// simulated.
	FirstRNR    netsim.Time
	End         netsim.Time
	Delivered   int
	RNRNaks     uint64
	Retransmits uint64
	CQFull      uint64
}

// RunIncast runs the incast and checks every message arrived once, in each sender's order.
func RunIncast(ic IncastConfig) (*IncastResult, error) {
	cfg := DefaultConfig()
	cfg.Params, cfg.Nodes, cfg.RecvDepth = ic.Params, ic.Nodes, ic.Depth
	cfg.CQDepth = max(cfg.CQDepth, ic.Depth*2)
	if ic.Size < msgHeader || ic.Size > ic.Params.MaxMessage || ic.Count < 1 || ic.Gap <= 0 || ic.Consume < 0 {
		return nil, fmt.Errorf("ib: incast of %d messages of %d bytes every %v, consumed in %v: want %d..%d bytes, a positive gap",
			ic.Count, ic.Size, ic.Gap, ic.Consume, msgHeader, ic.Params.MaxMessage)
	}
	c, err := Build(cfg)
	if err != nil {
		return nil, err
	}
	progs := make([]*Incast, ic.Nodes)
	for i := range ic.Nodes {
		progs[i] = &Incast{Me: i, Size: ic.Size, Count: ic.Count, Gap: ic.Gap, Consume: ic.Consume}
		c.Start(i, 0, progs[i])
	}
	if err := c.Run(netsim.Never); err != nil {
		return nil, err
	}
	st := c.Node(0).HCA.Stats
	r := &IncastResult{Config: ic, Delivered: progs[0].Got, End: progs[0].End, RNRNaks: st.RNRNaksSent,
		FirstRNR: netsim.Time(st.FirstRNRAt), CQFull: st.CQFull}
	for _, nd := range c.nodes {
		r.Retransmits += nd.HCA.Stats.Retransmits
	}
	us := float64(netsim.Microsecond)
	r.OfferedRate = float64(ic.Nodes-1) / (float64(ic.Gap) / us)
	r.HCARate = us / float64(ic.Params.hca(ic.Params.RQCycles))
	if ic.Consume > 0 {
		r.HostRate = us / float64(ic.Consume)
	}
	arrivals := min(r.OfferedRate, r.HCARate)
	if ic.Consume > 0 && arrivals > r.HostRate {
		oneWay, err := RTT(ic.Params, msgHeader, true, 0, 1)
		if err != nil {
			return nil, err
		}
		dry := float64(ic.Depth) / (arrivals - r.HostRate) // µs after the first arrival
		burst := float64(ic.Count*(ic.Nodes-1)) / arrivals // µs the messages take to arrive
		if dry < burst {
			r.PredictedDry = oneWay/2 + netsim.Time(dry*us)
		}
	}
	return r, nil
}
