package fabric

import (
	"runtime"
	"testing"
	"time"

	"github.com/lhsim/lhsim/netsim"
)

// BenchmarkTorus4096 is the fabric at the size of the all-to-all paper's machine: a 16x16x16 torus
// (4,096 nodes) under uniform random traffic of 4-flit packets at 0.25 flits/cycle/node
// (half the bisection bound of 8/k = 0.5). Each iteration simulates 100 ns. It reports
// events per second (one core: the engine is single-threaded), flit-hops per second (a flit
// crossing one link), simulated ns per wall second, and heap bytes per node in the steady
// state (runtime.MemStats after warm-up, less the heap before the network was built).
func BenchmarkTorus4096(b *testing.B) {
	benchTorus(b, "torus:16x16x16", 0.25)
}

func benchTorus(b *testing.B, topo string, load float64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	eng, n := build(b, topo, DefaultConfig())
	pat, err := ParsePattern("uniform", n.Topology())
	if err != nil {
		b.Fatal(err)
	}
	syn, err := NewSynthetic(n, SyntheticConfig{Pattern: pat, Load: load, PacketFlits: 4, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	syn.Start(0)
	eng.Run(2 * netsim.Microsecond) // warm-up: the network fills to its steady state
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perNode := float64(after.HeapAlloc-before.HeapAlloc) / float64(n.Nodes())

	ev0, fh0, t0 := eng.Fired(), n.Stats().FlitHops, eng.Now()
	start := time.Now()
	for b.Loop() {
		eng.Run(eng.Now() + 100*netsim.Nanosecond)
	}
	wall := time.Since(start).Seconds()
	b.ReportMetric(float64(eng.Fired()-ev0)/wall, "events/s")
	b.ReportMetric(float64(n.Stats().FlitHops-fh0)/wall, "flit-hops/s")
	b.ReportMetric((eng.Now()-t0).Nanoseconds()/wall, "sim-ns/s")
	b.ReportMetric(perNode, "B/node")
	b.ReportMetric(float64(eng.Pending()), "pending-events")
	b.ReportMetric(0, "ns/op")
}
