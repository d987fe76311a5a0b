package fabric

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

const ns = netsim.Nanosecond

// testSeed is SEED when set (to replay a failure), else def; a failure prints its replay.
func testSeed(t *testing.T, def uint64) uint64 {
	t.Helper()
	s := testseed.One(t, def)
	testseed.ReplayOnFailure(t, s, "./netsim/fabric")
	return s
}

func build(t testing.TB, topo string, cfg Config) (*netsim.Engine, *Network) {
	t.Helper()
	tp, err := ParseTopology(topo)
	require.NoError(t, err)
	eng := &netsim.Engine{}
	n, err := New(eng, tp, cfg)
	require.NoError(t, err)
	return eng, n
}

// sink records every delivery and consumes after a delay drawn from its own generator
// (0 = at once), so the ejection buffers fill and drain.
type sink struct {
	net   *Network
	eng   *netsim.Engine
	rng   *rand.Rand
	slow  netsim.Time // up to this long before Consumed
	got   map[uint64]int
	trace []string
	held  []*Packet
	hold  bool // never consume (until release)
	// zeroLoad is every delivered packet whose zero-load latency, added up as it travelled, is not
	// ZeroLoadLatency of its pair and size.
	zeroLoad []string
}

func newSink(n *Network, eng *netsim.Engine, seed uint64, slow netsim.Time) *sink {
	s := &sink{net: n, eng: eng, rng: rand.New(rand.NewPCG(seed, 99)), slow: slow, got: map[uint64]int{}}
	for i := range n.Nodes() {
		require.NoError(nil2t{}, n.Attach(i, s))
	}
	return s
}

// nil2t lets helpers use require outside a test's goroutine-free path where a t is not at hand.
type nil2t struct{}

func (nil2t) Errorf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (nil2t) FailNow()                  { panic("FailNow") }

type consumeLater struct {
	s *sink
	p *Packet
}

func (c *consumeLater) Fire(now netsim.Time, _ int64) {
	if err := c.s.net.Consumed(now, c.p.Dst, c.p); err != nil {
		panic(err)
	}
}

func (s *sink) Receive(now netsim.Time, p *Packet) {
	s.got[p.ID]++
	s.trace = append(s.trace, fmt.Sprintf("%d %d>%d #%d h%d vc%d", now, p.Src, p.Dst, p.ID, p.Hops, p.VC))
	if z, err := s.net.ZeroLoadLatency(p.Src, p.Dst, p.Bytes); err != nil || p.zeroLoad < 0 || netsim.Time(p.zeroLoad) != z {
		s.zeroLoad = append(s.zeroLoad, fmt.Sprintf("packet %d, %d>%d, %d bytes: added up %v, ZeroLoadLatency %v (%v)", p.ID, p.Src, p.Dst, p.Bytes, p.zeroLoad, z, err))
	}
	switch {
	case s.hold:
		s.held = append(s.held, p)
	case s.slow > 0:
		s.eng.At(now+netsim.Time(s.rng.Int64N(int64(s.slow))), &consumeLater{s, p}, 0)
	default:
		if err := s.net.Consumed(now, p.Dst, p); err != nil {
			panic(err)
		}
	}
}

func (s *sink) release(now netsim.Time) {
	s.hold = false
	for _, p := range s.held {
		if err := s.net.Consumed(now, p.Dst, p); err != nil {
			panic(err)
		}
	}
	s.held = nil
}

