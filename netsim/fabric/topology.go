package fabric

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim"
)

// Topology is a builder of the channel graph and its routing function. The three kinds are
// Crossbar, FatTree and Torus; ParseTopology reads them from the CLI's strings.
type Topology interface {
	// String is the topology as ParseTopology reads it ("torus:8x8x8").
	String() string
	// Nodes is the number of endpoints.
	Nodes() int
	// Radix is the node coordinate system traffic patterns use: node i has digit j equal to
	// (i / (Radix[0]*...*Radix[j-1])) % Radix[j]. Torus: the dimensions; fat tree: n digits
	// of base k (the switch labels); crossbar: one digit of base N.
	Radix() []int
	// Bisection is the capacity of the cut that halves the nodes, one direction.
	Bisection(cfg *Config) Bisection

	// Route is the routing function, the one both routers call (the event model's and
	// netsim/fabric/booksim's): the local output port at router r for a packet to node dst
	// and the class of virtual channel it takes there (0 or 1: the torus's dateline
	// partitions; -1: any). h is the routing state the packet carries from router to router
	// (zero Hop with Dim -1 at injection); Route updates it. rule says how to choose what the
	// routing leaves open (nil: DeterministicRule).
	Route(r, dst int, h *Hop, rule *Rule) (port int, class int)
	// DatelineRing is the longest ring of routers the routing goes round, whose buffers
	// close a cycle unless its packets change virtual-channel class on the way (the
	// torus's dateline); 0 when the routing closes no cycle (up/down, one switch).
	DatelineRing() int

	// build lays out routers, ports and links in g.
	build(cfg *Config, g *graph) error
	// cuts are the node halvings the bisection bound is taken over.
	cuts(cfg *Config) []cut
}

// Hop is a packet's routing state between routers: the torus dimension it moves in (-1:
// none yet) and its virtual-channel class there.
type Hop struct {
	Dim   int8
	Class uint8
}

// StartHop is the routing state of a packet at its injection.
var StartHop = Hop{Dim: -1}

// Rule is how the routing function chooses what its routes leave open: the direction round
// a torus ring when the destination is exactly half way, the up port of a fat tree, and
// when a torus packet's class turns to 1.
type Rule struct {
	// Rand, when set, draws those choices (BookSim2's routefunc.cpp: dim_order_torus's coin
	// at k/2, fattree_nca's RandomInt up port); nil takes the event model's deterministic
	// ones (+ from an even coordinate; d-mod-k: the destination's digit).
	Rand *rand.Rand
	// Partition sets a torus packet's class as BookSim2's dim_order_torus does: on turning
	// into a dimension, 1 when its route will cross the wrap link going + or will not going
	// -, kept for the whole dimension. Otherwise (the event model's dateline) the class is 0
	// on entering a dimension and turns 1 on the wrap link itself.
	Partition bool
}

// DeterministicRule is the event model's routing: the same route for a pair every time.
var DeterministicRule = &Rule{}

// Bisection is a cut through the middle of the network.
type Bisection struct {
	Links int     // links crossing it, one direction
	GBps  float64 // their capacity, one direction
}

// cut halves the nodes: side says which side a node is on.
type cut struct {
	Bisection
	side func(node int) bool
}

// graph is what a topology builds: routers with numbered ports, links between ports,
// and where each node attaches.
type graph struct {
	ports []int     // ports of each router
	links []linkDef // router-to-router links
	nodes []nodeDef // node i's attachment
}

type linkDef struct {
	fromRouter, fromPort, toRouter, toPort int
	latency                                netsim.Time
	gbps                                   float64
}

type nodeDef struct {
	router, port int
	latency      netsim.Time
	gbps         float64
}

// ParseTopology reads "crossbar:N", "fattree:KxN" (k-ary n-tree, k^n nodes) and
// "torus:AxBx..." (one radix per dimension).
func ParseTopology(s string) (Topology, error) {
	kind, arg, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return nil, fmt.Errorf("topology %q: want crossbar:N, fattree:KxN or torus:XxYxZ", s)
	}
	nums, err := parseDims(arg)
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", s, err)
	}
	switch strings.ToLower(kind) {
	case "crossbar", "xbar":
		if len(nums) != 1 {
			return nil, fmt.Errorf("topology %q: crossbar takes one number, the nodes", s)
		}
		return NewCrossbar(nums[0])
	case "fattree", "fat-tree", "tree":
		if len(nums) != 2 {
			return nil, fmt.Errorf("topology %q: fattree takes KxN (k-ary n-tree)", s)
		}
		return NewFatTree(nums[0], nums[1])
	case "torus":
		return NewTorus(nums...)
	}
	return nil, fmt.Errorf("topology %q: unknown kind %q (want crossbar, fattree or torus)", s, kind)
}

