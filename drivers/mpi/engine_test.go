package mpi

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/stretchr/testify/require"
)

func send(t *testing.T, q Injector, src, tag, comm int32, body string) {
	t.Helper()
	require.NoError(t, Sender{Rank: src, Net: q}.Send(tag, comm, []byte(body)))
}

func recvNow(t *testing.T, e *Engine, p Pattern) *Request {
	t.Helper()
	r, err := e.Irecv(p)
	require.NoError(t, err)
	return r
}

func TestEnvelopeRoundTrip(t *testing.T) {
	m := Eager(3, 77, 5, []byte("hello"))
	require.Len(t, m, 21)
	env, err := ParseEnvelope(m)
	require.NoError(t, err)
	require.Equal(t, Envelope{Source: 3, Tag: 77, Comm: 5, Size: 21}, env)
	_, err = ParseEnvelope(m[:15])
	require.Error(t, err)
}

func TestMatchWildcards(t *testing.T) {
	env := Envelope{Source: 2, Tag: 9, Comm: 1}
	for _, tc := range []struct {
		p    Pattern
		ok   bool
		cmps int
	}{
		{Pattern{2, 9, 1}, true, 3},
		{Pattern{AnySource, 9, 1}, true, 2},
		{Pattern{2, AnyTag, 1}, true, 3}, // AnyTag tests the tag's sign
		{Pattern{AnySource, AnyTag, 1}, true, 2},
		{Pattern{AnySource, AnyTag, 2}, false, 1}, // communicator is never a wildcard
		{Pattern{3, 9, 1}, false, 2},
		{Pattern{2, 8, 1}, false, 3},
		{Pattern{AnySource, 8, 1}, false, 2},
	} {
		t.Run(fmt.Sprintf("%+v", tc.p), func(t *testing.T) {
			ok, n := tc.p.Match(env)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.cmps, n)
		})
	}
}

func TestUnexpectedThenReceive(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 10, 0, "a")
	send(t, q, 2, 20, 0, "b")
	send(t, q, 1, 30, 0, "c")
	r := recvNow(t, e, Pattern{1, 30, 0})
	require.True(t, r.Done(), "already unexpected: completes at once")
	require.Equal(t, "c", string(r.Data()))
	require.Equal(t, 2, r.Status().Depth)
	require.Equal(t, 2, e.Pending())
	r = recvNow(t, e, Pattern{AnySource, AnyTag, 0})
	require.Equal(t, "a", string(r.Data()), "wildcards take the oldest")
	r = recvNow(t, e, Pattern{AnySource, AnyTag, 0})
	require.Equal(t, "b", string(r.Data()))
	require.Equal(t, 0, e.Pending())
}

func TestPostedThenArrival(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	rAny := recvNow(t, e, Pattern{AnySource, AnyTag, 0})
	r5 := recvNow(t, e, Pattern{AnySource, 5, 0})
	rOther := recvNow(t, e, Pattern{AnySource, 5, 1})
	require.False(t, rAny.Done())
	require.Equal(t, 3, e.Posted())

	send(t, q, 4, 5, 0, "first")
	send(t, q, 4, 5, 0, "second")
	send(t, q, 4, 5, 2, "nobody")
	require.NoError(t, e.Progress())
	require.True(t, rAny.Done())
	require.Equal(t, "first", string(rAny.Data()), "an arrival goes to the oldest posted receive it matches")
	require.Equal(t, -1, rAny.Status().Depth)
	require.True(t, r5.Done())
	require.Equal(t, "second", string(r5.Data()))
	require.False(t, rOther.Done(), "communicator 1 gets nothing from communicator 0 or 2")
	require.Equal(t, 1, e.Pending())
}

func TestNonOvertaking(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	for i := 0; i < 5; i++ {
		send(t, q, 1, 7, 0, fmt.Sprint("one-", i))
		send(t, q, 2, 7, 0, fmt.Sprint("two-", i))
	}
	for i := 0; i < 5; i++ {
		r := recvNow(t, e, Pattern{2, 7, 0})
		require.Equal(t, fmt.Sprint("two-", i), string(r.Data()))
	}
	for i := 0; i < 5; i++ {
		r := recvNow(t, e, Pattern{AnySource, AnyTag, 0})
		require.Equal(t, fmt.Sprint("one-", i), string(r.Data()))
	}
}

