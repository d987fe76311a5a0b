package goal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// A schedule with what a timeline must show: a message that waits as unexpected (rank 1's
// recv from 0 is posted after a calc), one matched by a posted recv, a rendezvous one
// (over S), a message to oneself, a wildcard recv and two CPUs.
const timelineGoal = `num_ranks 4
rank 0 {
  a: send 100b to 1 tag 1
  b: send 9000b to 2 tag 2
  c: send 64b to 0 tag 3
  d: recv 64b from 0 tag 3
  e: calc 500 cpu 1
  f: send 10b to 3 tag 4
}
rank 1 {
  a: calc 30000
  b: recv 100b from 0 tag 1
  b requires a
  c: send 200b to 3 tag 5
  c requires b
}
rank 2 {
  a: recv 9000b from 0 tag 2
}
rank 3 {
  a: recv 10b from -1 tag 4
  b: recv 200b from 1 tag -1
}
`

func runTimeline(t *testing.T, src string, opt timeline.Options) ([]timeline.Event, *goal.Schedule) {
	t.Helper()
	s, err := goal.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if opt.Links == 0 {
		opt.Links, opt.Sample = 4, netsim.Microsecond
	}
	w := timeline.New(&buf, opt)
	cfg := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Timeline: w}
	cfg.LogGP.S = 4096
	if _, err := RunSchedule(cfg, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := timeline.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(evs, opt.Ranks != nil || opt.From > 0 || opt.To > 0 || opt.MaxBytes > 0); err != nil {
		t.Fatal(err)
	}
	return evs, s
}

// TestGoalTimeline: every send in the schedule is a slice on its rank with a flow that
// steps through the receiving NIC (unless it goes to itself) and ends on the recv that
// matched it: same peer and tag, at the receiving rank; every recv is there once.
func TestGoalTimeline(t *testing.T) {
	evs, s := runTimeline(t, timelineGoal, timeline.Options{})
	sends := map[int]timeline.Event{}
	recvs := map[int]timeline.Event{}
	var nRecv int
	flows := map[uint64]map[string][]timeline.Event{}
	for _, e := range evs {
		switch {
		case e.Ph == "X" && e.Name == "send":
			sends[e.Int("msg")] = e
		case e.Ph == "X" && e.Name == "recv":
			recvs[e.Int("msg")] = e
			nRecv++
		case e.Ph == "s" || e.Ph == "t" || e.Ph == "f":
			if flows[*e.ID] == nil {
				flows[*e.ID] = map[string][]timeline.Event{}
			}
			flows[*e.ID][e.Ph] = append(flows[*e.ID][e.Ph], e)
		}
	}
	var wantSends, wantRecvs int
	for _, r := range s.Ranks {
		for _, o := range r.Ops {
			switch o.Kind {
			case goal.Send:
				wantSends++
			case goal.Recv:
				wantRecvs++
			}
		}
	}
	if len(sends) != wantSends || nRecv != wantRecvs || len(recvs) != wantRecvs {
		t.Fatalf("%d send slices, %d recv slices (%d messages): want %d and %d", len(sends), nRecv, len(recvs), wantSends, wantRecvs)
	}
	for id, se := range sends {
		re, ok := recvs[id]
		if !ok {
			t.Fatalf("send %v: no recv took message %d", se.Args, id)
		}
		if *re.Pid != se.Int("peer") || re.Int("peer") != *se.Pid || re.Int("tag") != se.Int("tag") || re.Int("size") != se.Int("size") {
			t.Errorf("message %d: send on rank %d %v matched by recv on rank %d %v", id, *se.Pid, se.Args, *re.Pid, re.Args)
		}
		f := flows[uint64(id)]
		if len(f["s"]) != 1 || len(f["f"]) != 1 {
			t.Fatalf("message %d: flow %v: want one start and one finish", id, f)
		}
		if *f["s"][0].Pid != *se.Pid || *f["s"][0].Tid != *se.Tid || *f["f"][0].Pid != *re.Pid || *f["f"][0].Tid != *re.Tid {
			t.Errorf("message %d: flow from pid %d tid %d to pid %d tid %d, not from its send to its recv", id, *f["s"][0].Pid, *f["s"][0].Tid, *f["f"][0].Pid, *f["f"][0].Tid)
		}
		self := *se.Pid == *re.Pid
		if steps := f["t"]; (len(steps) == 1) == self || (!self && (*steps[0].Pid != *re.Pid || *steps[0].Tid < timeline.TidRx)) {
			t.Errorf("message %d (to itself: %v): steps %v: want one at the receiving NIC unless it goes to itself", id, self, steps)
		}
		// The recv ends when the message is matched: not before its send began.
		if *re.Ts+*re.Dur < *se.Ts {
			t.Errorf("message %d: received at %g µs, sent at %g µs", id, *re.Ts+*re.Dur, *se.Ts)
		}
	}
	// Rank 1's message from rank 0 landed before its recv was posted: the matcher queued it
	// as unexpected, and the queue counter shows it.
	var unexpected, counted bool
	for _, e := range evs {
		if e.Ph == "i" && e.Name == "unexpected" && *e.Pid == 1 && e.Int("peer") == 0 {
			unexpected = true
		}
		if e.Ph == "C" && *e.Pid == 1 && e.Int("unexpected") == 1 {
			counted = true
		}
	}
	// Link counters: the busiest links' utilisation, named by their ends, at most 4 busy in
	// a span, and the first message's injection link busy in the first.
	busy := map[float64]int{}
	var inj bool
	for _, e := range evs {
		if e.Ph == "C" && strings.HasPrefix(e.Name, "link ") && e.Int("percent") > 0 {
			busy[*e.Ts]++
			if e.Name == "link n0>r0" && *e.Ts < 2 {
				inj = true
			}
		}
	}
	for ts, n := range busy {
		if n > 4 {
			t.Errorf("%d links shown busy in the span at %g µs, over the 4 asked for", n, ts)
		}
	}
	if len(busy) == 0 || !inj {
		t.Errorf("link counters: %v spans with busy links; rank 0's injection link in the first: %v", len(busy), inj)
	}
	// Tracks are named by what they hold, a lane by its number.
	names := map[string]bool{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" && *e.Pid == 2 {
			names[e.Args["name"].(string)] = true
		}
	}
	for _, n := range []string{"recv 0", "NIC rx 0", "NIC matcher"} { // rank 2 only receives
		if !names[n] {
			t.Errorf("rank 2's tracks %v: no %q", names, n)
		}
	}
	if !unexpected || !counted {
		t.Errorf("rank 1: unexpected instant %v, queue counter at 1: %v", unexpected, counted)
	}
}

