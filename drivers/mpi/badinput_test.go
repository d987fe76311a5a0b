package mpi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
)

// Bad input through the host driver and the MPI layer (docs/bad-input.md cites these tests).

// newPathCfg is newPath with the host's whole configuration chosen by the test.
func newPathCfg(t *testing.T, hc drivers.Config) *path {
	t.Helper()
	cfg, err := device.FromEnv(device.Config{})
	require.NoError(t, err)
	if cfg.Model == "" {
		cfg.Model = device.Go
	}
	dev, err := device.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, dev.Close(), "closing the device (lockstep reports disagreement here)") })
	cpu, err := hostcpu.New(hostcpu.Pentium4())
	require.NoError(t, err)
	st, err := OpenStack(dev, cpu, hc)
	require.NoError(t, err)
	return &path{dev: dev, h: st.Host, m: st.Model, e: testEngine(st.Engine)}
}

// rawMessage is a message with envelope fields and size field chosen freely, then body.
func rawMessage(src, tag, comm int32, size uint32, body []byte) []byte {
	msg := make([]byte, EnvelopeBytes+len(body))
	Envelope{Source: src, Tag: tag, Comm: comm, Size: size}.Put(msg)
	copy(msg[EnvelopeBytes:], body)
	return msg
}

// TestTooLongMessageDoesNotJam (defect 4, LHS on): a message over MAX_MSG (tail dropped,
// TOO_LONG) is received with an error status; its entry is released, so more than ENTRIES
// later messages still arrive and are delivered.
func TestTooLongMessageDoesNotJam(t *testing.T) {
	p := newPathCfg(t, drivers.Config{LHS: true, SizePos: 12, MaxMsg: 256})
	require.NoError(t, p.dev.Inject(Eager(1, 5, 0, body(400, 9))))
	p.settle(t)
	r, err := p.e.Irecv(Pattern{1, 5, 0})
	require.NoError(t, err, "the receive that matches a too-long message completes")
	require.True(t, r.Done())
	checkTooLong(t, r)
	for i := 0; i < p.h.Entries()+8; i++ {
		require.NoError(t, p.dev.Inject(Eager(2, int32(i%100), 0, body(i%90, byte(i)))))
		p.settle(t)
		r, err := p.e.Irecv(Pattern{2, int32(i % 100), 0})
		require.NoError(t, err, "message %d after the too-long one", i)
		require.True(t, r.Done(), "message %d after the too-long one", i)
		require.Equal(t, body(i%90, byte(i)), r.Data(), "message %d", i)
	}
}

// TestTooLongWithPostedReceives (defect 4): with receives posted, the too-long message
// completes the first posted receive with an error and the next message the second one;
// Progress does not fail and no receive is dropped.
func TestTooLongWithPostedReceives(t *testing.T) {
	p := newPathCfg(t, drivers.Config{LHS: true, SizePos: 12, MaxMsg: 256})
	r1, err := p.e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	r2, err := p.e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.NoError(t, p.dev.Inject(Eager(1, 5, 0, body(400, 9))))
	require.NoError(t, p.dev.Inject(Eager(1, 6, 0, []byte("after"))))
	p.settle(t)
	require.NoError(t, p.e.Progress())
	require.True(t, r1.Done(), "the first posted receive took the too-long message")
	checkTooLong(t, r1)
	require.True(t, r2.Done(), "the second posted receive took the next message")
	require.Equal(t, "after", string(r2.Data()))
	require.Equal(t, 0, p.e.Posted())
}

// TestShortMessageSkipped (defect 5): a message shorter than the envelope is skipped and
// released; receives on every communicator go on.
func TestShortMessageSkipped(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	require.NoError(t, q.Inject([]byte{1, 2, 3, 4, 5, 6, 7, 8}))
	send(t, q, 1, 1, 0, "zero")
	send(t, q, 1, 1, 1, "one")
	r, err := e.Irecv(Pattern{1, 1, 1})
	require.NoError(t, err)
	require.Equal(t, "one", string(r.Data()))
	r, err = e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, "zero", string(r.Data()))
	require.Equal(t, 0, e.Pending())
	checkSkipped(t, e, q, 1, ErrShort)
}