func parseDims(s string) ([]int, error) {
	if s == "" {
		return nil, fmt.Errorf("no size")
	}
	var out []int
	for _, f := range strings.Split(strings.ToLower(s), "x") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("size %q is not a number", f)
		}
		if v < 1 {
			return nil, fmt.Errorf("size %d must be at least 1", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// maxNodes keeps a mistyped size from asking for all the memory there is.
const maxNodes = 1 << 22

// ---------------------------------------------------------------------------------------

// Crossbar is one switch with a port per node: the NSIM-ACE paper's 16-node machine on one
// InfiniBand switch. Every packet crosses one router.
type Crossbar struct{ n int }

// NewCrossbar is a crossbar of n nodes.
func NewCrossbar(n int) (*Crossbar, error) {
	if n < 1 || n > 1<<16 {
		return nil, fmt.Errorf("crossbar of %d nodes: want 1 to %d", n, 1<<16)
	}
	return &Crossbar{n: n}, nil
}

func (x *Crossbar) String() string { return fmt.Sprintf("crossbar:%d", x.n) }
func (x *Crossbar) Nodes() int     { return x.n }
func (x *Crossbar) Radix() []int   { return []int{x.n} }

func (x *Crossbar) build(cfg *Config, g *graph) error {
	g.ports = []int{x.n}
	for i := range x.n {
		g.nodes = append(g.nodes, nodeDef{router: 0, port: i, latency: cfg.CableLatency, gbps: cfg.LinkBandwidth})
	}
	return nil
}

// Route on a crossbar: the destination's port.
func (x *Crossbar) Route(r, dst int, h *Hop, rule *Rule) (int, int) { return dst, -1 }

// DatelineRing of a crossbar: one switch closes no cycle.
func (x *Crossbar) DatelineRing() int { return 0 }

// Bisection of a crossbar: the switch does not block, so a halving cut crosses the n/2
// node links of one half.
func (x *Crossbar) Bisection(cfg *Config) Bisection { return x.cuts(cfg)[0].Bisection }

func (x *Crossbar) cuts(cfg *Config) []cut {
	h := x.n / 2
	return []cut{{Bisection{h, float64(h) * cfg.LinkBandwidth}, func(i int) bool { return i >= x.n-h }}}
}

// ---------------------------------------------------------------------------------------

// FatTree is a k-ary n-tree (Petrini and Vanneschi): k^n nodes, n levels of k^(n-1)
// switches, each with k ports down and (below the top) k up. Routing goes up to the
// nearest common ancestor of source and destination, then down; the up port is chosen by
// the destination (d-mod-k: at level l, digit l of the destination), so routes are
// deterministic and deadlock-free (no down-to-up turn), and each link down from a switch
// carries the traffic of one destination only: under uniform traffic no link is busier
// than a node's own.
type FatTree struct {
	k, n int
	pow  []int // pow[i] = k^i
	sw   int   // switches per level
}

// NewFatTree is a k-ary n-tree.
func NewFatTree(k, n int) (*FatTree, error) {
	if k < 2 || n < 1 {
		return nil, fmt.Errorf("fattree:%dx%d: want k >= 2 and n >= 1", k, n)
	}
	t := &FatTree{k: k, n: n, pow: []int{1}}
	for i := 1; i <= n; i++ {
		if t.pow[i-1] > maxNodes/k {
			return nil, fmt.Errorf("fattree:%dx%d: more than %d nodes", k, n, maxNodes)
		}
		t.pow = append(t.pow, t.pow[i-1]*k)
	}
	t.sw = t.pow[n-1]
	return t, nil
}

func (t *FatTree) String() string { return fmt.Sprintf("fattree:%dx%d", t.k, t.n) }
func (t *FatTree) Nodes() int     { return t.pow[t.n] }
func (t *FatTree) Radix() []int {
	r := make([]int, t.n)
	for i := range r {
		r[i] = t.k
	}
	return r
}

// Switch (l, s) is router l*sw+s. Ports 0..k-1 go down, k..2k-1 up. Up port u of (l, s)
// reaches (l+1, s with digit l replaced by u), arriving on its down port s_l.
func (t *FatTree) build(cfg *Config, g *graph) error {
	k := t.k
	g.ports = make([]int, t.n*t.sw)
	for i := range g.ports {
		g.ports[i] = 2 * k
	}
	for i := range t.Nodes() {
		g.nodes = append(g.nodes, nodeDef{router: i / k, port: i % k, latency: cfg.CableLatency, gbps: cfg.LinkBandwidth})
	}
	for l := 0; l+1 < t.n; l++ {
		for s := range t.sw {
			digit := (s / t.pow[l]) % k
			for u := range k {
				up := s + (u-digit)*t.pow[l]
				a, b := l*t.sw+s, (l+1)*t.sw+up
				g.links = append(g.links,
					linkDef{a, k + u, b, digit, cfg.CableLatency, cfg.LinkBandwidth},
					linkDef{b, digit, a, k + u, cfg.CableLatency, cfg.LinkBandwidth})
			}
		}
	}
	return nil
}

// Route on the fat tree: down by the destination's digit once it is below this switch;
// otherwise up, by the destination's digit (d-mod-k) or, under a rule with Rand, by a port
// drawn at random (BookSim2's fattree_nca: gK + RandomInt(gK-1); BookSim2 numbers levels
// from the top, this from the leaves: the rule is the same).
func (t *FatTree) Route(r, dst int, h *Hop, rule *Rule) (int, int) {
	l, s := r/t.sw, r%t.sw
	if dst/t.pow[l+1] == s/t.pow[l] { // the destination is below: go down
		return (dst / t.pow[l]) % t.k, -1
	}
	if rule != nil && rule.Rand != nil {
		return t.k + rule.Rand.IntN(t.k), -1
	}
	return t.k + (dst/t.pow[l])%t.k, -1
}

// DatelineRing of the fat tree: up, then down, closes no cycle.
func (t *FatTree) DatelineRing() int { return 0 }

// Bisection of a k-ary n-tree: full, N/2 links each way (the top digit splits the nodes).
func (t *FatTree) Bisection(cfg *Config) Bisection { return t.cuts(cfg)[0].Bisection }

func (t *FatTree) cuts(cfg *Config) []cut {
	h := t.Nodes() / 2
	return []cut{{Bisection{h, float64(h) * cfg.LinkBandwidth}, func(i int) bool { return i >= t.Nodes()-h }}}
}

// ---------------------------------------------------------------------------------------

// Torus is a k-ary n-cube with one router per node (a direct network). Router port 0 is the
// node; ports 1+2d and 2+2d go + and - along dimension d. A dimension of radix 2 has one
// link each way between its two nodes (port 1+2d); radix 1 has none.
//
// Routing is dimension order (X, then Y, ...), minimal; a tie (exactly half way round) goes
// + from an even coordinate and - from an odd one, which balances the two directions and
// keeps every (source, destination) on one path. Deadlock freedom: the virtual channels are
// split into two classes; a packet enters a dimension in class 0 and moves to class 1 when
// it crosses that ring's dateline (the wrap link between coordinates k-1 and 0), so within a
// dimension the channel dependencies never close a cycle, and dimension order leaves none
// between dimensions.
type Torus struct {
	k      []int
	stride []int
	n      int
	coords []uint16 // node*dims+d: the coordinates, so that routing does not divide
}

// NewTorus is a torus with the given radix per dimension.
func NewTorus(k ...int) (*Torus, error) {
	if len(k) == 0 || len(k) > 8 {
		return nil, fmt.Errorf("torus: want 1 to 8 dimensions, got %d", len(k))
	}
	t := &Torus{k: append([]int(nil), k...), n: 1}
	for _, r := range k {
		if r < 1 {
			return nil, fmt.Errorf("torus %v: radix %d must be at least 1", k, r)
		}
		if t.n > maxNodes/r {
			return nil, fmt.Errorf("torus %v: more than %d nodes", k, maxNodes)
		}
		t.stride = append(t.stride, t.n)
		t.n *= r
	}
	if slices.Max(k) > 1<<16-1 {
		return nil, fmt.Errorf("torus %v: a radix above %d", k, 1<<16-1)
	}
	t.coords = make([]uint16, t.n*len(k))
	for i := range t.n {
		for d := range k {
			t.coords[i*len(k)+d] = uint16(t.coord(i, d))
		}
	}
	return t, nil
}

func (t *Torus) String() string {
	s := make([]string, len(t.k))
	for i, r := range t.k {
		s[i] = strconv.Itoa(r)
	}
	return "torus:" + strings.Join(s, "x")
}
func (t *Torus) Nodes() int   { return t.n }
func (t *Torus) Radix() []int { return append([]int(nil), t.k...) }

func (t *Torus) coord(node, d int) int { return (node / t.stride[d]) % t.k[d] }

func (t *Torus) build(cfg *Config, g *graph) error {
	ports := 1 + 2*len(t.k)
	bw := cfg.torusBandwidth()
	g.ports = make([]int, t.n)
	for i := range g.ports {
		g.ports[i] = ports
		g.nodes = append(g.nodes, nodeDef{router: i, port: 0, latency: cfg.CableLatency, gbps: bw})
	}
	for d, k := range t.k {
		if k == 1 {
			continue
		}
		lat := cfg.torusLatency(d)
		for i := range t.n {
			c := t.coord(i, d)
			next := i + ((c+1)%k-c)*t.stride[d]
			// + link from i to next arrives on next's - port (for radix 2: its + port, the
			// only one), so that a packet's input port says where it came from.
			in := 2 + 2*d
			if k == 2 {
				in = 1 + 2*d
			}
			g.links = append(g.links, linkDef{i, 1 + 2*d, next, in, lat, bw})
			if k > 2 {
				g.links = append(g.links, linkDef{next, 2 + 2*d, i, 1 + 2*d, lat, bw})
			}
		}
	}
	return nil
}

// Route on the torus: dimension order, the shorter way round. A tie (exactly half way) goes +
// from an even coordinate and - from an odd one, or, under a rule with Rand, by a fair coin
// (BookSim2's dor_next_torus: RandomInt(1), drawn on turning into the dimension; a radix of 2
// draws it too and goes + either way). Once moving in a dimension a packet keeps its direction
// (the rest of the way is shorter that way). The class: see Rule.Partition. At the
// destination router: the node's port, port 0.
func (t *Torus) Route(r, dst int, h *Hop, rule *Rule) (int, int) {
	dims := len(t.k)
	rc, dc := t.coords[r*dims:r*dims+dims], t.coords[dst*dims:dst*dims+dims]
	random := rule != nil && rule.Rand != nil
	for d, k := range t.k {
		cur, to := int(rc[d]), int(dc[d])
		if cur == to {
			continue
		}
		fwd := to - cur // (to - cur) mod k, without a division
		if fwd < 0 {
			fwd += k
		}
		in := int(h.Dim) == d
		// right is the direction the class is taken for (BookSim2's); a radix of 2 goes +
		// whichever it is. Once in a dimension the rest of the way is shorter the way it
		// goes, so a tie is only ever where the dimension starts.
		var right bool
		switch {
		case 2*fwd != k:
			right = 2*fwd < k
		case random:
			right = rule.Rand.IntN(2) == 1
		default:
			right = cur%2 == 0
		}
		plus := right || k == 2
		port := t.port(d, plus)
		class := 0
		if in {
			class = int(h.Class)
		}
		if rule != nil && rule.Partition {
			if !in {
				class = int(datelinePartition(right, cur, to))
			}
		} else if plus && cur == k-1 || !plus && cur == 0 {
			class = 1 // the dateline: the wrap link itself is in class 1
		}
		h.Dim, h.Class = int8(d), uint8(class)
		return port, class
	}
	return 0, -1
}

// port is the local port of dimension d's + or - link.
func (t *Torus) port(d int, plus bool) int {
	if plus || t.k[d] == 2 {
		return 1 + 2*d
	}
	return 2 + 2*d
}

// datelinePartition is BookSim2's dateline partition of a route from coordinate cur to to: 1 when
// going + it will wrap (cur > to), or going - it will not (to > cur).
func datelinePartition(plus bool, cur, to int) uint8 {
	if plus && cur > to || !plus && to > cur {
		return 1
	}
	return 0
}

// DatelineRing of the torus: its largest radix above 2 (a ring of 2 has one link each way).
func (t *Torus) DatelineRing() int {
	if m := slices.Max(t.k); m > 2 {
		return m
	}
	return 0
}

// Bisection of a torus: the narrowest of the cuts across one dimension into halves; a ring
// of radix > 2 crosses such a cut twice (its wrap link), so it is 2N/k links each way.
func (t *Torus) Bisection(cfg *Config) Bisection {
	var best Bisection
	for i, c := range t.cuts(cfg) {
		if i == 0 || c.GBps < best.GBps {
			best = c.Bisection
		}
	}
	return best
}

func (t *Torus) cuts(cfg *Config) []cut {
	var cs []cut
	for d, k := range t.k {
		if k == 1 {
			continue
		}
		per := 2
		if k == 2 {
			per = 1
		}
		links := per * t.n / k
		cs = append(cs, cut{Bisection{links, float64(links) * cfg.torusBandwidth()},
			func(i int) bool { return t.coord(i, d) >= k-k/2 }})
	}
	if len(cs) == 0 { // a single node
		cs = append(cs, cut{Bisection{0, 0}, func(int) bool { return false }})
	}
	return cs
}

// ---------------------------------------------------------------------------------------

// ErrTooBig is a network that cannot fit in memory: New refuses it before it allocates.
var ErrTooBig = memlimit.ErrTooBig

// Shape is how many routers, router ports and router-to-router links topo has, counted
// without building it.
func Shape(topo Topology) (routers, ports, links int) {
	switch t := topo.(type) {
	case *Crossbar:
		return 1, t.n, 0
	case *FatTree:
		r := t.n * t.sw
		return r, r * 2 * t.k, 2 * (t.n - 1) * t.sw * t.k
	case *Torus:
		for _, k := range t.k {
			switch {
			case k == 2:
				links += t.n
			case k > 2:
				links += 2 * t.n
			}
		}
		return t.n, t.n * (1 + 2*len(t.k)), links
	}
	return 0, 0, 0
}

// Footprint is the memory, in bytes, that New allocates for topo with cfg before any packet
// moves: the routers' ports and virtual-channel state, the nodes' queues, the topology's own
// tables and the channel graph New builds them from. TestFootprint holds it to the heap New
// really takes.
func Footprint(topo Topology, cfg Config) int64 {
	r, p, l := Shape(topo)
	nodes, v := int64(topo.Nodes()), int64(max(cfg.VCs, 1))
	ports, outs := int64(p), int64(p)+nodes
	b := ports*int64(unsafe.Sizeof(inPort{})) + // its inlineVCs buffers and credit counters inside
		outs*int64(unsafe.Sizeof(outPort{})) +
		int64(r)*(4+8) + // portBase, graph.ports
		int64(l)*int64(unsafe.Sizeof(linkDef{})) +
		nodes*int64(unsafe.Sizeof(nodeDef{})) +
		nodes*(4+4+2*int64(unsafe.Sizeof(ring{}))+8+16) // nodeIn, nodeOut, nic, arrive, lastInj, eps
	if v > inlineVCs { // the VCs in arrays of their own
		b += outs*v*int64(unsafe.Sizeof(outVC{})) + ports*v*int64(unsafe.Sizeof(ring{}))
	} else {
		b += nodes * int64(unsafe.Sizeof(outVC{})) // the ejection buffers' credits
	}
	if t, ok := topo.(*Torus); ok {
		b += nodes * int64(len(t.k)) * 2 // coords
	}
	return b
}

// MemoryLimit is the memory a run may take: the least of every limit set on the process
// (memlimit.Current: ulimit -v, its cgroup, GOMEMLIMIT, the memory available).
func MemoryLimit() int64 { return memlimit.Current().Bytes }

// Estimate is the network's share of a run's memory estimate: its footprint, counted from
// the topology's shape. A run adds its own structures' shares (a matcher's tables) before it
// checks the estimate.
func Estimate(topo Topology, cfg Config) *memlimit.Estimate {
	_, ports, _ := Shape(topo)
	e := &memlimit.Estimate{}
	e.Add(fmt.Sprintf("its %d nodes, %d router ports and %d VCs per port", topo.Nodes(), ports, max(cfg.VCs, 1)), Footprint(topo, cfg))
	return e
}

// EstimateParts is Estimate for the network on parts parts (NewParts): each part beyond the
// first adds its engine's calendar (netsim.PartMemory; the routers' and nodes' state is
// the network's, shared, and the events pending are shared out among the parts).
func EstimateParts(topo Topology, cfg Config, parts int) *memlimit.Estimate {
	e := Estimate(topo, cfg)
	if parts > 1 {
		e.Add(fmt.Sprintf("the event calendars of %d more parts (threads), %.1f MB each", parts-1, float64(netsim.PartMemory())/1e6), int64(parts-1)*netsim.PartMemory())
	}
	return e
}

// CheckFitsParts is CheckFits for the network on parts parts.
func CheckFitsParts(topo Topology, cfg Config, parts int) error {
	if err := EstimateParts(topo, cfg, parts).Check(memlimit.Current()); err != nil {
		return fmt.Errorf("%v on %d threads %w", topo, parts, err)
	}
	return nil
}

// CheckFits refuses a network of topo with cfg whose footprint, doubled for the garbage
// collector's headroom (a Go heap grows to twice what it keeps, GOGC=100), passes
// MemoryLimit; the error wraps ErrTooBig and gives the estimate and the limit that binds.
func CheckFits(topo Topology, cfg Config) error {
	if err := Estimate(topo, cfg).Check(memlimit.Current()); err != nil {
		return fmt.Errorf("%v %w", topo, err)
	}
	return nil
}
