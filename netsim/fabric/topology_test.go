package fabric

import (
	"math/rand/v2"
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// Hop counts, bisections and throughput bounds against values worked out by hand.
func TestTopologyFigures(t *testing.T) {
	cases := []struct {
		topo           string
		min, max       int
		mean           float64
		bisLinks       int
		uniformBisect  float64 // flits/cycle/node
		uniformChannel float64
	}{
		{"crossbar:16", 1, 1, 1, 8, 8 * 15 / 64.0, 1},
		// 4-ary 3-tree: of the 63 others, 3 share the leaf (1 router), 12 the level-1
		// subtree (3), 48 need the top (5): (3+36+240)/63.
		{"fattree:4x3", 1, 5, (3 + 36 + 240) / 63.0, 32, 32 * 63 / (32 * 32.0), 1},
		// 8-ary 3-cube: ring distances 0,1,2,3,4,3,2,1 sum to 16 per dimension, so the
		// link count over all 512 destinations is 3*16*64 = 3072; over the 511 others,
		// 3072/511 links, and one router more than links.
		{"torus:8x8x8", 2, 13, 1 + 3072/511.0, 128, 128 * 511 / (256 * 256.0), 128 * 511 / (256 * 256.0)},
	}
	for _, c := range cases {
		t.Run(c.topo, func(t *testing.T) {
			_, n := build(t, c.topo, DefaultConfig())
			h, err := n.Hops()
			require.NoError(t, err)
			require.Equal(t, c.min, h.Min)
			require.Equal(t, c.max, h.Max)
			require.InDelta(t, c.mean, h.Mean, 1e-9)
			b := n.Topology().Bisection(&n.cfg)
			require.Equal(t, c.bisLinks, b.Links)
			require.InDelta(t, float64(c.bisLinks)*4.0, b.GBps, 1e-9)
			pat, err := ParsePattern("uniform", n.Topology())
			require.NoError(t, err)
			bd, err := n.Bounds(pat)
			require.NoError(t, err)
			require.InDelta(t, 1.0, bd.Injection, 1e-9)
			require.InDelta(t, c.uniformBisect, bd.Bisection, 1e-9)
			require.Positive(t, bd.ChannelLoad)
			require.LessOrEqual(t, bd.ChannelLoad, bd.Bisection+1e-9, "no routing beats the bisection")
			// Uniform traffic loads no link more than a node's own: the routing spreads it
			// (d-mod-k on the tree, balanced ties on the torus).
			require.InDelta(t, c.uniformChannel, bd.ChannelLoad, 1e-9)
		})
	}
	// Tornado on an 8-ring: every + link carries 3 flows, so 1/3 flit per cycle each.
	_, n := build(t, "torus:8", DefaultConfig())
	pat, _ := ParsePattern("tornado", n.Topology())
	bd, err := n.Bounds(pat)
	require.NoError(t, err)
	require.InDelta(t, 1/3.0, bd.ChannelLoad, 1e-9)
	require.InDelta(t, 1/3.0, bd.Bound(), 1e-9)
}

// Patterns on coordinates.
func TestPatterns(t *testing.T) {
	tp, _ := ParseTopology("torus:4x4x4")
	for _, c := range []struct {
		name     string
		src, dst int
	}{
		{"transpose", 1 + 2*4 + 3*16, 3 + 2*4 + 1*16},
		{"tornado", 0, 1 + 1*4 + 1*16},
		{"neighbor", 3, 0 + 1*4 + 1*16},
	} {
		p, err := ParsePattern(c.name, tp)
		require.NoError(t, err)
		require.Equal(t, c.dst, p.Dest(c.src, nil), c.name)
	}
	xb, _ := ParseTopology("crossbar:16")
	p, err := ParsePattern("transpose", xb)
	require.NoError(t, err)
	require.Equal(t, 1*4+2, p.Dest(2*4+1, nil))
	u, _ := ParsePattern("uniform", xb)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for range 2000 {
		d := u.Dest(5, rng)
		require.NotEqual(t, 5, d)
		seen[d] = true
	}
	require.Len(t, seen, 15)
}

// LinkIDs names Path's links: as many, the injection link first; two routes share an id
// exactly where they share a link (on a 1-D torus, 0->2 and 1->3 share the link 1->2).
func TestLinkIDs(t *testing.T) {
	topo, err := NewTorus(8)
	require.NoError(t, err)
	n, err := New(&netsim.Engine{}, topo, DefaultConfig())
	require.NoError(t, err)
	a, err := n.LinkIDs(0, 2)
	require.NoError(t, err)
	p, err := n.Path(0, 2)
	require.NoError(t, err)
	require.Len(t, a, len(p))
	b, err := n.LinkIDs(1, 3)
	require.NoError(t, err)
	shared := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				shared++
			}
		}
	}
	require.Equal(t, 1, shared)
	_, err = n.LinkIDs(0, 8)
	require.ErrorIs(t, err, ErrBadNode)
}

// The torus's routing under BookSim2's rule (Rule with Rand and Partition, the booksim
// router's): every route is minimal, dimension by dimension, a tie at k/2 goes either way
// (both are taken over the pairs), and the class is BookSim2's partition, fixed on entering a
// dimension: 1 going + when the route wraps, or going - when it does not. Under the
// deterministic rule the same pairs take the event model's routes, drawing nothing.
func TestTorusRouteRules(t *testing.T) {
	topo, err := NewTorus(8, 4)
	require.NoError(t, err)
	rule := &Rule{Rand: rand.New(rand.NewPCG(1, 2)), Partition: true}
	ties := map[bool]int{}
	for src := range topo.Nodes() {
		for dst := range topo.Nodes() {
			h, r, routers := StartHop, src, 0
			for {
				routers++
				before := h
				port, class := topo.Route(r, dst, &h, rule)
				if port == 0 {
					require.Equal(t, -1, class)
					break
				}
				d, plus := (port-1)/2, port%2 == 1
				cur, to, k := topo.coord(r, d), topo.coord(dst, d), topo.k[d]
				if 2*((to-cur+k)%k) == k && topo.coord(src, d) == cur {
					ties[plus]++
				}
				if int(before.Dim) == d { // kept for the whole dimension
					require.Equal(t, int(before.Class), class, "%d -> %d at %d", src, dst, r)
				} else {
					wraps := plus && cur > to || !plus && to > cur
					require.Equal(t, wraps, class == 1, "%d -> %d at %d: class %d", src, dst, r, class)
				}
				step := topo.stride[d]
				if plus {
					r += step * (((cur + 1) % k) - cur)
				} else {
					r += step * (((cur - 1 + k) % k) - cur)
				}
				require.Less(t, routers, 20)
			}
			dist := 0
			for d, k := range topo.k {
				f := (topo.coord(dst, d) - topo.coord(src, d) + k) % k
				dist += min(f, k-f)
			}
			require.Equal(t, dist+1, routers, "%d -> %d: minimal", src, dst)
		}
	}
	require.Positive(t, ties[true])
	require.Positive(t, ties[false])
	det := StartHop
	port, _ := topo.Route(0, 4, &det, DeterministicRule)
	require.Equal(t, 1, port, "a tie from an even coordinate goes +")
}