// TestShortMessageSkippedPosted (defect 5): the same with the receives posted first.
func TestShortMessageSkippedPosted(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	r0, err := e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.NoError(t, q.Inject([]byte{1, 2, 3}))
	send(t, q, 1, 1, 0, "zero")
	require.NoError(t, e.Progress())
	require.True(t, r0.Done())
	require.Equal(t, "zero", string(r0.Data()))
	checkSkipped(t, e, q, 1, ErrShort)
}

// TestMemQueueBodyShort (defect 5): MemQueue.Body on a message shorter than the envelope
// returns an error instead of panicking.
func TestMemQueueBodyShort(t *testing.T) {
	q := NewMemQueue()
	require.NoError(t, q.Inject([]byte{1, 2, 3}))
	_, err := q.Body(0)
	require.Error(t, err)
}

// TestShortMessageSkippedOnDevice (defect 5) through both receive paths of the device.
func TestShortMessageSkippedOnDevice(t *testing.T) {
	forBothPaths(t, func(t *testing.T, lhs bool) {
		p := newPathCfg(t, drivers.Config{LHS: lhs, SizePos: 12})
		require.NoError(t, p.dev.Inject([]byte{1, 2, 3, 4, 5, 6, 7, 8}))
		require.NoError(t, p.dev.Inject(Eager(1, 1, 0, []byte("zero"))))
		require.NoError(t, p.dev.Inject(Eager(1, 1, 1, body(100, 3))))
		p.settle(t)
		r, err := p.e.Irecv(Pattern{1, 1, 1})
		require.NoError(t, err)
		require.Equal(t, body(100, 3), r.Data())
		r, err = p.e.Irecv(Pattern{AnySource, AnyTag, 0})
		require.NoError(t, err)
		require.Equal(t, "zero", string(r.Data()))
		require.Equal(t, 0, p.e.Pending())
		checkSkippedDevice(t, p)
	})
}

// flakyQueue fails the next Body read (a bus or bridge error, not a bad message).
type flakyQueue struct {
	*MemQueue
	failBody int
}

var errBus = errors.New("bus error")

func (q *flakyQueue) Body(id uint64) ([]byte, error) {
	if q.failBody > 0 {
		q.failBody--
		return nil, errBus
	}
	return q.MemQueue.Body(id)
}

// TestReadErrorKeepsPostedReceive (defect 6): a read error during Progress is returned, and
// the posted receive stays posted; the next Progress completes it with the message.
func TestReadErrorKeepsPostedReceive(t *testing.T) {
	q := &flakyQueue{MemQueue: NewMemQueue()}
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	r, err := e.Irecv(Pattern{1, 1, 0})
	require.NoError(t, err)
	send(t, q, 1, 1, 0, "x")
	q.failBody = 1
	require.ErrorIs(t, e.Progress(), errBus)
	require.False(t, r.Done())
	require.Equal(t, 1, e.Posted(), "the receive is still posted")
	require.NoError(t, e.Progress())
	require.True(t, r.Done())
	require.Equal(t, "x", string(r.Data()))
}

// TestReadErrorKeepsUnexpectedMessage (defect 6): a read error in Irecv leaves the message
// in the unexpected queue; the next Irecv takes it.
func TestReadErrorKeepsUnexpectedMessage(t *testing.T) {
	q := &flakyQueue{MemQueue: NewMemQueue()}
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "x")
	require.NoError(t, e.Progress())
	q.failBody = 1
	_, err := e.Irecv(Pattern{1, 1, 0})
	require.ErrorIs(t, err, errBus)
	require.Equal(t, 1, e.Pending())
	r, err := e.Irecv(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.Equal(t, "x", string(r.Data()))
}

