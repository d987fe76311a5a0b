package experiment_test

import (
	"bytes"
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/incast"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/alltoall"
	"github.com/lhsim/lhsim/netsim/collective"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// checkMessages parses a cluster program's timeline and checks every message: each put,
// get and send slice starts a flow that steps through (send) or ends at (put, get) the NIC
// of the node it goes to, and each send's flow ends on the recv slice of that node that
// took it, with the send's tag and size.
func checkMessages(t *testing.T, b []byte) (slices map[string]int) {
	t.Helper()
	evs, err := timeline.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(evs, false); err != nil {
		t.Fatal(err)
	}
	flows := map[uint64]map[string]timeline.Event{}
	byMsg := map[int][]timeline.Event{}
	slices = map[string]int{}
	for _, e := range evs {
		switch e.Ph {
		case "X":
			slices[e.Name]++
			if m := e.Int("msg"); m > 0 {
				byMsg[m] = append(byMsg[m], e)
			}
		case "s", "t", "f":
			if flows[*e.ID] == nil {
				flows[*e.ID] = map[string]timeline.Event{}
			}
			flows[*e.ID][e.Ph] = e
		}
	}
	for id, f := range flows {
		var issue, rx, recv *timeline.Event
		for _, e := range byMsg[int(id)] {
			switch e.Name {
			case "put", "get", "send":
				issue = &e
			case "put in", "get in", "send in":
				rx = &e
			case "recv":
				recv = &e
			}
		}
		if issue == nil || rx == nil {
			t.Fatalf("message %d: issued %v, at the NIC %v", id, issue, rx)
		}
		if *f["s"].Pid != *issue.Pid || *f["s"].Tid != *issue.Tid {
			t.Errorf("message %d: flow starts on pid %d tid %d, not at its %s", id, *f["s"].Pid, *f["s"].Tid, issue.Name)
		}
		to := *rx.Pid
		if issue.Name != "get" && issue.Int("peer") != to%timeline.MachinePids {
			t.Errorf("message %d: %s to %d lands at pid %d", id, issue.Name, issue.Int("peer"), to)
		}
		if issue.Name != "send" {
			if *f["f"].Pid != to || *f["f"].Tid != *rx.Tid {
				t.Errorf("message %d: %s's flow ends at pid %d tid %d, not at the NIC", id, issue.Name, *f["f"].Pid, *f["f"].Tid)
			}
			continue
		}
		if recv == nil || *recv.Pid != to || recv.Int("tag") != issue.Int("tag") || recv.Int("size") != issue.Int("size") {
			t.Fatalf("message %d: send %v: received by %+v", id, issue.Args, recv)
		}
		if *f["t"].Pid != to || *f["f"].Pid != to || *f["f"].Tid != *recv.Tid {
			t.Errorf("message %d: flow steps at pid %d, ends at pid %d tid %d, not its NIC and recv", id, *f["t"].Pid, *f["f"].Pid, *f["f"].Tid)
		}
	}
	return slices
}

// TestBarrierTimeline: every algorithm's puts and polls, on two process counts, with each
// barrier a slice on the runs track.
func TestBarrierTimeline(t *testing.T) {
	cfg := net.DefaultBarrier()
	cfg.Topologies, cfg.Processes, cfg.NodeLatency = experiment.MustTopologies("crossbar:8"), []int{3, 8}, cfg.NodeLatency[2:3]
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	if _, err := net.RunBarrier(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	n := checkMessages(t, buf.Bytes())
	if n["put"] == 0 || n["poll"] == 0 || n["put in"] != n["put"] {
		t.Fatalf("slices %v", n)
	}
	runs := 0
	for name, k := range n {
		if bytes.Contains([]byte(name), []byte(" barrier, ")) {
			runs += k
		}
	}
	if runs != 2*len(collective.Algorithms) {
		t.Fatalf("%d barrier slices, want %d: %v", runs, 2*len(collective.Algorithms), n)
	}
}

// TestIncastTimeline: sends and their receives, LHS on and off, on the golden model.
func TestIncastTimeline(t *testing.T) {
	cfg := incast.Default()
	cfg.Topology, cfg.Messages, cfg.PostAt, cfg.Speed = experiment.MustTopology("crossbar:4"), 30, 20*netsim.Microsecond, false
	cfg.RTLNodes = []int{}
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	if _, err := incast.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	n := checkMessages(t, buf.Bytes())
	if n["send"] != 2*3*30 || n["recv"] != n["send"] {
		t.Fatalf("slices %v: want 180 sends and their recvs", n)
	}
}

// TestAlltoallTimeline: a small torus, each scheme a machine of its own.
func TestAlltoallTimeline(t *testing.T) {
	cfg := net.DefaultAlltoall()
	cfg.Torus, cfg.Sizes, cfg.Schemes = experiment.MustTopology("torus:4x4x4"), []int{8}, alltoall.Schemes
	var buf bytes.Buffer
	cfg.Timeline = timeline.New(&buf, timeline.Options{})
	if _, err := net.RunAlltoall(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Timeline.Close(); err != nil {
		t.Fatal(err)
	}
	n := checkMessages(t, buf.Bytes())
	if n["put"] == 0 || n["put in"] != n["put"] {
		t.Fatalf("slices %v", n)
	}
}