// A lone packet's latency equals the closed form, written out by hand here from the
// parameters: H routers, each P (the 3 x 4.0 ns pipeline) + S (128 ns switch latency), the
// flight times L of the links, and H+F flit times (the head received whole at each router,
// then the F flits of the packet at the last link). Default flit: 16 B = 4.0 ns at 4.0 GB/s.
func TestZeroLoadLatencyClosedForm(t *testing.T) {
	const f, ps, sw, cable = 4 * ns, 12 * ns, 128 * ns, 600
	bk := BookSimConfig(ns) // 1 ns cycles: every stage and link one cycle, on the event model
	bk.Router, bk.TorusLinkLatency = NSIMRouter, nil
	cases := []struct {
		topo     string
		cfg      Config
		src, dst int
		bytes    int
		routers  int
		want     netsim.Time
	}{
		{"crossbar:16", DefaultConfig(), 0, 5, 16, 1, 1*(ps+sw) + 2*cable + (1+1)*f},
		{"crossbar:16", DefaultConfig(), 3, 3, 1000, 1, 1*(ps+sw) + 2*cable + (1+63)*f}, // to itself, 63 flits
		{"fattree:4x3", DefaultConfig(), 0, 1, 64, 1, 1*(ps+sw) + 2*cable + (1+4)*f},    // same leaf switch
		{"fattree:4x3", DefaultConfig(), 0, 4, 64, 3, 3*(ps+sw) + 4*cable + (3+4)*f},    // up one level
		{"fattree:4x3", DefaultConfig(), 0, 63, 64, 5, 5*(ps+sw) + 6*cable + (5+4)*f},   // over the top
		// torus 4x4x4, node 0 to (1,2,3) = 1+8+48: X one link (21 ns), Y two (25 ns; a tie
		// at distance 2 goes + from an even coordinate), Z one link backwards (70 ns).
		{"torus:4x4x4", DefaultConfig(), 0, 57, 64, 5, 5*(ps+sw) + 2*cable + 21*ns + 2*25*ns + 70*ns + (5+4)*f},
		{"torus:8x8x8", DefaultConfig(), 0, 4 + 4*8 + 4*64, 32, 13, 13*(ps+sw) + 2*cable + 4*21*ns + 4*25*ns + 4*70*ns + (13+2)*f},
		// BookSim-style: 3 pipeline cycles + 1 switch cycle per router, links of 0 flight
		// time, 1 cycle per flit.
		{"torus:8x8", bk, 0, 3 + 8*2, 16 * 5, 6, 6*(3+1)*ns + (6+5)*ns},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d-%d/%dB", c.topo, c.src, c.dst, c.bytes), func(t *testing.T) {
			eng, n := build(t, c.topo, c.cfg)
			formula, err := n.ZeroLoadLatency(c.src, c.dst, c.bytes)
			require.NoError(t, err)
			require.Equal(t, c.want, formula, "ZeroLoadLatency against the hand-written form")
			s := newSink(n, eng, 1, 0)
			p := &Packet{Src: c.src, Dst: c.dst, Bytes: c.bytes, ID: 7}
			eng.At(100*ns, netsim.Func(func(now netsim.Time, _ int64) { require.NoError(t, n.Inject(now, p)) }), 0)
			eng.Run(netsim.Never)
			require.Equal(t, 1, s.got[7])
			require.Equal(t, c.want, p.Latency(), "simulated")
			require.Equal(t, c.routers, int(p.Hops))
		})
	}
}

// heavy drives n with random traffic: every node injects count packets of random sizes to
// random nodes at random times, then the run drains. It returns the sink.
func heavy(t *testing.T, eng *netsim.Engine, n *Network, seed uint64, count int, slow netsim.Time) *sink {
	t.Helper()
	s := newSink(n, eng, seed, slow)
	rng := rand.New(rand.NewPCG(seed, 1))
	id := uint64(0)
	maxBytes := n.cfg.maxPacketFlits() * n.cfg.FlitBytes
	for src := range n.Nodes() {
		at := netsim.Time(0)
		for range count {
			at += netsim.Time(rng.Int64N(int64(60 * ns)))
			id++
			p := &Packet{Src: src, Dst: rng.IntN(n.Nodes()), Bytes: 1 + rng.IntN(maxBytes), ID: id}
			require.NoError(t, n.Inject(at, p))
		}
	}
	eng.Run(netsim.Never)
	return s
}

// Under heavy random load with slow consumers, on every topology and arbiter, every packet
// injected is received exactly once, and nothing is left inside.
func TestNoLossNoDuplicate(t *testing.T) {
	seed := testSeed(t, 11)
	for _, topo := range []string{"crossbar:8", "fattree:2x3", "fattree:3x2", "torus:4x4", "torus:3x2x2", "torus:5"} {
		for _, arb := range []Arbiter{RoundRobin, OldestFirst} {
			t.Run(topo+"/"+arb.String(), func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.Arbiter = arb
				cfg.BufferFlits, cfg.EjectBufferFlits = 8, 8
				eng, n := build(t, topo, cfg)
				const count = 150
				s := heavy(t, eng, n, seed, count, 300*ns)
				want := n.Nodes() * count
				require.Len(t, s.got, want, "packets received")
				for id, k := range s.got {
					require.Equal(t, 1, k, "packet %d received %d times", id, k)
				}
				require.Empty(t, s.zeroLoad, "packets whose zero-load latency, added up as they travelled, is not the closed form")
				st := n.Stats()
				require.Equal(t, uint64(want), st.Injected)
				require.Equal(t, uint64(want), st.Delivered)
				require.Equal(t, uint64(want), st.Consumed)
				require.Zero(t, n.InFlight())
				require.Zero(t, eng.Pending())
				// Every credit came home: the buffers are empty again.
				for o := range n.out {
					if n.out[o].down == noPort {
						continue
					}
					for vc := range n.v {
						want := int32(cfg.BufferFlits)
						if n.out[o].down < 0 {
							if vc > 0 {
								continue // an ejection port has one buffer, its credits in VC 0
							}
							want = int32(cfg.EjectBufferFlits)
						}
						require.Equal(t, want, avail(n.ovc(o, vc), netsim.Never), "credits of port %d vc %d", o, vc)
					}
				}
			})
		}
	}
}

