package fabric

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/netsim"
)

// Arbiter is how an output port chooses among the input virtual channels that want it.
// Both are deterministic.
type Arbiter uint8

const (
	// RoundRobin lets the inputs of a router take turns at an output (the first input after
	// the one granted last), and the virtual channels of an input take turns among
	// themselves, as a separable allocator's input and output arbiters would.
	RoundRobin Arbiter = iota
	// OldestFirst grants the packet injected earliest (ties: the lower source, then the
	// source's first injected).
	OldestFirst
)

func (a Arbiter) String() string {
	switch a {
	case RoundRobin:
		return "round-robin"
	case OldestFirst:
		return "oldest-first"
	}
	return fmt.Sprintf("Arbiter(%d)", uint8(a))
}

// ParseArbiter reads "round-robin" (or "rr") and "oldest-first" (or "oldest", "age").
func ParseArbiter(s string) (Arbiter, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "round-robin", "roundrobin", "rr":
		return RoundRobin, nil
	case "oldest-first", "oldest", "age":
		return OldestFirst, nil
	}
	return 0, fmt.Errorf("unknown arbiter %q (want round-robin or oldest-first)", s)
}

// Config is every timing and buffering knob of the fabric. What the user chose lives here;
// the state of a run lives in Network. Delays are netsim.Time (picoseconds); Cycles and
// ParseDelay express them in cycles of the router clock, so a BookSim2-style set-up (every
// delay a whole number of cycles) is written as such (see BookSimConfig).
type Config struct {
	// ClockPeriod is one router cycle: the unit of loads (flits/cycle/node) and of delays
	// given in cycles. source: the NSIM-ACE paper's Table 1 gives routing, VC allocation and switch
	// allocation 4.0 ns each, i.e. one stage per 4.0 ns cycle (250 MHz).
	ClockPeriod netsim.Time
	// FlitBytes is the flit: the unit of buffers, credits and serialization. 16 bytes makes
	// one flit per 4.0 ns cycle at 4.0 GB/s (the NSIM-ACE paper's Table 1), so a link moves one flit a cycle.
	FlitBytes int

	// LinkBandwidth is a link's data rate, GB/s (= bytes/ns), each direction.
	// source: the NSIM-ACE paper's Table 1, ネットワークの最大理論通信速度 (network peak rate) 4.0 GB/s.
	LinkBandwidth float64
	// SwitchBandwidth is the crossbar's rate per port, GB/s; a packet crosses the switch and
	// leaves on its output link at the lower of the two rates.
	// source: the NSIM-ACE paper's Table 1, スイッチスループット (switch throughput) 4.0 GB/s.
	SwitchBandwidth float64

	// RoutingDelay, VCAllocDelay and SwitchAllocDelay are the router pipeline: from a head
	// flit's arrival at an input to the earliest moment it may cross the switch.
	// source: the NSIM-ACE paper's Table 1, ルーティング計算時間 / 仮想チャネル割り当て時間 /
	// スイッチ割り当て時間 4.0 ns each.
	RoutingDelay, VCAllocDelay, SwitchAllocDelay netsim.Time
	// SwitchLatency is the crossing of the switch, from grant to the output link.
	// source: the NSIM-ACE paper's Table 1, スイッチレイテンシ 128 ns. With the three 4.0 ns stages a
	// switch adds 140 ns, the port-to-port bound ("140 ns or less") the NSIM-ACE paper's section 5.1
	// quotes for the InfiniBand QDR switch of the measured machine.
	SwitchLatency netsim.Time
	// CableLatency is a link's flight time (node to switch, switch to switch on the crossbar
	// and the fat tree). source: the NSIM-ACE paper's Table 1, ケーブルレイテンシ 0.6 ns.
	CableLatency netsim.Time
	// TorusLinkLatency is the latency of a torus link, per dimension (X, Y, Z, ...); a
	// dimension beyond the list takes the last entry, an empty list takes CableLatency.
	// source: the all-to-all paper's section 4.3, X/Y/Z 21/25/70 ns "including cables and SerDes".
	TorusLinkLatency []netsim.Time
	// TorusLinkBandwidth is the torus links' rate, GB/s; 0 means LinkBandwidth. Ohno et al.'s all-to-all paper
	// section 4.3 gives 16 GB/s between neighbours (Seed002Torus sets it).
	TorusLinkBandwidth float64

	// VCs is the number of virtual channels per input port. The torus splits them in two
	// halves, before and after the dateline, so it needs an even number.
	VCs int
	// BufferFlits is an input buffer's size per virtual channel, in flits. A packet moves
	// only when the whole of it fits (virtual cut-through), so it must hold the largest packet.
	BufferFlits int
	// EjectBufferFlits is a node's ejection buffer: delivered packets that the endpoint has
	// not yet given back with Consumed. Full, it stops the last link.
	EjectBufferFlits int
	// MaxPacketBytes bounds Packet.Bytes (0: as much as the buffers hold).
	MaxPacketBytes int

	// Arbiter chooses among input virtual channels competing for an output.
	Arbiter Arbiter
	// InOrder pins every (source, destination) flow to one virtual channel of each class, so
	// that its packets arrive in the order they were injected (routes are deterministic and
	// buffers FIFO). Off, a packet takes the free virtual channel with the most credits.
	InOrder bool
	// NoDateline turns off the torus's dateline virtual channels: a packet may take any
	// virtual channel on any link. This can deadlock; it exists to show that the dateline matters.
	NoDateline bool
	// Router is the router model: NSIMRouter (New, the default) or BookSimIQ (netsim/fabric/booksim, the
	// cycle-by-cycle BookSim2 router that lhsim traffic --preset booksim runs).
	Router RouterModel
}

