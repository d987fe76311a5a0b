package match

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
)

// fillSchedule fills a 4-cell ALPU mid-run on rank 0, on both queues, under wildcards:
// rank 0 posts 4 receives from rank 2 (they fill the posted ALPU) and 6 from any source with
// any tag (they go to software); rank 1 sends 12 messages in order, tags 101 to 112: the
// first 6 miss the ALPU and match in software, the next 6 find no receive and fill the
// unexpected ALPU and then its software list. After 50 µs rank 0 posts 6 more wildcard
// receives, which take them in order while software moves its entries back into hardware,
// and after 100 µs rank 2 sends the 4 messages the first receives wait for.
func fillSchedule() string {
	var b strings.Builder
	b.WriteString("num_ranks 3\nrank 0 {\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "r%d: recv 8b from 2 tag 7\n", i)
	}
	for i := 5; i <= 10; i++ {
		fmt.Fprintf(&b, "r%d: recv 8b from -1 tag -1\n", i)
	}
	b.WriteString("c: calc 50000\n")
	for i := 11; i <= 16; i++ {
		fmt.Fprintf(&b, "r%d: recv 8b from -1 tag -1\nr%d requires c\n", i, i)
	}
	b.WriteString("}\nrank 1 {\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "s%d: send 8b to 0 tag %d\n", i, 100+i)
		if i > 1 {
			fmt.Fprintf(&b, "s%d requires s%d\n", i, i-1)
		}
	}
	b.WriteString("}\nrank 2 {\nc: calc 100000\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "s%d: send 8b to 0 tag 7\ns%d requires c\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// recorder notes, on rank 0, which message each receive took: at an arrival the receive
// the posted queue gives up (its op: the first ten receives are ops 0 to 9, posted in that
// order), at the n-th posting the message the unexpected queue gives up.
type recorder struct {
	goal.Matcher
	posts int
	pairs map[uint32]string // receive, numbered in the order posted from 0 -> "src/tag"
}

type recPosted struct {
	goal.Queue
	r *recorder
}

func (q recPosted) Take(src, tag uint32) (goal.Entry, int, bool) {
	e, d, ok := q.Queue.Take(src, tag)
	if ok {
		q.r.pairs[e.Op] = fmt.Sprintf("%d/%d", src, tag)
	}
	return e, d, ok
}

type recUnexpected struct {
	goal.Queue
	r *recorder
}

func (q recUnexpected) Take(src, tag uint32) (goal.Entry, int, bool) {
	e, d, ok := q.Queue.Take(src, tag)
	if ok {
		q.r.pairs[uint32(q.r.posts)] = fmt.Sprintf("%d/%d", e.Src, e.Tag)
	}
	q.r.posts++
	return e, d, ok
}

func (r *recorder) Posted() goal.Queue     { return recPosted{r.Matcher.Posted(), r} }
func (r *recorder) Unexpected() goal.Queue { return recUnexpected{r.Matcher.Unexpected(), r} }

func runFill(t *testing.T, name string, rtl []int) (map[uint32]string, *Stats, *Set) {
	t.Helper()
	s, err := goal.Parse(strings.NewReader(fillSchedule()))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := fabric.ParseTopology("crossbar:3")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Build(tp, fabric.DefaultConfig(), cluster.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.RTLNodes = rtl
	cfg.NIC.Entries = 4 // the Go model's LH buffer fills with the 6 unexpected messages
	set, err := NewSet(spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	rec := &recorder{pairs: map[uint32]string{}}
	res, err := goal.RunPacket(s, c, 65535, goal.Options{NewMatcher: func(rank int) (goal.Matcher, error) {
		m, err := set.New(rank)
		if rank == 0 && err == nil {
			rec.Matcher = m
			return rec, nil
		}
		return m, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unmatched) != 0 {
		t.Fatalf("%s: unmatched %v", name, res.Unmatched)
	}
	return rec.pairs, set.Stats()[0], set
}

// A hardware list that fills mid-run under wildcards falls back to software and comes back,
// and every receive still gets the message MPI order gives it: the ALPU of 4 cells, and the
// LHS receive path whose 4-entry LH buffer (the Go model's) overflows into host memory. On RTL
// nodes the RTL runs beside the model (LHS: the RTL build's 1024 entries, no overflow).
func TestALPUFillsAndFallsBackInOrder(t *testing.T) {
	want := map[uint32]string{0: "2/7", 1: "2/7", 2: "2/7", 3: "2/7"}
	for i := 4; i < 10; i++ {
		want[uint32(i)] = fmt.Sprintf("1/%d", 97+i) // receive 5 to 10: messages 101 to 106
	}
	for i := 10; i < 16; i++ {
		want[uint32(i)] = fmt.Sprintf("1/%d", 97+i) // receive 11 to 16: messages 107 to 112
	}
	check := func(name string, rtl []int) *Stats {
		pairs, st, set := runFill(t, name, rtl)
		if len(rtl) > 0 && set.RTLSteps() < 12 {
			t.Errorf("%s: %d operations checked on the RTL", name, set.RTLSteps())
		}
		for op, w := range want {
			if pairs[op] != w {
				t.Errorf("%s: recv op %d took %q, want %q (all: %v)", name, op, pairs[op], w, pairs)
			}
		}
		return st
	}
	check("list", nil)
	check("bins:3", nil)
	// hash_match of 4 entries fills as the ALPU of 4 cells does; hash:64:1024 is the
	// Verilated build, beside its model on nodes 0 and 1, every cycle compared.
	if st := check("hash:2:4", nil); st.Fallbacks < 6 || st.Refills == 0 || st.MaxUnexpected != 6 {
		t.Errorf("hash:2:4: %d fallbacks (want at least 6), %d refills, longest unexpected %d (want 6)", st.Fallbacks, st.Refills, st.MaxUnexpected)
	}
	check("hash:64:1024", []int{0, 1})
	// Onload: the insert that finds the list full moves it to software, where the queue stays
	// until it drains; on RTL nodes the ALPU RTL answers every search that empties it.
	for _, c := range []struct {
		name string
		rtl  []int
	}{{"alpu:4/onload", nil}, {"alpu:4/onload", []int{0, 1}}, {"hash:2:4/onload", nil}} {
		if st := check(c.name, c.rtl); st.Switches < 2 || st.HWMatches == st.Matches || st.Refills != 0 {
			t.Errorf("%s (RTL on %v): %d switches, %d of %d matches in hardware, %d refills: want the queue onloaded and back, no refill", c.name, c.rtl, st.Switches, st.HWMatches, st.Matches, st.Refills)
		}
	}
	for _, rtl := range [][]int{nil, {0, 1}} {
		st := check("alpu:4", rtl)
		if st.Fallbacks < 6 || st.Refills == 0 || st.MaxUnexpected != 6 {
			t.Errorf("alpu:4 (RTL on %v): %d fallbacks (want at least 6), %d refills, longest unexpected %d (want 6)", rtl, st.Fallbacks, st.Refills, st.MaxUnexpected)
		}
		for _, m := range []string{"lhs", "lhs+alpu:4"} {
			st := check(m, rtl)
			// Without RTL the 4-entry buffer moved the oldest 2 of the 6 unexpected messages
			// to host memory, where receives 11 and 12 found them; the hybrid's posted ALPU
			// also sends 6 matches to software, as alpu:4's does.
			want := 2
			if len(rtl) > 0 {
				want = 0
			}
			if m != "lhs" {
				want += 6 // the posted ALPU's, as alpu:4's (at least 6)
			}
			if (m == "lhs" && st.Fallbacks != want) || st.Fallbacks < want || st.MaxUnexpected != 6 {
				t.Errorf("%s (RTL on %v): %d fallbacks, want %d; longest unexpected %d (want 6)", m, rtl, st.Fallbacks, want, st.MaxUnexpected)
			}
		}
	}
}

// The LHS RTL and its Go model must agree: a fault in the model (it takes one message in
// with another tag) stops the run naming the node, the receive, the message and the cycle.
func TestLHSRTLDisagreementStops(t *testing.T) {
	cfg := testConfig()
	cfg.RTLNodes = []int{3}
	cfg.lhsFault = func(e *goal.Entry) {
		if e.Tag == 1 {
			e.Tag = 5
		}
	}
	set, err := NewSet(Spec{Kind: "lhs"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	m, err := set.New(3)
	if err != nil {
		t.Fatal(err)
	}
	m.Begin(0)
	for i := uint32(0); i < 3; i++ {
		m.Unexpected().Push(goal.Entry{Src: 1, Tag: i, Line: 10 + i})
	}
	if _, err := m.End(); err != nil {
		t.Fatalf("arrivals: %v (the fault changes no cycle)", err)
	}
	m.Begin(1000)
	if _, _, ok := m.Unexpected().Take(1, 0); !ok {
		t.Fatal("tag 0 not found")
	}
	if _, err := m.End(); err != nil {
		t.Fatalf("a receive both agree on: %v", err)
	}
	m.Begin(2000)
	m.Unexpected().Take(1, 1)
	_, err = m.End()
	if err == nil || !strings.Contains(err.Error(), "node 3, unexpected queue (LHS), receive from 1 tag 1, device cycle ") ||
		!strings.Contains(err.Error(), "the LHS RTL matched the message from 1 tag 1 (line 11) at depth 0") ||
		!strings.Contains(err.Error(), "the Go model no match") {
		t.Fatalf("got %v", err)
	}
}

// The RTL and the model must agree: a model that answers with another entry stops the run
// with the node, the search and the cycle.
func TestALPURTLDisagreementStops(t *testing.T) {
	cfg := testConfig()
	cfg.RTLNodes = []int{3}
	set, err := NewSet(Spec{Kind: "alpu", Args: []int{8}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	m, err := set.New(3)
	if err != nil {
		t.Fatal(err)
	}
	m.Begin(0)
	for i := uint32(0); i < 3; i++ {
		m.Unexpected().Push(goal.Entry{Src: 1, Tag: i})
	}
	if _, err := m.End(); err != nil {
		t.Fatal(err)
	}
	q := m.(*unit).uq.(*timed).Queue.(*alpuQueue)
	q.hw[1].ptr = 99 // the model now says entry 1 has another pointer than the RTL
	m.Begin(1000)
	m.Unexpected().Take(1, 1)
	_, err = m.End()
	if err == nil || !strings.Contains(err.Error(), "node 3, unexpected queue, search for source 1 tag 1, cycle ") ||
		!strings.Contains(err.Error(), "pointer 1 in 3 cycles, the model a hit on pointer 99") {
		t.Fatalf("got %v", err)
	}
}

// hash_match's RTL and its model must agree: a model whose entry has another handle than
// the RTL's stops the run with the node, the queue, the search and the cycle.
func TestHashRTLDisagreementStops(t *testing.T) {
	cfg := testConfig()
	cfg.RTLNodes = []int{3}
	spec, err := Parse("hash:64:1024")
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	m, err := set.New(3)
	if err != nil {
		t.Fatal(err)
	}
	m.Begin(0)
	for i := uint32(0); i < 3; i++ {
		m.Unexpected().Push(goal.Entry{Src: 1, Tag: i})
	}
	if _, err := m.End(); err != nil {
		t.Fatal(err)
	}
	q := m.(*unit).uq.(*timed).Queue.(*hashQueue)
	b := q.hw.m.banks[1]
	b.ent[0].handle = 77 // the model's bank 1 now holds entry 1 under another handle
	m.Begin(1000)
	m.Unexpected().Take(1, 1)
	_, err = m.End()
	if err == nil || !strings.Contains(err.Error(), "node 3, unexpected queue, search for source 1 tag 1 at cycle ") ||
		!strings.Contains(err.Error(), "the hash_match RTL gave {ins_ready 0 req_ready 0 rsp_valid 1 hit 1 handle 1 ") ||
		!strings.Contains(err.Error(), "the model {ins_ready 0 req_ready 0 rsp_valid 1 hit 1 handle 77 ") {
		t.Fatalf("got %v", err)
	}
}
