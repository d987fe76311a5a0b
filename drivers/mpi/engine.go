package mpi

import (
	"errors"
	"fmt"
)

// Queue is the unexpected-message queue as the host sees it. Messages are numbered 0, 1, 2, ...
// in arrival order; the numbering never restarts. The engine reads envelopes every time it
// searches (it keeps no host-side copy: the paper's point is where the envelopes live).
//
// Two kinds of error come out of a queue. A *MessageError says that one message is damaged
// (shorter than its envelope, its tail dropped, its size field wrong): the queue itself is
// fine, and the message can still be consumed, which frees its storage. Any other error is
// the queue failing to read (a bus or bridge error): nothing was taken, and the same call may
// be made again.
type Queue interface {
	// Arrived is the number of messages that have arrived so far.
	Arrived() (uint64, error)
	// Envelope reads message id's envelope; a *MessageError (ErrShort) when the message has
	// none.
	Envelope(id uint64) (Envelope, error)
	// Body reads message id's body (the bytes after the envelope). With a *MessageError it
	// returns what was delivered of a damaged message (ErrTooLong, ErrMismatch), or nothing
	// (ErrShort).
	Body(id uint64) ([]byte, error)
	// Consume tells the queue that message id has been received or skipped; it may free its
	// storage.
	Consume(id uint64) error
}

// Computer is the host timing model's instruction clock (hostcpu.CPU has it). The engine
// charges the search loop's instructions to it; nil charges nothing.
type Computer interface {
	Compute(instructions int)
}

// Costs are the instructions the engine's loops take on the modelled host. The defaults are
// counted from gcc -O0 -m32 output of the paper's search loop (docs/search.md shows it): per
// queued message, 4 instructions of loop control plus 8 per field compared (recompute the
// entry address from the stack-resident index, load the field, compare, branch).
type Costs struct {
	LoopInstr  int // per message examined
	FieldInstr int // per field compared
	CallInstr  int // per receive or probe call (argument set-up, queue bookkeeping)
}

// DefaultCosts is the -O0 search loop of docs/search.md.
func DefaultCosts() Costs { return Costs{LoopInstr: 4, FieldInstr: 8, CallInstr: 40} }

// Errors of a message or a receive, tested with errors.Is on Status.Err, on the error a
// *MessageError wraps, or on what a call returned.
var (
	// ErrTruncate is MPI_ERR_TRUNCATE (MPI-4.0 §3.2.4: a message longer than the receive
	// buffer; §3.2.5: the status then counts the bytes that were placed in the buffer).
	ErrTruncate = errors.New("mpi: message truncated (MPI_ERR_TRUNCATE)")
	// ErrTooLong is a message over the receiving NIC's MAX_MSG: with LHS on the NIC kept its
	// head and dropped its tail (entry flag TOO_LONG). It wraps ErrTruncate.
	ErrTooLong = fmt.Errorf("message over the NIC's MAX_MSG, its tail was dropped: %w", ErrTruncate)
	// ErrMismatch is a message whose size field disagrees with the bytes that arrived.
	ErrMismatch = errors.New("mpi: size field disagrees with the bytes delivered")
	// ErrShort is a message with no whole envelope: under 16 bytes, or a size field under 16.
	// It cannot be matched; the engine skips it.
	ErrShort = errors.New("mpi: message shorter than its 16-byte envelope")
	// ErrBadEnvelope is an envelope no rank could have sent: a negative source rank (-1
	// would read as ANY_SOURCE), tag -1 (ANY_TAG), a source outside its communicator. The
	// engine skips such a message.
	ErrBadEnvelope = errors.New("mpi: envelope names no sender")
	// ErrComm is a communicator the engine does not know (AddComm).
	ErrComm = errors.New("mpi: unknown communicator")
	// ErrRank is a rank outside its communicator.
	ErrRank = errors.New("mpi: rank outside the communicator")
	// ErrSendTooLong is a send the receiver could not take whole: over its MAX_MSG (or its
	// tail ring). Sends are eager only (there is no rendezvous path), so it is refused at
	// the sender rather than dropped on the way.
	ErrSendTooLong = errors.New("mpi: message over the receiver's limit")
)

// MessageError is what went wrong with one message.
type MessageError struct {
	ID     uint64 // arrival number
	Err    error  // ErrShort, ErrTooLong, ErrMismatch, ErrBadEnvelope, ErrTruncate
	Detail string // what the queue or the engine saw
}

func (e *MessageError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("message %d: %v", e.ID, e.Err)
	}
	return fmt.Sprintf("message %d: %v (%s)", e.ID, e.Err, e.Detail)
}