// DefaultConfig is NSIM-ACE's set-up from the NSIM-ACE paper's Table 1, with the all-to-all paper's torus latencies.
func DefaultConfig() Config {
	return Config{
		ClockPeriod:      4 * netsim.Nanosecond,
		FlitBytes:        16,
		LinkBandwidth:    4.0,
		SwitchBandwidth:  4.0,
		RoutingDelay:     4 * netsim.Nanosecond,
		VCAllocDelay:     4 * netsim.Nanosecond,
		SwitchAllocDelay: 4 * netsim.Nanosecond,
		SwitchLatency:    128 * netsim.Nanosecond,
		CableLatency:     netsim.NS(0.6),
		TorusLinkLatency: []netsim.Time{21 * netsim.Nanosecond, 25 * netsim.Nanosecond, 70 * netsim.Nanosecond},
		VCs:              2,
		// 64 flits (1 KiB) per VC covers a credit round trip on the slowest (70 ns) torus link
		// at full rate with room for a second packet: an assumption, not from the seeds.
		BufferFlits:      64,
		EjectBufferFlits: 64,
		Arbiter:          RoundRobin,
	}
}

// Seed002Torus is the torus of Ohno et al.'s paper (seed 002) section 4.3: 16 GB/s links
// with X/Y/Z latencies of 21/25/70 ns. The paper states those latencies include the cables and
// SerDes and every communication circuit between the nodes (ノード間のケーブルや SerDes など
// 各通信回路を含めた通信レイテンシ): node to node, one hop. So a hop costs its link's figure and nothing more: the
// router adds no pipeline or switch latency of its own, and a node's own link to its router
// no cable time (the NSIM-ACE paper's 3 x 4 ns, 128 ns and 0.6 ns are another machine's). The paper
// gives one link rate, 16 GB/s; the nodes' links to their routers take it too (the NSIM-ACE paper's 4
// GB/s is the other machine's). The clock stays the NSIM-ACE paper's 4 ns, the grid of the
// synchronisation's timers.
func Seed002Torus() Config {
	c := DefaultConfig()
	c.LinkBandwidth, c.SwitchBandwidth, c.TorusLinkBandwidth = 16, 16, 16
	c.RoutingDelay, c.VCAllocDelay, c.SwitchAllocDelay = 0, 0, 0
	c.SwitchLatency = 0
	c.CableLatency = 0
	return c
}