// TestSendRefusesOversized (defect 7): a body that would make a message over MAX_MSG (or
// past the 32-bit size field) is refused at the sender, never dropped on the way.
func TestSendRefusesOversized(t *testing.T) {
	q := NewMemQueue()
	s := Sender{Rank: 1, Net: q}
	require.Error(t, s.Send(1, 0, make([]byte, 0xFFFF)), "MAX_MSG is 0xFFFF by default")
	require.NoError(t, s.Send(1, 0, make([]byte, 0xFFFF-EnvelopeBytes)))
	s.MaxMsg = 256
	require.Error(t, s.Send(1, 0, make([]byte, 256-EnvelopeBytes+1)))
	require.NoError(t, s.Send(1, 0, make([]byte, 256-EnvelopeBytes)))
	n, _ := q.Arrived()
	require.EqualValues(t, 2, n, "refused sends put nothing on the wire")
}

// TestSendOversizedLHSOff (defect 7, LHS off): the NIC would drop an oversized message
// whole; the sender refuses it, and a wildcard receive gets the next message it is sent.
func TestSendOversizedLHSOff(t *testing.T) {
	p := newPathCfg(t, drivers.Config{LHS: false, SizePos: 12, MaxMsg: 512})
	s := Sender{Rank: 1, Net: p.dev, MaxMsg: MaxMessage(p.h.Config())}
	require.Error(t, s.Send(1, 0, body(600, 1)))
	require.NoError(t, s.Send(2, 0, body(100, 2)))
	p.settle(t)
	r, err := p.e.Irecv(Pattern{1, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, int32(2), r.Status().Tag)
}

// TestStatusSizeIsDelivered (defect 8): Size is the bytes delivered; the size field's claim
// is reported apart, with an error saying they disagree.
func TestStatusSizeIsDelivered(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	require.NoError(t, q.Inject(rawMessage(1, 1, 0, 0xFFFFFFFF, []byte("abc"))))
	r, err := e.Irecv(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.Equal(t, 3, r.Status().Size)
	checkDeclared(t, r, 0xFFFFFFFF-EnvelopeBytes)
}

// TestWaitNilRequest (defect 9): Wait(nil) is an error, not a panic.
func TestWaitNilRequest(t *testing.T) {
	e := testEngine(NewEngine(NewMemQueue(), nil, DefaultCosts()))
	require.Error(t, e.Wait(nil, nil, 10))
}

// TestIprobeMakesProgress (defect 9, MPI-4.0 §3.8.1): Iprobe takes in arrivals itself.
func TestIprobeMakesProgress(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "x")
	_, ok, err := e.Iprobe(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.True(t, ok, "a sent message is seen by a repeated Iprobe without a separate Progress")
}

// TestWireSourceMinusOne (defect 9): a message whose source rank reads -1 (ANY_SOURCE) on
// the wire is not a message of any rank: it is skipped, and wildcards take the next one.
func TestWireSourceMinusOne(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	require.NoError(t, q.Inject(Eager(-1, 1, 0, []byte("forged"))))
	require.NoError(t, q.Inject(Eager(3, 1, 0, []byte("real"))))
	r, err := e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, "real", string(r.Data()))
	require.Equal(t, int32(3), r.Status().Source)
	checkSkipped(t, e, q, 1, ErrBadEnvelope)
}

// TestAnyTagSkipsReserved (defect 9): tags below ANY_TAG are the library's; ANY_TAG does not
// match them, an explicit reserved tag does.
func TestAnyTagSkipsReserved(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	require.NoError(t, q.Inject(Eager(1, -5, 0, []byte("library"))))
	require.NoError(t, q.Inject(Eager(1, 3, 0, []byte("user"))))
	r, err := e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, "user", string(r.Data()))
	r, err = e.Irecv(Pattern{1, -5, 0})
	require.NoError(t, err)
	require.True(t, r.Done())
	require.Equal(t, "library", string(r.Data()))
}

