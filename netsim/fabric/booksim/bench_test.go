package booksim

import (
	"testing"
	"time"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// BenchmarkTorus512 is the booksim router on an 8x8x8 torus under uniform random traffic
// of 1-flit packets at 0.3 flits/cycle/node, BookSim2's whole measurement per iteration. It
// reports flit-hops (a flit crossing one channel) per second; the CPU-second comparison
// with BookSim2 is make booksim-compare's.
func BenchmarkTorus512(b *testing.B) { benchUniform(b, "torus:8x8x8", 0.3, 1) }

// BenchmarkFatTree64 is BenchmarkTorus512 on the 4-ary 3-tree with 16-flit packets at 0.4.
func BenchmarkFatTree64(b *testing.B) { benchUniform(b, "fattree:4x3", 0.4, 16) }

// benchUniform runs the whole measurement on topology under uniform traffic at load with
// packets of flits, once per iteration, and reports the flit-hops per second.
func benchUniform(b *testing.B, topology string, load float64, flits int) {
	topo, err := fabric.ParseTopology(topology)
	if err != nil {
		b.Fatal(err)
	}
	pat, _ := fabric.ParseBookSimPattern("uniform", topo)
	var hops int64
	start := time.Now()
	for b.Loop() {
		n, err := New(topo, fabric.BookSimConfig(netsim.Nanosecond), 1)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Run(n, pat, load, flits, DefaultMeasure())
		if err != nil {
			b.Fatal(err)
		}
		hops += r.FlitHops
	}
	b.ReportMetric(float64(hops)/time.Since(start).Seconds(), "flit-hops/s")
}
