package experiment

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// TestIBRunTimeline: every packet of an ib run (SENDs, RDMA WRITEs, ACKs) goes from its
// source's HCA to its destination's; recording it and telling the progress change nothing
// in the run's outcome, and the progress ends at every send.
func TestIBRunTimeline(t *testing.T) {
	cfg := DefaultIBRun()
	cfg.Machine.Nodes, cfg.Workload.Messages = 4, 10
	plain, err := RunIB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	var last, total int64
	cfg.Progress = func(d, n int64) { last, total = d, n }
	res, err := RunIB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Digest != plain.Digest {
		t.Fatalf("digest %s with the timeline, %s without", res.Digest, plain.Digest)
	}
	if total != 4*3*10 || last != total {
		t.Fatalf("progress ended at %d of %d sends", last, total)
	}
	if n := checkPackets(t, buf.Bytes()); n < 120 {
		t.Fatalf("%d packets", n)
	}
	for _, k := range []string{`"name":"SEND only"`, `"name":"ACK in"`, `"name":"RDMA WRITE only"`} {
		if !strings.Contains(buf.String(), k) {
			t.Errorf("no %s slice", k)
		}
	}
}