// TestBadCommunicatorRefused (defect 9): a receive on a communicator the engine does not
// know, or from a rank outside it, is refused.
func TestBadCommunicatorRefused(t *testing.T) {
	e := testEngine(NewEngine(NewMemQueue(), nil, DefaultCosts()))
	_, err := e.Irecv(Pattern{1, 1, -3})
	require.Error(t, err)
	checkUnknownComm(t, e)
}

// testEngine knows communicators 0..3 of 8 ranks, which the tests use.
func testEngine(e *Engine) *Engine {
	for c := int32(0); c < 4; c++ {
		if err := e.AddComm(c, 8); err != nil {
			panic(err)
		}
	}
	return e
}

func checkTooLong(t *testing.T, r *Request) {
	t.Helper()
	st := r.Status()
	require.ErrorIs(t, st.Err, ErrTooLong)
	require.ErrorIs(t, st.Err, ErrTruncate, "too long is MPI_ERR_TRUNCATE-like")
	require.Equal(t, 400, st.Declared)
	require.Equal(t, 48-EnvelopeBytes, st.Size, "the head the NIC kept, up to SPLIT_POS")
	require.Equal(t, body(400, 9)[:st.Size], r.Data())
}

// checkSkipped: n arrivals were skipped, and every arrival of q has been consumed.
func checkSkipped(t *testing.T, e *Engine, q *MemQueue, n int, why error) {
	t.Helper()
	require.Equal(t, n, e.Skipped())
	require.ErrorIs(t, e.LastSkip(), why, "%v", e.LastSkip())
	arrived, _ := q.Arrived()
	for id := uint64(0); id < arrived; id++ {
		require.True(t, q.consumed[id], "message %d released", id)
	}
}

// checkSkippedDevice: one arrival skipped, and the device holds nothing unreleased.
func checkSkippedDevice(t *testing.T, p *path) {
	t.Helper()
	require.Equal(t, 1, p.e.Skipped())
	require.ErrorIs(t, p.e.LastSkip(), ErrShort)
	used, err := p.dev.ReadReg(hw.RegTailUsed)
	require.NoError(t, err)
	require.Zero(t, used, "tail ring released")
	prod, err := p.dev.ReadReg(hw.RegLHProd)
	require.NoError(t, err)
	cons, err := p.dev.ReadReg(hw.RegLHCons)
	require.NoError(t, err)
	require.Equal(t, prod, cons, "LH entries released")
}

func checkDeclared(t *testing.T, r *Request, n int) {
	t.Helper()
	require.Equal(t, n, r.Status().Declared)
	require.ErrorIs(t, r.Status().Err, ErrMismatch)
}

func checkUnknownComm(t *testing.T, e *Engine) {
	t.Helper()
	_, err := e.Irecv(Pattern{1, 1, 9})
	require.ErrorIs(t, err, ErrComm)
	_, err = e.Irecv(Pattern{8, 1, 0})
	require.ErrorIs(t, err, ErrRank, "communicator 0 has ranks 0..7")
	_, _, err = e.Iprobe(Pattern{-3, 1, 0})
	require.ErrorIs(t, err, ErrRank)
	// A message on an unknown communicator is skipped, with the ones after it received.
	q := NewMemQueue()
	e = testEngine(NewEngine(q, nil, DefaultCosts()))
	require.NoError(t, q.Inject(Eager(1, 1, 9, []byte("nobody"))))
	require.NoError(t, q.Inject(Eager(9, 1, 0, []byte("no such rank"))))
	require.NoError(t, q.Inject(Eager(1, 1, 0, []byte("real"))))
	r, err := e.Irecv(Pattern{AnySource, 1, 0})
	require.NoError(t, err)
	require.Equal(t, "real", string(r.Data()))
	checkSkipped(t, e, q, 2, ErrBadEnvelope)
}