// BookSimConfig is the booksim router (Router BookSimIQ: BookSim2's input-queued router,
// netsim/fabric/booksim) on a clock of the given period: routing_delay, vc_alloc_delay, sw_alloc_delay and
// st_final_delay one cycle each and one flit per cycle per link (booksim_config.cpp), 4 VCs
// of 16 flits (num_vcs = 4, vc_buf_size = 16, the set-up of the comparison in
// docs/network.md; BookSim2's own defaults are 16 x 8). A BookSim2 channel of latency L
// delivers a flit L+1 cycles after it was sent; here the flit's cycle is the 1 and the
// flight time the rest: node and fat-tree channels have latency 1 (cable 0), torus channels
// 2 (kncube.cpp with use_noc_latency = 1, BookSim2's default: one cycle of flight).
func BookSimConfig(clock netsim.Time) Config {
	c := DefaultConfig()
	c.Router = BookSimIQ
	c.ClockPeriod = clock
	c.FlitBytes = 16
	bw := float64(c.FlitBytes) / clock.Nanoseconds() // one flit per cycle
	c.LinkBandwidth, c.SwitchBandwidth, c.TorusLinkBandwidth = bw, bw, 0
	c.RoutingDelay, c.VCAllocDelay, c.SwitchAllocDelay = clock, clock, clock
	c.SwitchLatency = clock
	c.CableLatency = 0
	c.TorusLinkLatency = []netsim.Time{clock}
	c.VCs = 4
	c.BufferFlits = 16
	c.EjectBufferFlits = 16
	return c
}

// Cycles is n router cycles as Time.
func (c *Config) Cycles(n float64) netsim.Time {
	return netsim.Time(math.Round(n * float64(c.ClockPeriod)))
}

