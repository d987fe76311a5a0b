package tlm_test

import (
	"testing"

	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim/tlm"
)

// benchMessages are the benchmark workload's messages (lhsim bench: 100,000 of 16..256
// bytes, seed 1), built once.
var benchMessages = rx.WorkloadMessages(100_000, 1)

func benchConfig() tlm.Config {
	cfg := tlm.DefaultConfig()
	cfg.TailSize = 0x0800_0000 // as the workload programs the device
	return cfg
}

// report gives the rates of b.N runs of the workload.
func report(b *testing.B, cycles uint64) {
	msgs := float64(b.N) * float64(len(benchMessages))
	s := b.Elapsed().Seconds()
	b.ReportMetric(msgs/s, "msgs/s")
	b.ReportMetric(float64(b.N)*float64(cycles)/s, "cycles/s")
	b.ReportMetric(s*1e9/msgs, "ns/msg")
}

// The workload with its host (Feed, as lhsim bench runs it), all 100,000 messages a run,
// the messages built beforehand and out of cache by the time they are read.
func BenchmarkWorkloadFeed(b *testing.B) {
	var cycles uint64
	for b.Loop() {
		n, err := tlm.New(benchConfig())
		if err != nil {
			b.Fatal(err)
		}
		if cycles, err = n.Feed(0, benchMessages); err != nil {
			b.Fatal(err)
		}
	}
	if cycles != 995750 {
		b.Fatalf("%d cycles, want 995750", cycles)
	}
	report(b, cycles)
}

// The same workload through Offer and Release, one call each a message: the cost of the
// interface the network simulator uses.
func BenchmarkWorkloadOffer(b *testing.B) {
	var cycles uint64
	for b.Loop() {
		n, err := tlm.New(benchConfig())
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range benchMessages {
			a, err := n.Offer(0, m)
			if err != nil {
				b.Fatal(err)
			}
			if err := n.Release(a.Commit+1, 1, 0); err != nil {
				b.Fatal(err)
			}
			cycles = a.Commit + 1
		}
	}
	if cycles != 995750 {
		b.Fatalf("%d cycles, want 995750", cycles)
	}
	report(b, cycles)
}