// Two runs with the same seed are the same bit for bit: every delivery at the same
// picosecond in the same order, and the same number of events.
func TestDeterministic(t *testing.T) {
	seed := testSeed(t, 5)
	for _, topo := range []string{"torus:4x4x2", "fattree:4x2", "crossbar:12"} {
		t.Run(topo, func(t *testing.T) {
			var traces [2][]string
			var fired [2]uint64
			for i := range 2 {
				eng, n := build(t, topo, DefaultConfig())
				s := heavy(t, eng, n, seed, 60, 200*ns)
				traces[i], fired[i] = s.trace, eng.Fired()
			}
			require.Equal(t, traces[0], traces[1])
			require.Equal(t, fired[0], fired[1])
			// and a different seed gives a different run (the seed reaches the traffic)
			eng, n := build(t, topo, DefaultConfig())
			s := heavy(t, eng, n, seed+1, 60, 200*ns)
			require.NotEqual(t, traces[0], s.trace)
		})
	}
}

// A port's VCs inside its record (up to inlineVCs) and in arrays of their own (more VCs)
// run the same: every delivery at the same time, hop count and VC, under heavy traffic
// with slow consumers (full buffers, credits waited for), on 1 and 2 VCs.
func TestVCLayouts(t *testing.T) {
	seed := testSeed(t, 5)
	for _, c := range []struct {
		topo string
		vcs  int
	}{{"torus:4x4", 2}, {"fattree:4x2", 1}, {"fattree:4x2", 2}} {
		cfg := DefaultConfig()
		cfg.VCs = c.vcs
		var traces [2][]string
		for k, arrays := range []bool{false, true} {
			vcArrays = arrays
			eng, n := build(t, c.topo, cfg)
			vcArrays = false
			require.Equal(t, arrays, n.ovcx != nil, "%s: the layout asked for", c.topo)
			s := heavy(t, eng, n, seed, 60, 200*ns)
			require.Equal(t, n.Nodes()*60, len(s.trace), "%s, %d VCs: every packet delivered", c.topo, c.vcs)
			traces[k] = s.trace
		}
		require.Equal(t, traces[0], traces[1], "%s, %d VCs: inline against arrays", c.topo, c.vcs)
	}
}

// With InOrder, the packets of one flow arrive in the order they were injected.
func TestInOrder(t *testing.T) {
	seed := testSeed(t, 3)
	cfg := DefaultConfig()
	cfg.InOrder = true
	cfg.VCs = 4
	eng, n := build(t, "torus:4x4", cfg)
	s := heavy(t, eng, n, seed, 100, 0)
	last := map[[2]int]uint64{}
	var src, dst int
	var id uint64
	for _, line := range s.trace {
		var now, h, vc int
		_, err := fmt.Sscanf(line, "%d %d>%d #%d h%d vc%d", &now, &src, &dst, &id, &h, &vc)
		require.NoError(t, err)
		k := [2]int{src, dst}
		require.Less(t, last[k], id, "flow %v", k)
		last[k] = id
	}
}

// tornado: every node of a torus sends count packets of flits flits to the node
// ceil(k/2)-1 ahead in every dimension, all at time 0: the traffic that closes a cycle of
// full buffers round each ring unless the dateline breaks it.
func tornado(t *testing.T, topo string, cfg Config, count, flits int) (*netsim.Engine, *Network, *sink) {
	eng, n := build(t, topo, cfg)
	pat, err := ParsePattern("tornado", n.Topology())
	require.NoError(t, err)
	s := newSink(n, eng, 1, 0)
	id := uint64(0)
	for src := range n.Nodes() {
		for range count {
			id++
			require.NoError(t, n.Inject(0, &Packet{Src: src, Dst: pat.Dest(src, nil), Bytes: flits * cfg.FlitBytes, ID: id}))
		}
	}
	eng.Run(netsim.Never)
	return eng, n, s
}