// TestIrecvIntoTruncates (defect 9, MPI-4.0 §3.2.4): a message longer than the receive
// buffer fills it and completes with ErrTruncate; the message is released.
func TestIrecvIntoTruncates(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "0123456789")
	send(t, q, 1, 1, 0, "ab")
	buf := make([]byte, 4)
	r, err := e.IrecvInto(Pattern{1, 1, 0}, buf)
	require.NoError(t, err)
	require.True(t, r.Done())
	require.ErrorIs(t, r.Status().Err, ErrTruncate)
	require.Equal(t, 4, r.Status().Size)
	require.Equal(t, 10, r.Status().Declared)
	require.Equal(t, "0123", string(buf))
	r, err = e.IrecvInto(Pattern{1, 1, 0}, buf)
	require.NoError(t, err)
	require.NoError(t, r.Status().Err)
	require.Equal(t, "ab", string(r.Data()))
	require.True(t, q.consumed[0] && q.consumed[1])
}

// TestCancelPostedReceive (defect 9, MPI-4.0 §3.8.4): a cancelled posted receive completes
// as cancelled and takes no message; a completed receive is not cancelled.
func TestCancelPostedReceive(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	r, err := e.Irecv(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.NoError(t, e.Cancel(r))
	require.True(t, r.Done())
	require.True(t, r.Status().Cancelled)
	require.Equal(t, 0, e.Posted())
	send(t, q, 1, 1, 0, "x")
	r2, err := e.Irecv(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.Equal(t, "x", string(r2.Data()), "the cancelled receive took nothing")
	require.NoError(t, e.Cancel(r2))
	require.False(t, r2.Status().Cancelled)
	require.Error(t, e.Cancel(nil))
}

// TestProcNull (defect 9, MPI-4.0 §3.10): receives and probes of PROC_NULL complete at once.
func TestProcNull(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "x")
	r, err := e.Irecv(Pattern{ProcNull, 1, 0})
	require.NoError(t, err)
	require.True(t, r.Done())
	require.Equal(t, Status{Source: ProcNull, Tag: AnyTag, Comm: 0, ID: NoMessage, Depth: -1}, r.Status())
	require.Empty(t, r.Data())
	st, ok, err := e.Iprobe(Pattern{ProcNull, AnyTag, 0})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, ProcNull, st.Source)
	m, ok, err := e.Improbe(Pattern{ProcNull, AnyTag, 0})
	require.NoError(t, err)
	require.True(t, ok)
	r, err = e.Mrecv(m, nil)
	require.NoError(t, err)
	require.Equal(t, ProcNull, r.Status().Source)
	r, err = e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, "x", string(r.Data()), "the real message is untouched")
}

// TestMprobeMrecv (defect 9, MPI-4.0 §3.8.2-3.8.3): a matched probe takes the message, so
// no receive can take it before the Mrecv.
func TestMprobeMrecv(t *testing.T) {
	q := NewMemQueue()
	e := testEngine(NewEngine(q, nil, DefaultCosts()))
	send(t, q, 1, 1, 0, "first")
	send(t, q, 1, 1, 0, "second")
	m, ok, err := e.Improbe(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 5, m.Status().Size)
	r, err := e.Irecv(Pattern{AnySource, AnyTag, 0})
	require.NoError(t, err)
	require.Equal(t, "second", string(r.Data()), "the probed message is no longer matchable")
	r, err = e.Mrecv(m, nil)
	require.NoError(t, err)
	require.Equal(t, "first", string(r.Data()))
	_, err = e.Mrecv(m, nil)
	require.Error(t, err, "a message is received once")
	_, ok, err = e.Improbe(Pattern{1, 1, 0})
	require.NoError(t, err)
	require.False(t, ok)
}

// TestMatchReservedTag: ANY_TAG does not match a reserved tag; the tag itself does.
func TestMatchReservedTag(t *testing.T) {
	env := Envelope{Source: 1, Tag: ReservedTagMax - 3, Comm: 0}
	ok, _ := Pattern{AnySource, AnyTag, 0}.Match(env)
	require.False(t, ok)
	ok, _ = Pattern{1, ReservedTagMax - 3, 0}.Match(env)
	require.True(t, ok)
}