// ParseDelay reads a delay given in ns ("4", "4ns", "0.6ns"), ps ("600ps"), us ("1.5us") or
// router cycles of clock ("1c", "2cycles").
func ParseDelay(s string, clock netsim.Time) (netsim.Time, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	unit := netsim.Time(netsim.Nanosecond)
	for _, u := range []struct {
		suffix string
		unit   netsim.Time
	}{{"cycles", clock}, {"cycle", clock}, {"cyc", clock}, {"ps", netsim.Picosecond}, {"ns", netsim.Nanosecond}, {"us", netsim.Microsecond}, {"c", clock}} {
		if strings.HasSuffix(t, u.suffix) {
			t, unit = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.unit
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("delay %q: want a number with ns, ps, us or c (cycles)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("delay %q is negative", s)
	}
	d, err := netsim.FromFloat(v, unit)
	if err != nil {
		return 0, fmt.Errorf("delay %q: %w", s, err)
	}
	return d, nil
}

// FlitTime is the time one flit takes on a link of bw GB/s, rounded to the picosecond.
func (c *Config) FlitTime(bw float64) netsim.Time {
	return netsim.Time(math.Round(float64(c.FlitBytes) * 1000 / bw))
}

// Pipeline is routing + VC allocation + switch allocation.
func (c *Config) Pipeline() netsim.Time { return c.RoutingDelay + c.VCAllocDelay + c.SwitchAllocDelay }

// Flits is how many flits a packet of the given size takes.
func (c *Config) Flits(bytes int) int { return (bytes + c.FlitBytes - 1) / c.FlitBytes }

// torusLatency is dimension d's link latency.
func (c *Config) torusLatency(d int) netsim.Time {
	if len(c.TorusLinkLatency) == 0 {
		return c.CableLatency
	}
	return c.TorusLinkLatency[min(d, len(c.TorusLinkLatency)-1)]
}

func (c *Config) torusBandwidth() float64 {
	if c.TorusLinkBandwidth > 0 {
		return c.TorusLinkBandwidth
	}
	return c.LinkBandwidth
}

// Validate says what is wrong with c, if anything.
func (c *Config) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if c.ClockPeriod <= 0 {
		bad("ClockPeriod %v must be positive", c.ClockPeriod)
	}
	if c.FlitBytes <= 0 {
		bad("FlitBytes %d must be positive", c.FlitBytes)
	}
	for _, b := range []struct {
		name string
		v    float64
	}{{"LinkBandwidth", c.LinkBandwidth}, {"SwitchBandwidth", c.SwitchBandwidth}} {
		if !(b.v > 0) || math.IsInf(b.v, 0) {
			bad("%s %v GB/s must be positive", b.name, b.v)
		}
	}
	if c.TorusLinkBandwidth < 0 || math.IsNaN(c.TorusLinkBandwidth) || math.IsInf(c.TorusLinkBandwidth, 0) {
		bad("TorusLinkBandwidth %v GB/s must be positive (or 0 for LinkBandwidth)", c.TorusLinkBandwidth)
	}
	for _, d := range []struct {
		name string
		v    netsim.Time
	}{{"RoutingDelay", c.RoutingDelay}, {"VCAllocDelay", c.VCAllocDelay}, {"SwitchAllocDelay", c.SwitchAllocDelay},
		{"SwitchLatency", c.SwitchLatency}, {"CableLatency", c.CableLatency}} {
		if d.v < 0 || d.v > maxDelay {
			bad("%s %v: want 0 to 1 s", d.name, d.v)
		}
	}
	for i, l := range c.TorusLinkLatency {
		if l < 0 || l > maxDelay {
			bad("TorusLinkLatency[%d] %v: want 0 to 1 s", i, l)
		}
	}
	if c.ClockPeriod > maxDelay {
		bad("ClockPeriod %v: want at most 1 s", c.ClockPeriod)
	}
	if c.VCs < 1 || c.VCs > maxVCs {
		bad("VCs %d: want 1 to %d", c.VCs, maxVCs)
	}
	if c.BufferFlits < 1 || c.BufferFlits > maxFlits {
		bad("BufferFlits %d: want 1 to %d", c.BufferFlits, maxFlits)
	}
	if c.EjectBufferFlits < 1 || c.EjectBufferFlits > maxFlits {
		bad("EjectBufferFlits %d: want 1 to %d", c.EjectBufferFlits, maxFlits)
	}
	if c.MaxPacketBytes < 0 {
		bad("MaxPacketBytes %d is negative", c.MaxPacketBytes)
	}
	if c.Router > BookSimIQ {
		bad("unknown Router %d", c.Router)
	}
	if c.Arbiter > OldestFirst {
		bad("unknown Arbiter %d", c.Arbiter)
	}
	if len(errs) == 0 {
		for _, bw := range []float64{c.LinkBandwidth, c.SwitchBandwidth, c.torusBandwidth()} {
			switch f := c.FlitTime(bw); {
			case f <= 0:
				bad("a %d-byte flit at %v GB/s takes less than a picosecond", c.FlitBytes, bw)
			case f > maxDelay/maxFlits:
				bad("a %d-byte flit at %v GB/s takes %v: too slow", c.FlitBytes, bw, f)
			}
		}
	}
	return errors.Join(errs...)
}

// maxPacketFlits is the largest packet the buffers take whole.
func (c *Config) maxPacketFlits() int { return min(c.BufferFlits, c.EjectBufferFlits) }

// LargestPacket is the most bytes Inject takes in one packet: a whole packet must fit an
// input buffer and the ejection buffer (virtual cut-through), and MaxPacketBytes if set.
func (c *Config) LargestPacket() int {
	n := c.maxPacketFlits() * c.FlitBytes
	if c.MaxPacketBytes > 0 {
		n = min(n, c.MaxPacketBytes)
	}
	return n
}

const (
	maxVCs   = 64
	maxFlits = 1 << 20
	// maxDelay bounds every delay, so that sums of them stay far from overflowing Time.
	maxDelay = netsim.Second
)

// RouterModel is which router a Config describes.
type RouterModel uint8

const (
	// NSIMRouter is the event-driven virtual cut-through router of NSIM-ACE (Susukita et al.'s NSIM-ACE paper).
	NSIMRouter RouterModel = iota
	// BookSimIQ is BookSim2's input-queued wormhole router, cycle by cycle (netsim/fabric/booksim).
	BookSimIQ
)

func (m RouterModel) String() string {
	if m == BookSimIQ {
		return "booksim-iq"
	}
	return "nsim"
}