func (e *MessageError) Unwrap() error { return e.Err }

func badMessage(id uint64, err error, format string, args ...any) *MessageError {
	return &MessageError{ID: id, Err: err, Detail: fmt.Sprintf(format, args...)}
}

func isMessageError(err error) bool {
	var me *MessageError
	return errors.As(err, &me)
}

// ProcNull is MPI_PROC_NULL (MPI-4.0 §3.10, "Null MPI Processes"; §3.11 in MPI-3.1): a
// receive from it completes at once with source ProcNull, tag AnyTag and no data; a probe of
// it finds that at once.
const ProcNull int32 = -2

// ReservedTagMax is the highest tag of the range the library keeps for itself: tags below
// AnyTag (-2 and lower). User sends cannot use them and AnyTag does not match them; a
// receive naming one exactly does (the way MPI libraries carry their own protocols, such as
// collectives, on the point-to-point path without a user's wildcard taking them).
const ReservedTagMax int32 = -2

// NoMessage is the ID in the status of a receive that took no message (PROC_NULL, Cancel).
const NoMessage = ^uint64(0)

// Status describes a received or probed message.
type Status struct {
	Source int32
	Tag    int32
	Comm   int32
	// Size is the body bytes delivered to the receive (MPI_Get_count). For a probe, which
	// reads no body, it is the body the size field declares.
	Size int
	// Declared is the body the size field declares: the size field less the envelope (0 when
	// the field is smaller). It differs from Size when the message was damaged or truncated.
	Declared int
	ID       uint64 // arrival number (NoMessage when the receive took none)
	Depth    int    // messages searched past before this one (0: the oldest); -1 for a posted receive
	// Err is nil for a whole message, else a *MessageError saying what happened to it:
	// errors.Is ErrTruncate (the receive buffer or the NIC cut it; ErrTooLong for the NIC),
	// or ErrMismatch. The receive completed and its message was released either way.
	Err error
	// Cancelled is set on a receive that Cancel removed before it matched (MPI-4.0 §3.8.4,
	// MPI_Test_cancelled).
	Cancelled bool
}

// Request is one receive. Posted receives complete during Progress.
type Request struct {
	pattern Pattern
	limit   int    // receive buffer bytes; -1: no limit (Irecv)
	buf     []byte // IrecvInto's buffer
	done    bool
	status  Status
	data    []byte
}

// Done reports whether the receive has its message (or was cancelled).
func (r *Request) Done() bool { return r.done }

// Status is valid once Done.
func (r *Request) Status() Status { return r.status }

// Data is the received body, valid once Done: a slice of IrecvInto's buffer, or a new slice.
func (r *Request) Data() []byte { return r.data }

// Engine matches receives against arrivals with MPI's rules: a receive takes the oldest
// matching unexpected message; an arrival goes to the oldest matching posted receive. Messages
// between one sender and one receiver arrive in send order, so these two rules give MPI's
// non-overtaking order.
//
// Bad input never jams it: a message with no whole envelope, or an envelope no rank could
// have sent, is skipped (counted in Skipped) and consumed so its storage is freed; a damaged
// message (tail dropped by the NIC, size field wrong) completes its receive with Status.Err;
// and when the queue cannot be read the call fails with every receive and message where it
// was, so the next call goes on.
type Engine struct {
	q     Queue
	cpu   Computer
	costs Costs
	comms map[int32]int // communicator -> number of ranks

	seen       uint64   // arrivals 0..seen-1 have been sorted into unexpected or matched
	unexpected []uint64 // ids in arrival order, not yet received
	posted     []*Request
	skipped    int
	lastSkip   error
	unreleased []uint64 // received or skipped, but Consume failed: retried by Progress
}

// NewEngine makes an engine over q. cpu may be nil. It knows no communicator yet: AddComm
// each one before traffic on it starts.
func NewEngine(q Queue, cpu Computer, costs Costs) *Engine {
	return &Engine{q: q, cpu: cpu, costs: costs, comms: map[int32]int{}}
}

// AddComm makes communicator comm, of ranks 0..size-1, known to the engine. Receives on
// other communicators are refused (ErrComm), and messages arriving on them are skipped: a
// communicator exists on every member before any of them sends on it.
func (e *Engine) AddComm(comm int32, size int) error {
	if comm < 0 || size < 1 {
		return fmt.Errorf("mpi: communicator %d of %d ranks: want comm >= 0, size >= 1", comm, size)
	}
	e.comms[comm] = size
	return nil
}

func (e *Engine) charge(n int) {
	if e.cpu != nil && n > 0 {
		e.cpu.Compute(n)
	}
}