func TestIprobeLeavesMessage(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "x")
	send(t, q, 1, 2, 0, "y")
	require.NoError(t, e.Progress())
	st, ok, err := e.Iprobe(Pattern{1, 2, 0})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1, st.Depth)
	require.Equal(t, 1, st.Size)
	_, ok, err = e.Iprobe(Pattern{1, 3, 0})
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, 2, e.Pending())
	_, err = e.Irecv(Pattern{-3, 0, 0})
	require.Error(t, err)
}

func TestSearchReadsEachEnvelopeOnce(t *testing.T) {
	q := NewMemQueue()
	var cpu countCPU
	e := testEngine(NewEngine(q, &cpu, DefaultCosts()))
	for i := 0; i < 100; i++ {
		send(t, q, 0, int32(i), 0, "")
	}
	require.NoError(t, e.Progress())
	require.Equal(t, 0, q.Reads, "no posted receive: arrivals are not read")
	_, ok, err := e.Iprobe(Pattern{0, 99, 0})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 100, q.Reads)
	c := DefaultCosts()
	require.Equal(t, c.CallInstr+100*(c.LoopInstr+3*c.FieldInstr), int(cpu))
}

type countCPU int

func (c *countCPU) Compute(n int) { *c += countCPU(n) }

// TestRandomAgainstEagerReference drives the engine with random sends and receives and checks
// every completion against a reference that applies MPI's two rules eagerly at each event.
// SEED replays a seed (a failure prints the command).
func TestRandomAgainstEagerReference(t *testing.T) {
	for _, seed := range testseed.List(t, 8) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			testseed.ReplayOnFailure(t, seed, "./drivers/mpi")
			rng := rand.New(rand.NewPCG(seed, 0))
			q := NewMemQueue()
			e := testEngine(NewEngine(q, nil, DefaultCosts()))
			type refRecv struct {
				p   Pattern
				got int // message index, -1 while posted
			}
			var (
				msgs     []Envelope
				refUnexp []int
				refPost  []*refRecv
				pairs    []struct {
					req *Request
					ref *refRecv
				}
			)
			for step := 0; step < 400; step++ {
				if rng.IntN(2) == 0 {
					src, tag, comm := int32(rng.IntN(3)), int32(rng.IntN(3)), int32(rng.IntN(2))
					idx := len(msgs)
					msgs = append(msgs, Envelope{Source: src, Tag: tag, Comm: comm})
					send(t, q, src, tag, comm, fmt.Sprint(idx))
					taken := false
					for i, r := range refPost {
						if ok, _ := r.p.Match(msgs[idx]); ok {
							r.got = idx
							refPost = append(refPost[:i], refPost[i+1:]...)
							taken = true
							break
						}
					}
					if !taken {
						refUnexp = append(refUnexp, idx)
					}
					if rng.IntN(3) == 0 {
						require.NoError(t, e.Progress())
					}
					continue
				}
				p := Pattern{Source: int32(rng.IntN(4)) - 1, Tag: int32(rng.IntN(4)) - 1, Comm: int32(rng.IntN(2))}
				ref := &refRecv{p: p, got: -1}
				for i, idx := range refUnexp {
					if ok, _ := p.Match(msgs[idx]); ok {
						ref.got = idx
						refUnexp = append(refUnexp[:i], refUnexp[i+1:]...)
						break
					}
				}
				if ref.got < 0 {
					refPost = append(refPost, ref)
				}
				req := recvNow(t, e, p)
				pairs = append(pairs, struct {
					req *Request
					ref *refRecv
				}{req, ref})
			}
			require.NoError(t, e.Progress())
			for i, pr := range pairs {
				if pr.ref.got < 0 {
					require.False(t, pr.req.Done(), "receive %d", i)
					continue
				}
				require.True(t, pr.req.Done(), "receive %d", i)
				require.Equal(t, fmt.Sprint(pr.ref.got), string(pr.req.Data()), "receive %d (%+v)", i, pr.ref.p)
			}
			require.Equal(t, len(refUnexp), e.Pending())
			require.Equal(t, len(refPost), e.Posted())
		})
	}
}
