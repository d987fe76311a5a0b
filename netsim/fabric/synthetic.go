package fabric

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lhsim/lhsim/netsim"
)

// SyntheticConfig is open-loop synthetic traffic as network researchers measure a fabric
// with (BookSim2's Bernoulli injection): every node creates packets of PacketFlits flits at
// Load flits per cycle on average, to destinations the Pattern picks.
type SyntheticConfig struct {
	Pattern     Pattern
	Load        float64 // offered load, flits per router cycle per node
	PacketFlits int
	Seed        uint64
}

// Synthetic is the traffic generator and the endpoint of every node: it creates packets,
// injects them at their source's (unbounded) queue, takes them at their destination and
// measures the packets created inside a window. Packets are pooled, so a long run allocates
// only while the number in flight grows.
type Synthetic struct {
	net  *Network
	cfg  SyntheticConfig
	p    float64 // packets per cycle per node
	key  uint64  // its key space: a node's next packet is key | node
	rngs []*rand.Rand
	made []uint64 // node -> packets it has created (Packet.ID)
	stop bool

	from, to netsim.Time // measurement window
	// Per part of the network (one, on one engine): the packets free to reuse and what the
	// window saw, summed by Window.
	parts []synPart
}

type synPart struct {
	pool []*Packet
	w    WindowStats
	_    [64]byte // parts' counters on lines of their own
}

// WindowStats is what a measurement window saw.
type WindowStats struct {
	Cycles     float64 // length of the window in router cycles
	Created    uint64  // packets created in the window (tagged)
	CreatedFl  uint64  // their flits
	ArrivedFl  uint64  // flits whose packet arrived in the window (any packet)
	Tagged     uint64  // tagged packets arrived so far
	LatencySum netsim.Time
	LatencyMax netsim.Time
	// ZeroLoadSum is the tagged packets' own zero-load latencies (Network.ZeroLoadOf, which is
	// Network.ZeroLoadLatency of each one's pair): LatencySum less this is the time they
	// spent waiting.
	ZeroLoadSum netsim.Time
	// Faster counts tagged packets that beat their zero-load latency: always 0, or the
	// timing model is broken.
	Faster      uint64
	HopsSum     uint64
	LastArrival netsim.Time // of a tagged packet
}