// The torus under tornado traffic with buffers of one packet drains with the dateline
// virtual channels, within a bound: the time to deliver every packet one after another, each
// taking the zero-load latency of the longest tornado path (a fabric that always has a
// packet moving does better). Without the dateline (any VC on any link), the same traffic
// deadlocks: the engine runs out of events with packets still inside, none of which can
// ever move.
func TestTorusDeadlockFreedom(t *testing.T) {
	const count, flits = 40, 4
	for _, topo := range []string{"torus:8", "torus:6x6", "torus:5x5x5"} {
		cfg := DefaultConfig()
		cfg.BufferFlits, cfg.EjectBufferFlits = flits, flits
		t.Run(topo+"/dateline", func(t *testing.T) {
			eng, n, s := tornado(t, topo, cfg, count, flits)
			require.Zero(t, n.InFlight(), "packets stuck")
			require.Len(t, s.got, n.Nodes()*count)
			pat, _ := ParsePattern("tornado", n.Topology())
			zl, err := n.ZeroLoadLatency(0, pat.Dest(0, nil), flits*16)
			require.NoError(t, err)
			bound := netsim.Time(n.Nodes()*count) * zl
			require.Less(t, eng.Now(), bound, "drain time")
			t.Logf("drained in %v (bound %v)", eng.Now(), bound)
		})
		t.Run(topo+"/no-dateline", func(t *testing.T) {
			cfg := cfg
			cfg.NoDateline = true
			eng, n, s := tornado(t, topo, cfg, count, flits)
			require.Zero(t, eng.Pending(), "the engine has stopped")
			require.Positive(t, n.InFlight(), "deadlock: packets inside and no event left to move them")
			require.Less(t, len(s.got), n.Nodes()*count)
			// Every packet is still accounted for: delivered, or in a buffer or queue.
			inside := 0
			for i := range len(n.in) * n.v {
				inside += int(n.vcq(i).n)
			}
			for i := range n.nic {
				inside += int(n.nic[i].n)
			}
			require.Equal(t, n.InFlight(), inside)
			requireBlocked(t, n)
		})
	}
}

// An endpoint that never consumes stops its senders and loses nothing; once it consumes,
// everything drains.
func TestBackPressure(t *testing.T) {
	for _, topo := range []string{"crossbar:4", "torus:4x4", "fattree:2x3"} {
		t.Run(topo, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BufferFlits, cfg.EjectBufferFlits = 8, 8
			eng, n := build(t, topo, cfg)
			s := newSink(n, eng, 1, 0)
			s.hold = true
			const per = 30
			id := uint64(0)
			for src := 1; src < n.Nodes(); src++ {
				for range per {
					id++
					require.NoError(t, n.Inject(0, &Packet{Src: src, Dst: 0, Bytes: 64, ID: id}))
				}
			}
			eng.Run(netsim.Never)
			total := (n.Nodes() - 1) * per
			require.Zero(t, eng.Pending(), "the fabric has stopped")
			require.Len(t, s.held, cfg.EjectBufferFlits/4, "the ejection buffer holds two 4-flit packets")
			require.Equal(t, total, n.InFlight()+len(s.held), "nothing lost")
			queued := 0
			for src := 1; src < n.Nodes(); src++ {
				queued += n.Queued(src)
			}
			require.Positive(t, queued, "senders stopped with packets still queued")
			requireBlocked(t, n)
			eng.At(eng.Now()+ns, netsim.Func(func(now netsim.Time, _ int64) { s.release(now) }), 0)
			eng.Run(netsim.Never)
			require.Len(t, s.got, total)
			for k, v := range s.got {
				require.Equal(t, 1, v, "packet %d", k)
			}
			require.Zero(t, n.InFlight())
		})
	}
}

// requireBlocked checks, once the engine has stopped, that every packet at the front of a
// buffer or an injection queue waits for credits: none was forgotten by a lost wake-up.
func requireBlocked(t *testing.T, n *Network) {
	t.Helper()
	for key := range len(n.in) * n.v {
		p := n.vcq(key).front()
		if p == nil {
			continue
		}
		require.True(t, p.requested, "front of input VC %d has not asked for its output", key)
		require.Negative(t, n.pickVC(int(p.out), p, netsim.Never-1), "front of input VC %d could go", key)
	}
	for node := range n.nic {
		if p := n.nic[node].front(); p != nil {
			p.vcLo, p.vcHi = 0, uint8(n.v)
			require.Negative(t, n.pickVC(len(n.in)+node, p, netsim.Never-1), "node %d's injection could go", node)
		}
	}
}

// Any string given to the parsers is an answer or an error, never a panic; a topology
// that parses builds and routes from node 0 to every node.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"torus:4x4", "fattree:2x3", "crossbar:3", "torus:1", "torus:2x1x3", "fattree:3x1", "torus:9999999", "x:", "torus:-1", "4ns", "2c", "tornado"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseDelay(s, 4*ns)
		_, _ = ParseArbiter(s)
		topo, err := ParseTopology(s)
		if err != nil || topo.Nodes() > 4096 {
			return
		}
		for _, name := range Patterns {
			if p, err := ParsePattern(name, topo); err == nil && topo.Nodes() > 1 {
				d := p.Dest(0, rand.New(rand.NewPCG(1, 1)))
				require.True(t, d >= 0 && d < topo.Nodes())
			}
		}
		n, err := New(&netsim.Engine{}, topo, DefaultConfig())
		require.NoError(t, err)
		for d := range min(topo.Nodes(), 64) {
			_, err := n.ZeroLoadLatency(0, d, 16)
			require.NoError(t, err)
		}
	})
}
