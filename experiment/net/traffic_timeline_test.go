package net

import (
	"bytes"
	"testing"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// TestTrafficTimeline: every packet of a two-load sweep goes from its source's NIC to its
// destination's, one machine per load; the file is the same for the same seed.
func TestTrafficTimeline(t *testing.T) {
	cfg := quickTraffic("torus:4x4x4", "uniform", 0.1, 0.6)
	cfg.WarmupCycles, cfg.MeasureCycles, cfg.DrainCycles = 200, 2500, 3000
	write := func() []byte {
		var buf bytes.Buffer
		c := cfg
		c.Timeline = timeline.New(&buf, timeline.Options{Links: 4, Sample: 1000000})
		res, err := RunTraffic(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 2 {
			t.Fatalf("%d rows", len(res.Rows))
		}
		if err := c.Timeline.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	b := write()
	n, err := timeline.CheckPackets(b)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("%d packets", n)
	}
	evs, _ := timeline.Parse(b)
	machines := map[int]bool{}
	counters := 0
	for _, e := range evs {
		machines[*e.Pid/timeline.MachinePids] = true
		if e.Ph == "C" {
			counters++
		}
	}
	if len(machines) != 2 || counters == 0 {
		t.Fatalf("machines %v, %d counter samples", machines, counters)
	}
	if !bytes.Equal(b, write()) {
		t.Fatal("the same sweep wrote another file")
	}
}
