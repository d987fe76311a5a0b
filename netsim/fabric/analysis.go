package fabric

import (
	"fmt"
	"math"

	"github.com/lhsim/lhsim/netsim"
)

// Link is one link of a path, as the timing formula needs it.
type Link struct {
	Hold     netsim.Time // switch latency before the link (0 on the injection link)
	Latency  netsim.Time // flight time
	FlitTime netsim.Time // one flit's time on it
}

// Path is the links a packet from src to dst takes: the injection link, the links between
// routers, and the ejection link. It crosses len-1 routers.
func (n *Network) Path(src, dst int) ([]Link, error) {
	ports, err := n.path(src, dst)
	if err != nil {
		return nil, err
	}
	out := make([]Link, len(ports))
	for i, o := range ports {
		op := &n.out[o]
		out[i] = Link{Hold: op.hold, Latency: op.latency, FlitTime: op.flitTime}
	}
	return out, nil
}

// LinkIDs names the links a packet from src to dst takes (the same links as Path, in the
// same order): two paths share a link exactly when they share an id. Schedules that claim to
// be contention-free are checked with it.
func (n *Network) LinkIDs(src, dst int) ([]int, error) { return n.path(src, dst) }

// path is the output ports from src to dst, the injection port first.
func (n *Network) path(src, dst int) ([]int, error) {
	if src < 0 || src >= n.Nodes() || dst < 0 || dst >= n.Nodes() {
		return nil, fmt.Errorf("path %d to %d: %w (the network has %d)", src, dst, ErrBadNode, n.Nodes())
	}
	h := StartHop
	o := len(n.in) + src
	ports := []int{o}
	for n.out[o].down >= 0 {
		if n.out[o].down == noPort || len(ports) > len(n.in)+1 {
			return nil, fmt.Errorf("path %d to %d on %v: routing leaves the graph", src, dst, n.topo)
		}
		r := int(n.in[n.out[o].down].router)
		port, _ := n.topo.Route(r, dst, &h, DeterministicRule)
		o = int(n.portBase[r]) + port
		ports = append(ports, o)
	}
	if int(-1-n.out[o].down) != dst {
		return nil, fmt.Errorf("path %d to %d on %v: arrives at node %d", src, dst, n.topo, -1-n.out[o].down)
	}
	return ports, nil
}

// ZeroLoadLatency is the closed form of a lone packet's latency from injection to the
// arrival of its tail: with P the router pipeline (routing + VC allocation + switch
// allocation), and for each link j its switch hold S_j (the switch latency; 0 on the
// injection link), flight time L_j and flit time f_j, a packet of F flits over links
// 0..H (H routers) takes
//
//	T = H*P + sum_j (S_j + L_j) + sum_{j<H} f_j + F*f_H
//
// (the head is received whole at each router before it is routed; the tail streams behind
// it at the ejection link's rate). With equal flit times f: H*(P+S) + sum L + (H+F)*f.
// It holds exactly when no link is faster than the one before it (a slower link upstream
// would make the tail, not the head, set the pace); the defaults have one rate everywhere.
func (n *Network) ZeroLoadLatency(src, dst, bytes int) (netsim.Time, error) {
	links, err := n.Path(src, dst)
	if err != nil {
		return 0, err
	}
	if bytes < 1 {
		return 0, fmt.Errorf("zero-load latency of %d bytes: %w", bytes, ErrBadSize)
	}
	flits := netsim.Time(n.cfg.Flits(bytes))
	h := len(links) - 1
	t := netsim.Time(h) * n.cfg.Pipeline()
	for j, l := range links {
		t += l.Hold + l.Latency
		if j < h {
			t += l.FlitTime
		}
	}
	return t + flits*links[h].FlitTime, nil
}

// ZeroLoadOf is ZeroLoadLatency of a delivered packet's source, destination and size:
// what its latency would have been alone in the network. The packet adds it up link by link
// as it travels, so this walks no path (unless the sum outgrew 32 bits: over 2 ms).
func (n *Network) ZeroLoadOf(p *Packet) (netsim.Time, error) {
	if p.zeroLoad >= 0 {
		return netsim.Time(p.zeroLoad), nil
	}
	return n.ZeroLoadLatency(p.Src, p.Dst, p.Bytes)
}

// HopStats is the number of routers a packet crosses, over pairs of distinct nodes.
type HopStats struct {
	Min, Max int
	Mean     float64
	// Pairs is how many pairs were walked: all of them up to 512 nodes; beyond, the pairs
	// from node 0 (every topology here looks the same from every node).
	Pairs int
}

