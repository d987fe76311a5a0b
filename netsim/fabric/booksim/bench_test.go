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
func BenchmarkTorus512(b *testing.B) {
	topo, err := fabric.ParseTopology("torus:8x8x8")
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
		r, err := Run(n, pat, 0.3, 1, DefaultMeasure())
		if err != nil {
			b.Fatal(err)
		}
		hops += r.FlitHops
	}
	b.ReportMetric(float64(hops)/time.Since(start).Seconds(), "flit-hops/s")
}

// BenchmarkFatTree64 is BenchmarkTorus512 on the 4-ary 3-tree with 16-flit packets at 0.4.
func BenchmarkFatTree64(b *testing.B) {
	topo, err := fabric.ParseTopology("fattree:4x3")
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
		r, err := Run(n, pat, 0.4, 16, DefaultMeasure())
		if err != nil {
			b.Fatal(err)
		}
		hops += r.FlitHops
	}
	b.ReportMetric(float64(hops)/time.Since(start).Seconds(), "flit-hops/s")
}