// TestGoalTimelineFilters: --timeline-ranks keeps those ranks' processes only, a window
// the events that overlap it, and the cap stops at whole events, leaving a file that parses;
// a file cut off before its closing bracket still parses.
func TestGoalTimelineFilters(t *testing.T) {
	evs, _ := runTimeline(t, timelineGoal, timeline.Options{Ranks: func(r int) bool { return r == 3 }})
	if len(evs) == 0 {
		t.Fatal("no events for rank 3")
	}
	for _, e := range evs {
		if *e.Pid != 3 && *e.Pid != timeline.MachinePids-2 { // rank 3 and the links
			t.Fatalf("rank filter 3: event on pid %d: %+v", *e.Pid, e)
		}
	}
	evs, _ = runTimeline(t, timelineGoal, timeline.Options{From: 20_000_000, To: 25_000_000})
	for _, e := range evs {
		if e.Ph != "M" && (*e.Ts > 25 || (e.Dur != nil && *e.Ts+*e.Dur < 20) || (e.Dur == nil && *e.Ts < 20)) {
			t.Fatalf("window 20..25 µs: %+v at %g", e, *e.Ts)
		}
	}
	all, _ := runTimeline(t, timelineGoal, timeline.Options{})
	var capped bool
	small, _ := runTimeline(t, timelineGoal, timeline.Options{MaxBytes: 2000, OnCap: func(at netsim.Time) { capped = true }})
	if !capped || len(small) >= len(all) || len(small) == 0 {
		t.Fatalf("cap of 2000 bytes: told %v, %d events of %d", capped, len(small), len(all))
	}
	// A run killed mid-way: the file ends after a whole event, without the bracket.
	s, _ := goal.Parse(strings.NewReader(timelineGoal))
	var buf bytes.Buffer
	w := timeline.New(&buf, timeline.Options{FlushBytes: 1})
	cfg := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Timeline: w}
	if _, err := RunSchedule(cfg, s); err != nil {
		t.Fatal(err)
	}
	whole := append([]byte(nil), buf.Bytes()...) // before Close: what a killed run leaves
	cut := whole[:bytes.LastIndexByte(whole[:len(whole)/2], '\n')]
	part, err := timeline.Parse(cut)
	if err != nil || len(part) == 0 {
		t.Fatalf("cut-off file: %d events, %v", len(part), err)
	}
	if err := timeline.Validate(part, true); err != nil {
		t.Fatal(err)
	}
}

// TestGoalTimelineDeterministic: the same run writes the same bytes.
func TestGoalTimelineDeterministic(t *testing.T) {
	s, err := goal.Parse(strings.NewReader(timelineGoal))
	if err != nil {
		t.Fatal(err)
	}
	var out [2]bytes.Buffer
	for i := range out {
		w := timeline.New(&out[i], timeline.Options{})
		cfg := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Timeline: w}
		if _, err := RunSchedule(cfg, s); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) || out[0].Len() == 0 {
		t.Fatalf("two runs wrote %d and %d bytes, not the same", out[0].Len(), out[1].Len())
	}
}

// TestGoalTimelineSameRun: recording (with the link samples) changes no rank's end.
func TestGoalTimelineSameRun(t *testing.T) {
	var buf bytes.Buffer
	var ends [2][]RankResult
	for i, w := range []*timeline.Writer{nil, timeline.New(&buf, timeline.Options{Links: 8, Sample: 100 * netsim.Nanosecond})} {
		s, err := goal.Parse(strings.NewReader(timelineGoal))
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Network: "packet", LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig(), Timeline: w}
		r, err := RunSchedule(cfg, s)
		if err != nil {
			t.Fatal(err)
		}
		ends[i] = r.PerRank
	}
	for i := range ends[0] {
		if ends[0][i].DoneNs != ends[1][i].DoneNs {
			t.Fatalf("rank %d done at %g ns without the timeline, %g with", i, ends[0][i].DoneNs, ends[1][i].DoneNs)
		}
	}
}
