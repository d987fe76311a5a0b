package fabric

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// arrival is what a node saw of one packet.
type arrival struct {
	id        uint64
	at        netsim.Time
	hops, vc  int
	injected  netsim.Time
	seq, from uint64
}

// recorder records every arrival at its node (each node's list is only its part's to write)
// and hands the packet on to the synthetic traffic.
type recorder struct {
	syn  *Synthetic
	node int
	got  *[][]arrival
}

func (r *recorder) Receive(now netsim.Time, p *Packet) {
	(*r.got)[r.node] = append((*r.got)[r.node], arrival{p.ID, now, int(p.Hops), int(p.VC), p.InjectedAt, p.Seq(), uint64(p.Src)})
	r.syn.Receive(now, p)
}

type partsRun struct {
	got    [][]arrival
	window WindowStats
	stats  Stats
	fired  uint64
	links  []uint64
	ws     netsim.WindowStats
}

// runParts runs synthetic traffic on topo on parts parts, in slices of the given lengths.
func runParts(t *testing.T, topo Topology, cfg Config, parts int, sc SyntheticConfig, slices []netsim.Time) partsRun {
	t.Helper()
	n, ps, err := NewParts(topo, cfg, parts)
	require.NoError(t, err)
	defer ps.Close()
	syn, err := NewSynthetic(n, sc)
	require.NoError(t, err)
	var r partsRun
	r.got = make([][]arrival, n.Nodes())
	for i := range n.Nodes() {
		require.NoError(t, n.Attach(i, &recorder{syn, i, &r.got}))
	}
	n.CountLinks()
	syn.Start(0)
	var end netsim.Time
	for i, d := range slices {
		if i == 1 {
			syn.Measure(end, end+d)
		}
		end += d
		ps.Run(end)
	}
	syn.Stop()
	ps.Run(netsim.Never)
	r.window, r.stats, r.fired, r.links, r.ws = syn.Window(), n.Stats(), ps.Fired(), n.LinkFlits(), ps.Stats()
	return r
}

// A network on 2 or more parts runs exactly as on one: every packet arrives at the same time,
// over as many routers, in the same VC, and the events, statistics and link counts are the
// same (random topologies, loads, buffers, arbiters and run slices).
func TestPartsSameAsSerial(t *testing.T) {
	seed := testSeed(t, 39)
	rng := rand.New(rand.NewPCG(seed, 39))
	topos := []string{"torus:4x4x4", "torus:6x4", "torus:4x2x6", "fattree:2x4", "fattree:4x3", "fattree:3x3"}
	for trial := range 12 {
		name := topos[rng.IntN(len(topos))]
		topo, err := ParseTopology(name)
		require.NoError(t, err)
		cfg := DefaultConfig()
		cfg.VCs = 2 * (1 + rng.IntN(2))
		cfg.BufferFlits = 4 + rng.IntN(16)
		cfg.EjectBufferFlits = 4 + rng.IntN(16)
		if rng.IntN(2) == 0 {
			cfg.Arbiter = OldestFirst
		}
		cfg.InOrder = rng.IntN(3) == 0
		if rng.IntN(3) == 0 { // the links all alike: many events at the same instants
			cfg.TorusLinkLatency = nil
		}
		flits := 1 + rng.IntN(min(cfg.BufferFlits, cfg.EjectBufferFlits))
		pat, err := ParsePattern("uniform", topo)
		require.NoError(t, err)
		sc := SyntheticConfig{Pattern: pat, Load: 0.05 + rng.Float64(), PacketFlits: flits, Seed: rng.Uint64()}
		var sl []netsim.Time
		for range 3 + rng.IntN(4) {
			sl = append(sl, netsim.Time(1+rng.IntN(400))*cfg.ClockPeriod+netsim.Time(rng.IntN(4000)))
		}
		parts := 2 + rng.IntN(min(3, MaxParts(topo, cfg)-1))
		what := fmt.Sprintf("trial %d: %v, %d VCs, %d-flit buffers, %v, in order %v, load %.2f, %d-flit packets, %d parts",
			trial, topo, cfg.VCs, cfg.BufferFlits, cfg.Arbiter, cfg.InOrder, sc.Load, flits, parts)
		one := runParts(t, topo, cfg, 1, sc, sl)
		many := runParts(t, topo, cfg, parts, sc, sl)
		require.Positive(t, one.stats.Delivered, what)
		require.Equal(t, one.got, many.got, what)
		require.Equal(t, one.window, many.window, what)
		require.Equal(t, one.stats, many.stats, what)
		require.Equal(t, one.fired, many.fired, what)
		require.Equal(t, one.links, many.links, what)
		require.Positive(t, many.ws.Windows, what)
		require.Equal(t, many.fired, many.ws.Events, what)
	}
}

// The parts follow the topology: torus slabs across the slowest dimension (each a block of
// whole planes), fat-tree subtrees; the lookahead is the cut links' latency and a flit.
func TestPartition(t *testing.T) {
	cfg := DefaultConfig() // torus links 21, 25, 70 ns: cut across Z
	topo, err := ParseTopology("torus:4x4x8")
	require.NoError(t, err)
	require.Equal(t, 8, MaxParts(topo, cfg))
	n, ps, err := NewParts(topo, cfg, 2)
	require.NoError(t, err)
	defer ps.Close()
	tr := topo.(*Torus)
	for r := range tr.Nodes() {
		require.Equal(t, tr.coord(r, 2)/4, n.partOf(int32(r)), "router %d", r)
	}
	require.Equal(t, 70*ns+cfg.FlitTime(cfg.LinkBandwidth), n.Lookahead())

	ft, err := ParseTopology("fattree:4x3")
	require.NoError(t, err)
	require.Equal(t, 16, MaxParts(ft, cfg))
	n, ps2, err := NewParts(ft, cfg, 4)
	require.NoError(t, err)
	defer ps2.Close()
	counts := make([]int, 4)
	for node := range ft.Nodes() {
		require.Equal(t, node/16, n.nodePart(node), "node %d: its leaf's subtree", node)
	}
	for r := range 48 {
		counts[n.partOf(int32(r))]++
	}
	require.Equal(t, []int{12, 12, 12, 12}, counts)
	require.Equal(t, cfg.CableLatency+cfg.FlitTime(cfg.LinkBandwidth), n.Lookahead())

	_, _, err = NewParts(ft, cfg, 17)
	require.ErrorContains(t, err, "want 1 to 16")
	x, err := ParseTopology("crossbar:8")
	require.NoError(t, err)
	require.Equal(t, 1, MaxParts(x, cfg))
}
