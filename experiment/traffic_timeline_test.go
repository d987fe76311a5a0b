package experiment

import (
	"bytes"
	"testing"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// checkPackets parses a timeline of a fabric's packets (timeline.Packets) and checks each:
// its slice at the source's NIC starts its flow, which ends on a slice at the NIC of the
// node it was sent to, with the same size and the source as its peer; every packet that
// arrived has left. It returns the packets seen.
func checkPackets(t *testing.T, b []byte) int {
	t.Helper()
	evs, err := timeline.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(evs, false); err != nil {
		t.Fatal(err)
	}
	type pkt struct {
		tx, rx     *timeline.Event
		start, end *timeline.Event
	}
	byID := map[uint64]*pkt{}
	get := func(id uint64) *pkt {
		if byID[id] == nil {
			byID[id] = &pkt{}
		}
		return byID[id]
	}
	for i := range evs {
		e := &evs[i]
		switch {
		case e.Ph == "X" && *e.Tid == timeline.TidTx:
			get(uint64(num(*e, "msg"))).tx = e
		case e.Ph == "X" && *e.Tid >= timeline.TidRx && *e.Tid < timeline.TidTx:
			get(uint64(num(*e, "msg"))).rx = e
		case e.Ph == "s":
			get(*e.ID).start = e
		case e.Ph == "f":
			get(*e.ID).end = e
		}
	}
	for id, p := range byID {
		if p.start != nil && *p.start.Tid != timeline.TidTx {
			delete(byID, id) // a message's flow, not a packet's
			continue
		}
		if p.tx == nil || p.start == nil || p.rx == nil || p.end == nil {
			t.Fatalf("packet %d: sent %v (flow %v), received %v (flow %v)", id, p.tx, p.start, p.rx, p.end)
		}
		base := *p.tx.Pid - *p.tx.Pid%timeline.MachinePids
		if *p.start.Pid != *p.tx.Pid || *p.start.Tid != *p.tx.Tid || *p.end.Pid != *p.rx.Pid || *p.end.Tid != *p.rx.Tid {
			t.Fatalf("packet %d: flow from pid %d tid %d to pid %d tid %d, slices at %d/%d and %d/%d", id, *p.start.Pid, *p.start.Tid,
				*p.end.Pid, *p.end.Tid, *p.tx.Pid, *p.tx.Tid, *p.rx.Pid, *p.rx.Tid)
		}
		if base+num(*p.tx, "peer") != *p.rx.Pid || base+num(*p.rx, "peer") != *p.tx.Pid || num(*p.tx, "bytes") != num(*p.rx, "bytes") {
			t.Fatalf("packet %d: sent %v from pid %d, received %v at pid %d", id, p.tx.Args, *p.tx.Pid, p.rx.Args, *p.rx.Pid)
		}
		if *p.end.Ts < *p.start.Ts {
			t.Fatalf("packet %d: arrives at %g µs before it left at %g µs", id, *p.end.Ts, *p.start.Ts)
		}
	}
	return len(byID)
}

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
	n := checkPackets(t, b)
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
