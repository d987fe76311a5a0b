package ib

import (
	"bytes"
	"github.com/lhsim/lhsim/experiment"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// TestIBRunTimeline: every packet of an ib run (SENDs, RDMA WRITEs, ACKs) goes from its
// source's HCA to its destination's, every SEND message from its post to its consumption
// by the peer; recording it and telling the progress change nothing
// in the run's outcome, and the progress ends at every send; the same run writes the same
// file.
func TestIBRunTimeline(t *testing.T) {
	cfg := DefaultRun()
	cfg.Machine.Nodes, cfg.Workload.Messages = 4, 10
	plain, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	var last, total int64
	cfg.Progress = experiment.NewProgress(func(d, n int64, _ string) { last, total = d, n })
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	cfg.Timeline, cfg.Progress = timeline.New(&again, timeline.Options{}), nil
	if _, err := Run(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("the same run wrote another file")
	}
	if res.Digest != plain.Digest {
		t.Fatalf("digest %s with the timeline, %s without", res.Digest, plain.Digest)
	}
	if total != 4*3*10 || last != total {
		t.Fatalf("progress ended at %d of %d sends", last, total)
	}
	if n, err := timeline.CheckPackets(buf.Bytes()); err != nil || n < 120 {
		t.Fatalf("%d packets: %v", n, err)
	}
	// Each SEND message: its post on its node's "host posts" track starts a flow that ends
	// on the consumption of a message from that node at the peer it was posted to.
	evs, err := timeline.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	posts, consumes := map[uint64]timeline.Event{}, map[uint64]timeline.Event{}
	ends := map[uint64]timeline.Event{}
	for _, e := range evs {
		switch {
		case e.Ph == "X" && e.Name == "post SEND":
			posts[uint64(e.Int("msg"))] = e
		case e.Ph == "X" && e.Name == "consume":
			consumes[uint64(e.Int("msg"))] = e
		case e.Ph == "f":
			ends[*e.ID] = e
		}
	}
	if len(posts) == 0 || len(posts) != len(consumes) {
		t.Fatalf("%d SENDs posted, %d consumed", len(posts), len(consumes))
	}
	for id, p := range posts {
		c, ok := consumes[id]
		if !ok || p.Int("peer") != *c.Pid || c.Int("peer") != *p.Pid || *c.Ts < *p.Ts {
			t.Fatalf("message %d: posted %v by %d, consumed %v by %d", id, p.Args, *p.Pid, c.Args, *c.Pid)
		}
		if f, ok := ends[id]; !ok || *f.Pid != *c.Pid || *f.Tid != *c.Tid {
			t.Fatalf("message %d: its flow does not end at its consumption", id)
		}
	}
	for _, k := range []string{`"name":"SEND only"`, `"name":"ACK in"`, `"name":"RDMA WRITE only"`} {
		if !strings.Contains(buf.String(), k) {
			t.Errorf("no %s slice", k)
		}
	}
}
