package ib

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
)

// BenchmarkTraffic runs the checkpoint test's six-node workload (RNR NAKs, resends, RDMA
// writes) to the end: engine events and simulated time per second of the machine's CPU.
func BenchmarkTraffic(b *testing.B) {
	cfg, w := ckptConfig()
	var events uint64
	var simulated netsim.Time
	for b.Loop() {
		c, err := Build(cfg)
		if err != nil {
			b.Fatal(err)
		}
		for i := range cfg.Nodes {
			c.Start(i, 0, NewTraffic(w, i))
		}
		if err := c.Run(netsim.Never); err != nil {
			b.Fatal(err)
		}
		events += c.Engine().Fired()
		simulated += c.Engine().Now()
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/s, "events/s")
	b.ReportMetric(simulated.Nanoseconds()/s, "simulated-ns/s")
}

// BenchmarkCheckpoint takes the six-node machine's checkpoint (stop, stable, save) and
// writes nothing: the cost of one bulk checkpoint in simulation.
func BenchmarkCheckpoint(b *testing.B) {
	cfg, w := ckptConfig()
	for b.Loop() {
		c, err := Build(cfg)
		if err != nil {
			b.Fatal(err)
		}
		for i := range cfg.Nodes {
			c.Start(i, 0, NewTraffic(w, i))
		}
		if _, err := c.Checkpoint(700*netsim.Microsecond, true); err != nil {
			b.Fatal(err)
		}
	}
}
