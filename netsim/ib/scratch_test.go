package ib

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
)

func TestRTTScratch(t *testing.T) {

	cfg := DefaultConfig()
	cfg.Nodes = 6
	cfg.OneCQ = true
	cfg.RecvDepth = 4
	cfg.SQDepth = 8
	cfg.CQDepth = 64
	cfg.RDMABytes = 6 * 4096
	c, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := Workload{Messages: 40, RDMAEvery: 5, Gap: 2 * netsim.Microsecond, Consume: 12 * netsim.Microsecond, Seed: 3}
	for i := range cfg.Nodes {
		c.Start(i, 0, NewTraffic(w, i))
	}
	if err := c.Run(netsim.Never); err != nil {
		t.Fatal(err)
	}
	o, err := c.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range o {
		t.Logf("%+v", x)
	}
	t.Logf("events %d now %v", c.eng.Fired(), c.eng.Now())
}
