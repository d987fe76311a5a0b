package apptrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim/goal"
)

// convertRun converts t, parses the schedule as lhsim goal does and runs it in the LogGOPS
// model; every receive must be matched and every operation run.
func convertRun(t *testing.T, tr *Trace, opt Options) (*goal.Schedule, Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := Convert(&b, tr, opt)
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	s, err := goal.Parse(&b)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	res, err := goal.RunLogGP(s, goal.DefaultParams(), goal.Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(res.Unmatched) > 0 {
		t.Fatalf("unmatched: %v\n%s", res.Unmatched, b.String())
	}
	for r, n := range res.NotRun {
		if n > 0 {
			t.Fatalf("rank %d: %d operations never ran\n%s", r, n, b.String())
		}
	}
	return s, st
}

// requires says whether op b of a rank waits (through requires) for op a.
func requires(r *goal.Rank, b, a int) bool {
	seen := map[int]bool{}
	var walk func(i int) bool
	walk = func(i int) bool {
		if i == b {
			return true
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		for _, n := range r.Requirers(i) {
			if walk(int(n)) {
				return true
			}
		}
		return false
	}
	return a != b && walk(a)
}

func find(r *goal.Rank, k goal.Kind, pred func(goal.Op) bool) []int {
	var out []int
	for i, op := range r.Ops {
		if op.Kind == k && (pred == nil || pred(op)) {
			out = append(out, i)
		}
	}
	return out
}

func world(ranks ...[]Call) *Trace { return &Trace{Ranks: ranks, Comms: map[uint64]Comm{}} }

func send(peer, tag int32, size uint64) Call {
	return Call{Func: "MPI_Send", Kind: KSend, Peer: peer, Tag: tag, Size: size}
}
func recv(peer, tag int32, size uint64) Call {
	return Call{Func: "MPI_Recv", Kind: KRecv, Peer: peer, Tag: tag, Size: size}
}

// TestWaitRequires: a nonblocking receive starts at its call (the computation after it does
// not wait for it); what follows its MPI_Wait does.
func TestWaitRequires(t *testing.T) {
	tr := world(
		[]Call{
			{Func: "MPI_Irecv", Kind: KIrecv, Peer: 1, Tag: 5, Size: 8, Req: 0xa0},
			{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{0xa0}, CPU: 700},
			send(1, 6, 16),
		},
		[]Call{send(0, 5, 8), recv(0, 6, 16)},
	)
	s, _ := convertRun(t, tr, Options{})
	r := &s.Ranks[0]
	rv, calc, sd := find(r, goal.Recv, nil), find(r, goal.Calc, func(o goal.Op) bool { return o.Size == 700 }), find(r, goal.Send, nil)
	if len(rv) != 1 || len(calc) != 1 || len(sd) != 1 {
		t.Fatalf("ops %+v", r.Ops)
	}
	if requires(r, calc[0], rv[0]) {
		t.Error("the computation after MPI_Irecv waits for the receive")
	}
	if !requires(r, sd[0], rv[0]) || !requires(r, sd[0], calc[0]) {
		t.Error("the send after MPI_Wait does not wait for the receive and the computation")
	}
}

// TestRequestReuse: two requests of one value in flight (Open MPI returns one completed
// request object for every eager send) complete oldest first, each once.
func TestRequestReuse(t *testing.T) {
	tr := world(
		[]Call{
			{Func: "MPI_Isend", Kind: KIsend, Peer: 1, Tag: 1, Size: 4, Req: 7},
			{Func: "MPI_Isend", Kind: KIsend, Peer: 1, Tag: 2, Size: 4, Req: 7},
			{Func: "MPI_Waitall", Kind: KComplete, Reqs: []uint64{7, 7}},
			send(1, 3, 4),
		},
		[]Call{recv(0, 2, 4), recv(0, 1, 4), recv(0, 3, 4)},
	)
	s, _ := convertRun(t, tr, Options{})
	r := &s.Ranks[0]
	sends := find(r, goal.Send, nil)
	if len(sends) != 3 || !requires(r, sends[2], sends[0]) || !requires(r, sends[2], sends[1]) {
		t.Fatalf("the send after MPI_Waitall does not wait for both: %+v", r.Ops)
	}
}

func TestWildcardsStay(t *testing.T) {
	tr := world(
		[]Call{recv(AnySource, AnyTag, 8), recv(AnySource, 4, 8)},
		[]Call{send(0, 9, 8)},
		[]Call{send(0, 4, 8)},
	)
	s, st := convertRun(t, tr, Options{})
	rv := find(&s.Ranks[0], goal.Recv, nil)
	if s.Ranks[0].Ops[rv[0]].Peer != goal.Any || s.Ranks[0].Ops[rv[0]].Tag != goal.Any || s.Ranks[0].Ops[rv[1]].Tag != 4 {
		t.Fatalf("receives %+v", s.Ranks[0].Ops)
	}
	if st.WildcardRecvs != 2 {
		t.Errorf("WildcardRecvs %d, want 2", st.WildcardRecvs)
	}
}

// TestCommTagSpaces: tag 7 on MPI_COMM_WORLD and tag 7 on another communicator never match
// each other, whatever the order the receiver posts them in.
func TestCommTagSpaces(t *testing.T) {
	tr := world(
		[]Call{send(1, 7, 100), {Func: "MPI_Send", Kind: KSend, Comm: 0x500, Peer: 1, Tag: 7, Size: 200}},
		[]Call{{Func: "MPI_Recv", Kind: KRecv, Comm: 0x500, Peer: 0, Tag: 7, Size: 200}, recv(0, 7, 100)},
	)
	tr.Comms[0x500] = Comm{ID: 0x500, Members: []int32{0, 1}}
	s, st := convertRun(t, tr, Options{})
	sd, rv := find(&s.Ranks[0], goal.Send, nil), find(&s.Ranks[1], goal.Recv, nil)
	s0, s1 := s.Ranks[0].Ops[sd[0]], s.Ranks[0].Ops[sd[1]]
	r0, r1 := s.Ranks[1].Ops[rv[0]], s.Ranks[1].Ops[rv[1]]
	if s0.Tag != 7 || s1.Tag == 7 || r0.Tag != s1.Tag || r1.Tag != s0.Tag {
		t.Fatalf("tags: sends %d %d, receives %d %d", s0.Tag, s1.Tag, r0.Tag, r1.Tag)
	}
	if st.Comms != 2 {
		t.Errorf("Comms %d, want 2", st.Comms)
	}
}

// TestCrossSpaceRefused: an any-tag receive on one communicator whose source also sends on
// another is counted and refused, unless Approximate.
func TestCrossSpaceRefused(t *testing.T) {
	tr := world(
		[]Call{send(1, 3, 8), {Func: "MPI_Send", Kind: KSend, Comm: 0x500, Peer: 1, Tag: 3, Size: 8}},
		[]Call{recv(0, AnyTag, 8), {Func: "MPI_Recv", Kind: KRecv, Comm: 0x500, Peer: 0, Tag: 3, Size: 8}},
	)
	tr.Comms[0x500] = Comm{ID: 0x500, Members: []int32{0, 1}}
	var b bytes.Buffer
	st, err := Convert(&b, tr, Options{})
	if !errors.Is(err, ErrRefused) || st.CrossSpace != 1 || b.Len() != 0 {
		t.Fatalf("err %v, CrossSpace %d, %d bytes written", err, st.CrossSpace, b.Len())
	}
	_, st = convertRun(t, tr, Options{Approximate: true})
	if st.CrossSpace != 1 {
		t.Errorf("CrossSpace %d", st.CrossSpace)
	}
}

func TestCancelDropped(t *testing.T) {
	tr := world(
		[]Call{
			{Func: "MPI_Irecv", Kind: KIrecv, Peer: AnySource, Tag: 42, Size: 4, Req: 1},
			{Func: "MPI_Cancel", Kind: KCancel, Req: 1},
			{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{1}},
			recv(1, 1, 4),
		},
		[]Call{send(0, 1, 4)},
	)
	s, st := convertRun(t, tr, Options{})
	if rv := find(&s.Ranks[0], goal.Recv, nil); len(rv) != 1 || s.Ranks[0].Ops[rv[0]].Tag != 1 || st.Cancelled != 1 {
		t.Fatalf("receives %+v, cancelled %d", s.Ranks[0].Ops, st.Cancelled)
	}
}

// TestCancelOutcome: a receive whose cancel failed matched a message: it stays, and takes the
// message (HPCC's RandomAccess cancels its last any-source receive, which may have matched a
// peer's message already); one whose cancel took effect is dropped, and so is one the trace
// says nothing of (liballprof's, older traces), counted apart.
func TestCancelOutcome(t *testing.T) {
	program := func(outcome CancelOutcome, sent bool) *Trace {
		other := []Call{}
		if sent {
			other = append(other, send(0, 7, 0))
		}
		return world(
			[]Call{
				{Func: "MPI_Irecv", Kind: KIrecv, Peer: AnySource, Tag: AnyTag, Size: 8, Req: 1},
				{Func: "MPI_Cancel", Kind: KCancel, Req: 1, Cancel: outcome},
				{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{1}},
			},
			other,
		)
	}
	// convertRun fails when a message stays unreceived or a receive unmatched.
	s, st := convertRun(t, program(CancelFailed, true), Options{})
	if rv := find(&s.Ranks[0], goal.Recv, nil); len(rv) != 1 || st.Cancelled != 0 || st.CancelFailed != 1 || st.CancelUnknown != 0 {
		t.Errorf("a cancel that failed: receives %v, stats %+v", rv, st)
	}
	s, st = convertRun(t, program(CancelTookEffect, false), Options{})
	if rv := find(&s.Ranks[0], goal.Recv, nil); len(rv) != 0 || st.Cancelled != 1 || st.CancelFailed != 0 || st.CancelUnknown != 0 {
		t.Errorf("a cancel that took effect: receives %v, stats %+v", rv, st)
	}
	s, st = convertRun(t, program(CancelUnknown, false), Options{})
	if rv := find(&s.Ranks[0], goal.Recv, nil); len(rv) != 0 || st.Cancelled != 1 || st.CancelUnknown != 1 {
		t.Errorf("a cancel of unknown outcome: receives %v, stats %+v", rv, st)
	}
}

// TestProbes: a probe receives nothing (the receive after it does); an Iprobe that found
// nothing is nothing; a matched probe (Mprobe) is the receive, its size from Mrecv.
func TestProbes(t *testing.T) {
	tr := world(
		[]Call{
			{Func: "MPI_Probe", Kind: KProbe, Peer: AnySource, Tag: 3, Flag: true},
			recv(1, 3, 4),
			{Func: "MPI_Iprobe", Kind: KNop, Peer: AnySource, Tag: 99},
			{Func: "MPI_Mprobe", Kind: KMprobe, Peer: AnySource, Tag: 5, Flag: true, Req: 0x77},
			{Func: "MPI_Mrecv", Kind: KMrecv, Req: 0x77, Size: 40},
		},
		[]Call{send(0, 3, 4), send(0, 5, 40)},
	)
	s, _ := convertRun(t, tr, Options{})
	rv := find(&s.Ranks[0], goal.Recv, nil)
	if len(rv) != 2 {
		t.Fatalf("%d receives, want 2: %+v", len(rv), s.Ranks[0].Ops)
	}
	a, b := s.Ranks[0].Ops[rv[0]], s.Ranks[0].Ops[rv[1]]
	if a.Peer != 1 || a.Tag != 3 || b.Peer != goal.Any || b.Tag != 5 || b.Size != 40 {
		t.Fatalf("receives %+v %+v", a, b)
	}
}

func TestPersistentRequests(t *testing.T) {
	tr := world(
		[]Call{
			{Func: "MPI_Send_init", Kind: KSendInit, Peer: 1, Tag: 2, Size: 16, Req: 9},
			{Func: "MPI_Start", Kind: KStart, Reqs: []uint64{9}},
			{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{9}},
			{Func: "MPI_Start", Kind: KStart, Reqs: []uint64{9}},
			{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{9}},
			{Func: "MPI_Request_free", Kind: KRequestFree, Req: 9},
		},
		[]Call{recv(0, 2, 16), recv(0, 2, 16)},
	)
	s, _ := convertRun(t, tr, Options{})
	if sd := find(&s.Ranks[0], goal.Send, nil); len(sd) != 2 || !requires(&s.Ranks[0], sd[1], sd[0]) {
		t.Fatalf("sends %+v", s.Ranks[0].Ops)
	}
}

func TestComputeScale(t *testing.T) {
	tr := world([]Call{{Func: "MPI_Barrier", Kind: KColl, Coll: Barrier, CPU: 1000}}, []Call{{Func: "MPI_Barrier", Kind: KColl, Coll: Barrier, CPU: 10}})
	s, st := convertRun(t, tr, Options{ComputeScale: 2.5})
	if c := find(&s.Ranks[0], goal.Calc, func(o goal.Op) bool { return o.Size == 2500 }); len(c) != 1 || st.CalcNanos != 2525 {
		t.Fatalf("calcs %+v, CalcNanos %d", s.Ranks[0].Ops, st.CalcNanos)
	}
}

func TestUnknownCallsRefused(t *testing.T) {
	tr := world([]Call{{Func: "MPI_Put", Kind: KOther}, {Func: "MPI_Put", Kind: KOther}, {Func: "MPI_Win_fence", Kind: KOther}}, nil)
	var b bytes.Buffer
	_, err := Convert(&b, tr, Options{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "MPI_Put x2, MPI_Win_fence x1") || b.Len() != 0 {
		t.Fatalf("err %v, %d bytes", err, b.Len())
	}
	if _, st := convertRun(t, tr, Options{Approximate: true}); st.Unknown["MPI_Put"] != 2 {
		t.Errorf("Unknown %v", st.Unknown)
	}
}

// TestTunedChoice: points of Open MPI 4.1.4's fixed decisions (coll_tuned_decision_fixed.c).
func TestTunedChoice(t *testing.T) {
	for _, c := range []struct {
		coll Coll
		comm int
		size uint64
		want string
	}{
		{Allreduce, 2, 4, "ring"}, {Allreduce, 2, 100, "recursive_doubling"}, {Allreduce, 4, 8, "ring"},
		{Allreduce, 4, 100, "recursive_doubling"}, {Allreduce, 16, 1 << 20, "rabenseifner"},
		{Barrier, 2, 0, "recursive_doubling"}, {Barrier, 4, 0, "linear"}, {Barrier, 16, 0, "recursive_doubling"}, {Barrier, 100, 0, "bruck"},
		{Bcast, 2, 16, "pipeline"}, {Bcast, 2, 100, "binary_tree"},
		{Alltoall, 2, 8, "pairwise"}, {Alltoall, 2, 3, "two_proc"}, {Allgather, 2, 8, "two_proc"},
		{Gatherv, 16, 8, "basic_linear"}, {Scan, 16, 8, "linear"},
	} {
		if got := tunedChoice(c.coll, c.comm, c.size); got != c.want {
			t.Errorf("%s on %d ranks, %d bytes: %s, want %s", c.coll, c.comm, c.size, got, c.want)
		}
	}
}

// collTrace is every rank of n calling one collective on MPI_COMM_WORLD.
func collTrace(n int, coll Coll, size uint64) *Trace {
	tr := &Trace{Ranks: make([][]Call, n), Comms: map[uint64]Comm{}}
	for r := range tr.Ranks {
		c := Call{Func: "MPI_" + coll.String(), Kind: KColl, Coll: coll, Root: int32(n / 2), Size: size}
		switch coll {
		case Allgatherv, ReduceScatter:
			c.Counts = uniform(n, size)
			c.Counts[0] = 3 * size
		case Alltoallv:
			c.Counts = uniform(2*n, size)
		case Gatherv, Scatterv:
			if r == n/2 {
				c.Counts = uniform(n, size)
			}
		}
		tr.Ranks[r] = []Call{c}
	}
	return tr
}

// TestCollectiveAlgorithms: every algorithm of every collective, on 1 to 9 and 16 ranks,
// makes a schedule in which every message is received and every rank finishes.
func TestCollectiveAlgorithms(t *testing.T) {
	for coll := Barrier; coll < numColl; coll++ {
		for _, alg := range Algorithms(coll) {
			for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16} {
				t.Run(fmt.Sprintf("%s/%s/%d", coll, alg, n), func(t *testing.T) {
					convertRun(t, collTrace(n, coll, 1000), Options{Collectives: map[Coll]string{coll: alg}})
				})
			}
		}
	}
}

// TestCollectiveMessages: the messages of algorithms whose counts are known in closed form.
func TestCollectiveMessages(t *testing.T) {
	for _, c := range []struct {
		coll        Coll
		alg         string
		n           int
		size        uint64
		msgs, bytes int // all ranks together
	}{
		{Allreduce, "recursive_doubling", 8, 64, 8 * 3, 8 * 3 * 64},
		{Allreduce, "recursive_doubling", 6, 64, 2 + 4*2 + 2, (2 + 4*2 + 2) * 64}, // 2 fold in, 4 x log2(4), 2 served
		{Allreduce, "ring", 4, 4000, 4 * 6, 4 * 6 * 1000},
		{Bcast, "binomial", 7, 100, 6, 600},
		{Bcast, "basic_linear", 5, 100, 4, 400},
		{Barrier, "bruck", 5, 0, 5 * 3, 0},
		{Allgather, "ring", 5, 10, 5 * 4, 5 * 4 * 10},
		{Allgather, "recursive_doubling", 8, 10, 8 * 3, 8 * (10 + 20 + 40)},
		{Alltoall, "pairwise", 4, 10, 4 * 3, 4 * 3 * 10},
		{Alltoall, "linear", 4, 10, 4 * 3, 4 * 3 * 10},
		{Gather, "binomial", 8, 10, 7, 10 * (1 + 2 + 1 + 4 + 1 + 2 + 1)},
		{Reduce, "linear", 6, 8, 5, 40},
		{Scan, "linear", 5, 8, 4, 32},
	} {
		s, _ := convertRun(t, collTrace(c.n, c.coll, c.size), Options{Collectives: map[Coll]string{c.coll: c.alg}})
		msgs, bytes := 0, 0
		for r := range s.Ranks {
			for _, i := range find(&s.Ranks[r], goal.Send, nil) {
				msgs++
				bytes += int(s.Ranks[r].Ops[i].Size)
			}
		}
		if msgs != c.msgs || bytes != c.bytes {
			t.Errorf("%s/%s on %d ranks: %d messages of %d bytes, want %d of %d", c.coll, c.alg, c.n, msgs, bytes, c.msgs, c.bytes)
		}
	}
}

// TestCollectiveTagSpace: an any-tag receive and a collective on the same communicator are in
// different tag spaces: the receive cannot take the collective's message (it is counted).
func TestCollectiveTagSpace(t *testing.T) {
	tr := collTrace(2, Barrier, 0)
	tr.Ranks[0] = append(tr.Ranks[0], send(1, 1, 4))
	tr.Ranks[1] = append([]Call{{Func: "MPI_Irecv", Kind: KIrecv, Peer: 0, Tag: AnyTag, Size: 4, Req: 3}}, tr.Ranks[1]...)
	tr.Ranks[1] = append(tr.Ranks[1], Call{Func: "MPI_Wait", Kind: KComplete, Reqs: []uint64{3}})
	_, err := Convert(&bytes.Buffer{}, tr, Options{})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("an any-tag receive posted before a barrier with the same peer converted: %v", err)
	}
}

// TestConvertDeterministic: the same trace converts to the same bytes (communicators are
// numbered by id, not in map order).
func TestConvertDeterministic(t *testing.T) {
	tr := collTrace(6, Allreduce, 64)
	for i := uint64(1); i <= 5; i++ {
		tr.Comms[i<<32] = Comm{ID: i << 32, Members: []int32{0, 1, 2, 3, 4, 5}}
		for r := range tr.Ranks {
			tr.Ranks[r] = append(tr.Ranks[r], Call{Func: "MPI_Bcast", Kind: KColl, Coll: Bcast, Comm: i << 32, Size: 9 * i},
				Call{Func: "MPI_Send", Kind: KSend, Comm: i << 32, Peer: int32((r + 1) % 6), Tag: 1, Size: 8},
				Call{Func: "MPI_Recv", Kind: KRecv, Comm: i << 32, Peer: int32((r + 5) % 6), Tag: 1, Size: 8})
		}
	}
	var first string
	for i := 0; i < 5; i++ {
		var b bytes.Buffer
		if _, err := Convert(&b, tr, Options{}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b.String()
		} else if b.String() != first {
			t.Fatal("two conversions of one trace differ")
		}
	}
}

// BenchmarkConvert converts a 16-rank trace of a halo exchange (Irecv, Isend, Waitall) and an
// Allreduce per step: calls/s is the conversion's speed (docs/apps.md).
func BenchmarkConvert(b *testing.B) {
	const n, steps = 16, 1000
	tr := &Trace{Ranks: make([][]Call, n), Comms: map[uint64]Comm{}}
	for r := range tr.Ranks {
		for s := 0; s < steps; s++ {
			l, rt := int32((r+n-1)%n), int32((r+1)%n)
			tr.Ranks[r] = append(tr.Ranks[r],
				Call{Func: "MPI_Irecv", Kind: KIrecv, Peer: l, Tag: 1, Size: 4096, Req: 1, CPU: 1000},
				Call{Func: "MPI_Irecv", Kind: KIrecv, Peer: rt, Tag: 2, Size: 4096, Req: 2, CPU: 10},
				Call{Func: "MPI_Isend", Kind: KIsend, Peer: rt, Tag: 1, Size: 4096, Req: 3, CPU: 10},
				Call{Func: "MPI_Isend", Kind: KIsend, Peer: l, Tag: 2, Size: 4096, Req: 4, CPU: 10},
				Call{Func: "MPI_Waitall", Kind: KComplete, Reqs: []uint64{1, 2, 3, 4}, CPU: 10},
				Call{Func: "MPI_Allreduce", Kind: KColl, Coll: Allreduce, Size: 8, CPU: 500})
		}
	}
	calls := n * steps * 6
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Convert(io.Discard, tr, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// TestFallbackNamed: where coll/base runs another algorithm than the one chosen (an allreduce
// ring with fewer elements than ranks, recursive doubling on 6 ranks), the statistics name
// the one the schedule holds.
func TestFallbackNamed(t *testing.T) {
	_, st := convertRun(t, collTrace(8, Allreduce, 8), Options{Collectives: map[Coll]string{Allreduce: "ring"}})
	if st.Collectives["allreduce/recursive_doubling"] != 1 {
		t.Errorf("collectives %v", st.Collectives)
	}
	_, st = convertRun(t, collTrace(6, Allgather, 8), Options{Collectives: map[Coll]string{Allgather: "recursive_doubling"}})
	if st.Collectives["allgather/bruck"] != 1 {
		t.Errorf("collectives %v", st.Collectives)
	}
}
