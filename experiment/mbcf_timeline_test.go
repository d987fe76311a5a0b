package experiment

import (
	"bytes"
	"testing"

	"github.com/lhsim/lhsim/netsim/timeline"
)

// TestMBCFTimeline: every data packet of the round trips and the bandwidth burst (each
// task's WRITE, READ, SWAP and the kernel's replies) starts its flow at the kernel job
// of one node that posted it, steps on that node's wire and on the other node's adapter, and
// ends at the receive interrupt of the other node; each task's send is a slice with its
// packet's flow; the results are those of a run without the timeline.
func TestMBCFTimeline(t *testing.T) {
	cfg := DefaultMBCF()
	cfg.Networks, cfg.Sizes, cfg.BandwidthSizes, cfg.Iterations, cfg.Writes = []string{"100basetx"}, []int{4, 64}, []int{64}, 3, 32
	plain, err := RunMBCF(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	res, err := RunMBCF(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	if res.PeakMBs["100basetx"]["64"] != plain.PeakMBs["100basetx"]["64"] || res.RTTUs["100basetx"]["read"]["64"] != plain.RTTUs["100basetx"]["read"]["64"] {
		t.Fatal("the timeline changed the figures")
	}
	var again bytes.Buffer
	cfg.Timeline = timeline.New(&again, timeline.Options{})
	if _, err := RunMBCF(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("the same measurements wrote another file")
	}
	evs, err := timeline.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(evs, false); err != nil {
		t.Fatal(err)
	}
	type pts map[string][]timeline.Event
	flows := map[uint64]pts{}
	slices := map[uint64][]timeline.Event{}
	machines := map[int]bool{}
	for _, e := range evs {
		machines[*e.Pid/timeline.MachinePids] = true
		switch e.Ph {
		case "s", "t", "f":
			if flows[*e.ID] == nil {
				flows[*e.ID] = pts{}
			}
			flows[*e.ID][e.Ph] = append(flows[*e.ID][e.Ph], e)
		case "X":
			if m := num(e, "msg"); m > 0 {
				slices[uint64(m)] = append(slices[uint64(m)], e)
			}
		}
	}
	// WRITE, READ and SWAP round trips at 2 sizes, the burst, the 2 send costs: one
	// machine each.
	if len(machines) != 3*2+1+2 {
		t.Fatalf("%d machines", len(machines))
	}
	sends := 0
	for id, f := range flows {
		if len(f["s"]) != 1 || len(f["f"]) != 1 || len(f["t"]) != 2 {
			t.Fatalf("flow %d: %d starts, %d steps, %d ends", id, len(f["s"]), len(f["t"]), len(f["f"]))
		}
		from, to := *f["s"][0].Pid, *f["f"][0].Pid
		if from == to || from/timeline.MachinePids != to/timeline.MachinePids || *f["t"][0].Pid != from || *f["t"][1].Pid != to {
			t.Fatalf("flow %d: from pid %d through %d and %d to %d", id, from, *f["t"][0].Pid, *f["t"][1].Pid, to)
		}
		names := map[string]int{}
		for _, e := range slices[id] {
			names[e.Name]++
		}
		if names["packet"] < 1 || names["packet in"] != 1 || names["receive interrupt"] != 1 {
			t.Fatalf("flow %d: slices %v", id, names)
		}
		for n := range names {
			if len(n) > 5 && n[:5] == "send " {
				sends++
			}
		}
	}
	// Every task send has its packet (the replies are the kernel's).
	want := 0
	for _, e := range evs {
		if e.Ph == "X" && *e.Tid < tidMBCFKernel && len(e.Name) > 5 && e.Name[:5] == "send " {
			want++
		}
	}
	if sends != want || want < 3*2*3 {
		t.Fatalf("%d of %d task sends have their packet's flow", sends, want)
	}
}