// NewSynthetic attaches a generator to every node of net.
func NewSynthetic(net *Network, cfg SyntheticConfig) (*Synthetic, error) {
	if cfg.Pattern == nil {
		return nil, fmt.Errorf("synthetic traffic: no pattern")
	}
	if cfg.PacketFlits < 1 || cfg.PacketFlits > net.cfg.maxPacketFlits() {
		return nil, fmt.Errorf("synthetic traffic: %d-flit packets: want 1 to %d (the buffers)", cfg.PacketFlits, net.cfg.maxPacketFlits())
	}
	if !(cfg.Load >= 0) || math.IsInf(cfg.Load, 0) {
		return nil, fmt.Errorf("synthetic traffic: load %v must be a number >= 0", cfg.Load)
	}
	s := &Synthetic{net: net, cfg: cfg, p: cfg.Load / float64(cfg.PacketFlits), from: netsim.Never, to: netsim.Never,
		key: net.eng.NewKeySpace(), made: make([]uint64, net.Nodes()), parts: make([]synPart, len(net.engs))}
	for i := range net.Nodes() {
		s.rngs = append(s.rngs, rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)))
		if err := net.Attach(i, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Start schedules every node's first packet at or after at.
func (s *Synthetic) Start(at netsim.Time) {
	if s.p <= 0 {
		return
	}
	for i := range s.rngs {
		s.next(i, at+s.gap(i))
	}
}

// next schedules node's next packet at t, on its part.
func (s *Synthetic) next(node int, t netsim.Time) {
	pt := s.net.nodePart(node)
	s.net.engs[pt].Post(pt, t, s.key|uint64(node), s, int64(node))
}

// Stop ends packet creation (packets already created still travel).
func (s *Synthetic) Stop() { s.stop = true }

// Measure tags the packets created in [from, to) and counts the flits arriving then.
func (s *Synthetic) Measure(from, to netsim.Time) {
	s.from, s.to = from, to
	for i := range s.parts {
		s.parts[i].w = WindowStats{}
	}
}

// Window is what the measurement window has seen so far (between runs, on parts).
func (s *Synthetic) Window() WindowStats {
	w := WindowStats{Cycles: float64(s.to-s.from) / float64(s.net.cfg.ClockPeriod)}
	for i := range s.parts {
		p := &s.parts[i].w
		w.Created += p.Created
		w.CreatedFl += p.CreatedFl
		w.ArrivedFl += p.ArrivedFl
		w.Tagged += p.Tagged
		w.LatencySum += p.LatencySum
		w.LatencyMax = max(w.LatencyMax, p.LatencyMax)
		w.ZeroLoadSum += p.ZeroLoadSum
		w.Faster += p.Faster
		w.HopsSum += p.HopsSum
		w.LastArrival = max(w.LastArrival, p.LastArrival)
	}
	return w
}

// Outstanding is the number of tagged packets not yet arrived (between runs, on parts).
func (s *Synthetic) Outstanding() uint64 {
	w := s.Window()
	return w.Created - w.Tagged
}

// gap is the time to node i's next packet: Bernoulli trials once a cycle with success
// probability p, so a geometric number of cycles (at least 1).
func (s *Synthetic) gap(i int) netsim.Time {
	c := s.net.cfg.ClockPeriod
	if s.p >= 1 {
		return c
	}
	u := 1 - s.rngs[i].Float64() // (0, 1]
	k := 1 + math.Floor(math.Log(u)/math.Log1p(-s.p))
	if k > 1e12 {
		k = 1e12
	}
	return netsim.Time(k) * c
}

// Fire creates node arg's next packet (netsim.Handler).
func (s *Synthetic) Fire(now netsim.Time, arg int64) {
	if s.stop {
		return
	}
	src := int(arg)
	sp := &s.parts[s.net.nodePart(src)]
	var p *Packet
	if k := len(sp.pool); k > 0 {
		p = sp.pool[k-1]
		sp.pool = sp.pool[:k-1]
	} else {
		p = new(Packet)
	}
	// The ID is the source's own count, the same on any number of parts.
	s.made[src]++
	id := (s.made[src]-1)*uint64(len(s.rngs)) + uint64(src) + 1
	*p = Packet{Src: src, Dst: s.cfg.Pattern.Dest(src, s.rngs[src]), Bytes: s.cfg.PacketFlits * s.net.cfg.FlitBytes, ID: id}
	if now >= s.from && now < s.to {
		p.Kind = 1 // tagged
		sp.w.Created++
		sp.w.CreatedFl += uint64(s.cfg.PacketFlits)
	}
	if err := s.net.Inject(now, p); err != nil {
		panic(err) // the generator made a packet the fabric refuses: a bug here
	}
	s.next(src, now+s.gap(src))
}

// Receive takes a packet at its destination (Endpoint).
func (s *Synthetic) Receive(now netsim.Time, p *Packet) {
	sp := &s.parts[s.net.nodePart(p.Dst)]
	if now >= s.from && now < s.to {
		sp.w.ArrivedFl += uint64(p.Flits)
	}
	if p.Kind == 1 {
		w := &sp.w
		w.Tagged++
		l := p.Latency()
		w.LatencySum += l
		w.LatencyMax = max(w.LatencyMax, l)
		w.HopsSum += uint64(p.Hops)
		w.LastArrival = max(w.LastArrival, now)
		z, err := s.net.ZeroLoadOf(p)
		if err != nil {
			panic(err) // a delivered packet has a path
		}
		w.ZeroLoadSum += z
		if l < z {
			w.Faster++
		}
	}
	if err := s.net.Consumed(now, p.Dst, p); err != nil {
		panic(err)
	}
	sp.pool = append(sp.pool, p)
}