// Pending is the number of messages in the unexpected queue (as of the last Progress).
func (e *Engine) Pending() int { return len(e.unexpected) }

// Posted is the number of receives waiting for a message.
func (e *Engine) Posted() int { return len(e.posted) }

// Skipped is the number of arrivals the engine dropped as unmatchable (ErrShort,
// ErrBadEnvelope); LastSkip says why it dropped the last one.
func (e *Engine) Skipped() int { return e.skipped }

// LastSkip is the *MessageError of the last skipped arrival, or nil.
func (e *Engine) LastSkip() error { return e.lastSkip }

// check says why message id, with envelope env, cannot be matched, or nil.
func (e *Engine) check(id uint64, env Envelope) error {
	if env.Size < EnvelopeBytes {
		return badMessage(id, ErrShort, "size field %d", env.Size)
	}
	n, ok := e.comms[env.Comm]
	switch {
	case !ok:
		return badMessage(id, ErrBadEnvelope, "communicator %d is unknown", env.Comm)
	case env.Source < 0 || int64(env.Source) >= int64(n):
		return badMessage(id, ErrBadEnvelope, "source rank %d, communicator %d has %d", env.Source, env.Comm, n)
	case env.Tag == AnyTag:
		return badMessage(id, ErrBadEnvelope, "tag %d is ANY_TAG", env.Tag)
	}
	return nil
}

// envelope reads message id's envelope and checks it; a *MessageError means skip it.
func (e *Engine) envelope(id uint64) (Envelope, error) {
	env, err := e.q.Envelope(id)
	if err != nil {
		return Envelope{}, err
	}
	if err := e.check(id, env); err != nil {
		return Envelope{}, err
	}
	return env, nil
}

// skip counts an unmatchable message and consumes it so its storage is freed.
func (e *Engine) skip(id uint64, why error) error {
	e.skipped++
	e.lastSkip = why
	return e.consume(id)
}

// consume hands message id back to the queue. When that fails the message is remembered and
// Progress tries again: a message the host is done with is never left holding its storage
// (with LHS on an unreleased entry would stop the in-order release, and then the NIC).
func (e *Engine) consume(id uint64) error {
	if err := e.q.Consume(id); err != nil {
		e.unreleased = append(e.unreleased, id)
		return err
	}
	return nil
}

// release retries the Consumes that failed.
func (e *Engine) release() error {
	for len(e.unreleased) > 0 {
		if err := e.q.Consume(e.unreleased[0]); err != nil {
			return err
		}
		e.unreleased = e.unreleased[1:]
	}
	return nil
}

