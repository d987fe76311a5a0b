package fabric

import (
	"fmt"
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

	// build lays out routers, ports and links in g.
	build(cfg *Config, g *graph) error
	// route gives the local output port at router r for p and the dateline class of the
	// link it takes (-1: any virtual channel). It may update p's routing state.
	route(r int, p *Packet) (port int, class int)
	// cuts are the node halvings the bisection bound is taken over.
	cuts(cfg *Config) []cut
}

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

func (x *Crossbar) route(r int, p *Packet) (int, int) { return p.Dst, -1 }

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

func (t *FatTree) route(r int, p *Packet) (int, int) {
	l, s := r/t.sw, r%t.sw
	if p.Dst/t.pow[l+1] == s/t.pow[l] { // the destination is below: go down
		return (p.Dst / t.pow[l]) % t.k, -1
	}
	return t.k + (p.Dst/t.pow[l])%t.k, -1
}

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

func (t *Torus) route(r int, p *Packet) (int, int) {
	dims := len(t.k)
	rc, dc := t.coords[r*dims:r*dims+dims], t.coords[p.Dst*dims:p.Dst*dims+dims]
	for d, k := range t.k {
		cur, dst := int(rc[d]), int(dc[d])
		if cur == dst {
			continue
		}
		fwd := (dst - cur + k) % k
		plus := k == 2 || 2*fwd < k || 2*fwd == k && cur%2 == 0
		class := 0
		if int(p.dim) == d {
			class = int(p.class)
		}
		port := 1 + 2*d
		if plus {
			if cur == k-1 {
				class = 1 // the dateline: the wrap link itself is in class 1
			}
		} else {
			port++
			if cur == 0 {
				class = 1
			}
		}
		p.dim, p.class = int8(d), uint8(class)
		return port, class
	}
	return 0, -1
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

// shape is how many routers, router ports and router-to-router links topo has, counted
// without building it.
func shape(topo Topology) (routers, ports, links int) {
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
	r, p, l := shape(topo)
	nodes, v := int64(topo.Nodes()), int64(max(cfg.VCs, 1))
	ports, outs := int64(p), int64(p)+nodes
	b := ports*int64(unsafe.Sizeof(inPort{})) + // its landing queue, inlineVCs buffers and credit counters inside
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
	_, ports, _ := shape(topo)
	e := &memlimit.Estimate{}
	e.Add(fmt.Sprintf("its %d nodes, %d router ports and %d VCs per port", topo.Nodes(), ports, max(cfg.VCs, 1)), Footprint(topo, cfg))
	return e
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
