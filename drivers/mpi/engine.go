package mpi

import (
	"errors"
	"fmt"
)

// Queue is the unexpected-message queue as the host sees it. Messages are numbered 0, 1, 2, ...
// in arrival order; the numbering never restarts. The engine reads envelopes every time it
// searches (it keeps no host-side copy: the paper's point is where the envelopes live).
type Queue interface {
	// Arrived is the number of messages that have arrived so far.
	Arrived() (uint64, error)
	// Envelope reads message id's envelope.
	Envelope(id uint64) (Envelope, error)
	// Body reads message id's body (the bytes after the envelope).
	Body(id uint64) ([]byte, error)
	// Consume tells the queue that message id has been received; it may free its storage.
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

// Status describes a received or probed message.
type Status struct {
	Source int32
	Tag    int32
	Comm   int32
	Size   int    // body bytes
	ID     uint64 // arrival number
	Depth  int    // messages searched past before this one (0: the oldest); -1 for a posted receive
}

// Request is one receive. Posted receives complete during Progress.
type Request struct {
	pattern Pattern
	done    bool
	status  Status
	data    []byte
}

// Done reports whether the receive has its message.
func (r *Request) Done() bool { return r.done }

// Status is valid once Done.
func (r *Request) Status() Status { return r.status }

// Data is the received body, valid once Done.
func (r *Request) Data() []byte { return r.data }

// Engine matches receives against arrivals with MPI's rules: a receive takes the oldest
// matching unexpected message; an arrival goes to the oldest matching posted receive. Messages
// between one sender and one receiver arrive in send order, so these two rules give MPI's
// non-overtaking order.
type Engine struct {
	q     Queue
	cpu   Computer
	costs Costs

	seen       uint64   // arrivals 0..seen-1 have been sorted into unexpected or matched
	unexpected []uint64 // ids in arrival order, not yet received
	posted     []*Request
}

// NewEngine makes an engine over q. cpu may be nil.
func NewEngine(q Queue, cpu Computer, costs Costs) *Engine {
	return &Engine{q: q, cpu: cpu, costs: costs}
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

// Progress takes in new arrivals: each goes to the oldest posted receive it matches, or joins
// the unexpected queue. With no receive posted it does not read envelopes at all.
func (e *Engine) Progress() error {
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
		env, err := e.q.Envelope(id)
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
		r := e.posted[matched]
		e.posted = append(e.posted[:matched], e.posted[matched+1:]...)
		if err := e.complete(r, id, env, -1); err != nil {
			return err
		}
	}
	return nil
}

// search walks the unexpected queue from its oldest message and returns the position of the
// first match, or -1.
func (e *Engine) search(p Pattern) (pos int, env Envelope, err error) {
	e.charge(e.costs.CallInstr)
	for i, id := range e.unexpected {
		env, err := e.q.Envelope(id)
		if err != nil {
			return -1, Envelope{}, err
		}
		ok, cmp := p.Match(env)
		e.charge(e.costs.LoopInstr + cmp*e.costs.FieldInstr)
		if ok {
			return i, env, nil
		}
	}
	return -1, Envelope{}, nil
}

func checkPattern(p Pattern) error {
	if p.Source < AnySource || p.Tag < AnyTag {
		return fmt.Errorf("mpi: bad receive pattern %+v", p)
	}
	return nil
}

// Irecv starts a receive: it takes in arrivals, then searches the unexpected queue; with no
// match the receive is posted and completes in a later Progress.
func (e *Engine) Irecv(p Pattern) (*Request, error) {
	if err := checkPattern(p); err != nil {
		return nil, err
	}
	if err := e.Progress(); err != nil {
		return nil, err
	}
	r := &Request{pattern: p}
	pos, env, err := e.search(p)
	if err != nil {
		return nil, err
	}
	if pos < 0 {
		e.posted = append(e.posted, r)
		return r, nil
	}
	id := e.unexpected[pos]
	e.unexpected = append(e.unexpected[:pos], e.unexpected[pos+1:]...)
	return r, e.complete(r, id, env, pos)
}

// Iprobe searches the unexpected queue like Irecv but leaves the message there. It does not
// take in new arrivals: call Progress first (the search-time experiment times the search alone).
func (e *Engine) Iprobe(p Pattern) (Status, bool, error) {
	if err := checkPattern(p); err != nil {
		return Status{}, false, err
	}
	pos, env, err := e.search(p)
	if err != nil || pos < 0 {
		return Status{}, false, err
	}
	return statusOf(env, e.unexpected[pos], pos), true, nil
}

// ErrNoProgress is returned by Wait when the step function stops bringing messages.
var ErrNoProgress = errors.New("mpi: receive not satisfied")

// Wait calls step (which lets the network and the NIC run) and Progress until r is done, at
// most limit times.
func (e *Engine) Wait(r *Request, step func() error, limit int) error {
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

func statusOf(env Envelope, id uint64, depth int) Status {
	size := int(env.Size) - EnvelopeBytes
	if size < 0 {
		size = 0
	}
	return Status{Source: env.Source, Tag: env.Tag, Comm: env.Comm, Size: size, ID: id, Depth: depth}
}

func (e *Engine) complete(r *Request, id uint64, env Envelope, depth int) error {
	body, err := e.q.Body(id)
	if err != nil {
		return err
	}
	if err := e.q.Consume(id); err != nil {
		return err
	}
	r.data = body
	r.status = statusOf(env, id, depth)
	r.done = true
	return nil
}