// Hops is the router count of every path, summarized.
func (n *Network) Hops() (HopStats, error) {
	nodes := n.Nodes()
	srcs := nodes
	if nodes > 512 {
		srcs = 1
	}
	var h HopStats
	sum := 0
	for s := range srcs {
		for d := range nodes {
			if s == d {
				continue
			}
			p, err := n.path(s, d)
			if err != nil {
				return h, err
			}
			k := len(p) - 1
			if h.Pairs == 0 || k < h.Min {
				h.Min = k
			}
			h.Max = max(h.Max, k)
			sum += k
			h.Pairs++
		}
	}
	if h.Pairs > 0 {
		h.Mean = float64(sum) / float64(h.Pairs)
	}
	return h, nil
}

// Bounds are upper bounds on the throughput a pattern can sustain, in flits per cycle per
// node (the unit of offered load).
type Bounds struct {
	// Injection is the node's own link.
	Injection float64
	// Bisection is what the bisection cuts let through: for each cut, its capacity over the
	// rate at which the pattern sends across it, the narrowest cut counted.
	Bisection float64
	// ChannelLoad is the exact bound of the routing: 1 over the load of the busiest channel
	// (Dally and Towles' gamma_max), injection and ejection links included. It is 0 when not
	// computed (uniform traffic on more than 2,048 nodes: N^2 paths).
	ChannelLoad float64
}

// Bound is the tightest of the computed bounds.
func (b Bounds) Bound() float64 {
	v := math.Min(b.Injection, b.Bisection)
	if b.ChannelLoad > 0 {
		v = math.Min(v, b.ChannelLoad)
	}
	return v
}

// FlitsPerCycle converts GB/s to flits per router cycle.
func (c *Config) FlitsPerCycle(gbps float64) float64 {
	return gbps * c.ClockPeriod.Nanoseconds() / float64(c.FlitBytes)
}

// GBps converts flits per router cycle to GB/s.
func (c *Config) GBps(flitsPerCycle float64) float64 {
	return flitsPerCycle * float64(c.FlitBytes) / c.ClockPeriod.Nanoseconds()
}

// Bounds computes the throughput bounds of pattern pat on this network.
func (n *Network) Bounds(pat Pattern) (Bounds, error) {
	nodes := n.Nodes()
	var b Bounds
	perCycle := func(o int) float64 { return float64(n.cfg.ClockPeriod) / float64(n.out[o].flitTime) }
	b.Injection = math.Inf(1)
	for node := range nodes {
		b.Injection = math.Min(b.Injection, math.Min(perCycle(len(n.in)+node), perCycle(int(n.nodeOut[node]))))
	}
	perm, isPerm := pat.(Permutation)
	// weight(s, d): the share of s's traffic that goes to d.
	b.Bisection = math.Inf(1)
	for _, c := range n.topo.cuts(&n.cfg) {
		var lr, rl float64
		if isPerm {
			for s := range nodes {
				a, z := c.side(s), c.side(perm.Perm(s))
				if !a && z {
					lr++
				} else if a && !z {
					rl++
				}
			}
		} else { // uniform over the other nodes
			right := 0
			for s := range nodes {
				if c.side(s) {
					right++
				}
			}
			left := nodes - right
			lr = float64(left) * float64(right) / float64(nodes-1)
			rl = lr
		}
		if cross := math.Max(lr, rl); cross > 0 {
			b.Bisection = math.Min(b.Bisection, n.cfg.FlitsPerCycle(c.GBps)/cross)
		}
	}
	if isPerm || nodes <= 2048 {
		load := make([]float64, len(n.out))
		add := func(s, d int, w float64) error {
			p, err := n.path(s, d)
			if err != nil {
				return err
			}
			for _, o := range p {
				load[o] += w
			}
			return nil
		}
		for s := range nodes {
			if isPerm {
				if err := add(s, perm.Perm(s), 1); err != nil {
					return b, err
				}
				continue
			}
			for d := range nodes {
				if d != s {
					if err := add(s, d, 1/float64(nodes-1)); err != nil {
						return b, err
					}
				}
			}
		}
		b.ChannelLoad = math.Inf(1)
		for o, l := range load {
			if l > 1e-12 {
				b.ChannelLoad = math.Min(b.ChannelLoad, perCycle(o)/l)
			}
		}
	}
	return b, nil
}