// Progress takes in new arrivals: each goes to the oldest posted receive it matches, or joins
// the unexpected queue. With no receive posted it does not read envelopes at all.
func (e *Engine) Progress() error {
	if err := e.release(); err != nil {
		return err
	}
	n, err := e.q.Arrived()
	if err != nil {
		return err
	}
	for ; e.seen < n; e.seen++ {
		id := e.seen
		if len(e.posted) == 0 {
			e.unexpected = append(e.unexpected, id)
			continue
		}
		env, err := e.envelope(id)
		if isMessageError(err) {
			if err := e.skip(id, err); err != nil {
				e.seen++ // skipped all the same; its release is retried
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		matched := -1
		for i, r := range e.posted {
			ok, cmp := r.pattern.Match(env)
			e.charge(e.costs.LoopInstr + cmp*e.costs.FieldInstr)
			if ok {
				matched = i
				break
			}
		}
		if matched < 0 {
			e.unexpected = append(e.unexpected, id)
			continue
		}
		// The receive leaves the posted list only once it has its message: a read error
		// leaves both where they were (seen does not move), for the next Progress.
		r := e.posted[matched]
		if err := e.deliver(r, id, env, -1); err != nil {
			return err
		}
		e.posted = append(e.posted[:matched], e.posted[matched+1:]...)
		if err := e.consume(id); err != nil {
			e.seen++
			return err
		}
	}
	return nil
}

// search walks the unexpected queue from its oldest message and returns the position of the
// first match, or -1. Messages it finds unmatchable it skips on the way.
func (e *Engine) search(p Pattern) (pos int, env Envelope, err error) {
	e.charge(e.costs.CallInstr)
	for i := 0; i < len(e.unexpected); {
		id := e.unexpected[i]
		env, err := e.envelope(id)
		if isMessageError(err) {
			e.unexpected = append(e.unexpected[:i], e.unexpected[i+1:]...)
			if err := e.skip(id, err); err != nil {
				return -1, Envelope{}, err
			}
			continue
		}
		if err != nil {
			return -1, Envelope{}, err
		}
		ok, cmp := p.Match(env)
		e.charge(e.costs.LoopInstr + cmp*e.costs.FieldInstr)
		if ok {
			return i, env, nil
		}
		i++
	}
	return -1, Envelope{}, nil
}

// checkPattern refuses a receive no message could match: an unknown communicator, a source
// outside it.
func (e *Engine) checkPattern(p Pattern) error {
	n, ok := e.comms[p.Comm]
	if !ok {
		return fmt.Errorf("%w %d", ErrComm, p.Comm)
	}
	if p.Source != AnySource && p.Source != ProcNull && (p.Source < 0 || int64(p.Source) >= int64(n)) {
		return fmt.Errorf("%w: source %d, communicator %d has %d ranks", ErrRank, p.Source, p.Comm, n)
	}
	return nil
}

// procNull is the status of a receive or probe from ProcNull (MPI-4.0 §3.10).
func procNull(p Pattern) Status {
	return Status{Source: ProcNull, Tag: AnyTag, Comm: p.Comm, ID: NoMessage, Depth: -1}
}

// Irecv starts a receive with no limit on the message's length: it takes in arrivals, then
// searches the unexpected queue; with no match the receive is posted and completes in a later
// Progress. With an error, a returned request has its message (the error was releasing it);
// a nil one means no receive was started and no message taken.
func (e *Engine) Irecv(p Pattern) (*Request, error) {
	return e.irecv(p, &Request{pattern: p, limit: -1})
}

// IrecvInto is Irecv into buf: a longer message fills buf and completes the receive with
// Status.Err wrapping ErrTruncate (MPI-4.0 §3.2.4); Data is then buf[:Status.Size].
func (e *Engine) IrecvInto(p Pattern, buf []byte) (*Request, error) {
	return e.irecv(p, &Request{pattern: p, limit: len(buf), buf: buf})
}

func (e *Engine) irecv(p Pattern, r *Request) (*Request, error) {
	if err := e.checkPattern(p); err != nil {
		return nil, err
	}
	if p.Source == ProcNull {
		r.done, r.status, r.data = true, procNull(p), r.buf[:0:0]
		return r, nil
	}
	if err := e.Progress(); err != nil {
		return nil, err
	}
	pos, env, err := e.search(p)
	if err != nil {
		return nil, err
	}
	if pos < 0 {
		e.posted = append(e.posted, r)
		return r, nil
	}
	if err := e.take(r, pos, env); err != nil {
		if !r.done {
			return nil, err // the message stays queued; no receive was started
		}
		return r, err // received; only releasing the message failed (Progress retries it)
	}
	return r, nil
}

// take completes r with the unexpected message at pos; a read error leaves the message there.
func (e *Engine) take(r *Request, pos int, env Envelope) error {
	id := e.unexpected[pos]
	if err := e.deliver(r, id, env, pos); err != nil {
		return err
	}
	e.unexpected = append(e.unexpected[:pos], e.unexpected[pos+1:]...)
	return e.consume(id)
}

// Iprobe takes in arrivals and searches the unexpected queue like Irecv, but leaves the
// message there. Repeated Iprobes therefore see a sent message eventually (MPI-4.0 §3.8.1).
func (e *Engine) Iprobe(p Pattern) (Status, bool, error) {
	if err := e.checkPattern(p); err != nil {
		return Status{}, false, err
	}
	if p.Source == ProcNull {
		return procNull(p), true, nil
	}
	if err := e.Progress(); err != nil {
		return Status{}, false, err
	}
	return e.Search(p)
}

// Search is Iprobe without taking in arrivals: the unexpected queue as of the last Progress.
// The search-time experiment times this loop alone.
func (e *Engine) Search(p Pattern) (Status, bool, error) {
	if err := e.checkPattern(p); err != nil {
		return Status{}, false, err
	}
	pos, env, err := e.search(p)
	if err != nil || pos < 0 {
		return Status{}, false, err
	}
	return probeStatus(env, e.unexpected[pos], pos), true, nil
}

// Message is a message a matched probe took from the unexpected queue: no other receive or
// probe can match it, and only Mrecv receives it (MPI-4.0 §3.8.2, MPI_Message).
type Message struct {
	id     uint64
	env    Envelope
	depth  int
	noProc bool // MPI_MESSAGE_NO_PROC: a probe of ProcNull
	used   bool // received (MPI_MESSAGE_NULL)
}

// Status is what the probe saw.
func (m *Message) Status() Status {
	if m.noProc {
		return procNull(Pattern{Comm: m.env.Comm})
	}
	return probeStatus(m.env, m.id, m.depth)
}

// Improbe is MPI_Improbe (MPI-4.0 §3.8.2): Iprobe that also takes the message out of the
// unexpected queue, so that the probe and the receive that follows cannot race with another
// receive.
func (e *Engine) Improbe(p Pattern) (*Message, bool, error) {
	if err := e.checkPattern(p); err != nil {
		return nil, false, err
	}
	if p.Source == ProcNull {
		return &Message{noProc: true, env: Envelope{Comm: p.Comm}}, true, nil
	}
	if err := e.Progress(); err != nil {
		return nil, false, err
	}
	pos, env, err := e.search(p)
	if err != nil || pos < 0 {
		return nil, false, err
	}
	m := &Message{id: e.unexpected[pos], env: env, depth: pos}
	e.unexpected = append(e.unexpected[:pos], e.unexpected[pos+1:]...)
	return m, true, nil
}

// Mrecv receives a message Improbe took (MPI_Mrecv, MPI-4.0 §3.8.3); buf as in IrecvInto, nil
// for no limit. A message is received once.
func (e *Engine) Mrecv(m *Message, buf []byte) (*Request, error) {
	if m == nil || m.used {
		return nil, errors.New("mpi: Mrecv of no message (MPI_MESSAGE_NULL)")
	}
	r := &Request{limit: -1}
	if buf != nil {
		r.limit, r.buf = len(buf), buf
	}
	if m.noProc {
		m.used = true
		r.done, r.status, r.data = true, m.Status(), r.buf[:0:0]
		return r, nil
	}
	if err := e.deliver(r, m.id, m.env, m.depth); err != nil {
		return nil, err // m stays unreceived: Mrecv may be called again
	}
	m.used = true
	return r, e.consume(m.id)
}

// Cancel cancels a posted receive (MPI-4.0 §3.8.4): it leaves the posted list and completes
// with Status.Cancelled. A receive that already has its message is left as it is (the
// cancel fails, as MPI_Test_cancelled then says).
func (e *Engine) Cancel(r *Request) error {
	if r == nil {
		return errors.New("mpi: Cancel of a nil request")
	}
	for i, p := range e.posted {
		if p == r {
			e.posted = append(e.posted[:i], e.posted[i+1:]...)
			r.done = true
			r.status = Status{Source: r.pattern.Source, Tag: r.pattern.Tag, Comm: r.pattern.Comm,
				ID: NoMessage, Depth: -1, Cancelled: true}
			r.data = r.buf[:0:0]
			return nil
		}
	}
	return nil
}

// ErrNoProgress is returned by Wait when the step function stops bringing messages.
var ErrNoProgress = errors.New("mpi: receive not satisfied")

// Wait calls step (which lets the network and the NIC run) and Progress until r is done, at
// most limit times.
func (e *Engine) Wait(r *Request, step func() error, limit int) error {
	if r == nil {
		return errors.New("mpi: Wait on a nil request")
	}
	for i := 0; !r.done; i++ {
		if i >= limit {
			return ErrNoProgress
		}
		if step != nil {
			if err := step(); err != nil {
				return err
			}
		}
		if err := e.Progress(); err != nil {
			return err
		}
	}
	return nil
}

func declared(env Envelope) int {
	return max(0, int(env.Size)-EnvelopeBytes)
}

func probeStatus(env Envelope, id uint64, depth int) Status {
	d := declared(env)
	return Status{Source: env.Source, Tag: env.Tag, Comm: env.Comm, Size: d, Declared: d, ID: id, Depth: depth}
}

// deliver reads message id's body into r and completes it. It fails, changing nothing, only
// when the queue could not be read; a damaged message completes r with Status.Err.
func (e *Engine) deliver(r *Request, id uint64, env Envelope, depth int) error {
	body, err := e.q.Body(id)
	var why error
	switch {
	case isMessageError(err):
		why = err
	case err != nil:
		return err
	case len(body) != declared(env):
		why = badMessage(id, ErrMismatch, "size field declares %d body bytes, %d arrived", declared(env), len(body))
	}
	if r.limit >= 0 && len(body) > r.limit {
		if why == nil {
			why = badMessage(id, ErrTruncate, "%d body bytes, receive buffer %d", len(body), r.limit)
		}
		body = body[:r.limit]
	}
	if r.buf != nil {
		body = r.buf[:copy(r.buf, body)]
	}
	r.data = body
	r.status = Status{Source: env.Source, Tag: env.Tag, Comm: env.Comm, Size: len(body),
		Declared: declared(env), ID: id, Depth: depth, Err: why}
	r.done = true
	return nil
}
