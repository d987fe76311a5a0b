package mpi

import "fmt"

// MemQueue is a Queue held in host memory, with no timing: the reference the device queues
// are checked against, and what the engine's own tests run on.
type MemQueue struct {
	msgs     [][]byte
	consumed map[uint64]bool
	// Reads counts Envelope calls (how many envelopes searches have looked at).
	Reads int
}

// NewMemQueue makes an empty queue.
func NewMemQueue() *MemQueue { return &MemQueue{consumed: map[uint64]bool{}} }

// Inject makes a message arrive (MemQueue is also an Injector).
func (q *MemQueue) Inject(msg []byte) error {
	q.msgs = append(q.msgs, append([]byte(nil), msg...))
	return nil
}

// Arrived implements Queue.
func (q *MemQueue) Arrived() (uint64, error) { return uint64(len(q.msgs)), nil }

func (q *MemQueue) get(id uint64) ([]byte, error) {
	if id >= uint64(len(q.msgs)) {
		return nil, fmt.Errorf("mpi: message %d has not arrived", id)
	}
	if q.consumed[id] {
		return nil, fmt.Errorf("mpi: message %d was consumed", id)
	}
	return q.msgs[id], nil
}

// Envelope implements Queue.
func (q *MemQueue) Envelope(id uint64) (Envelope, error) {
	m, err := q.get(id)
	if err != nil {
		return Envelope{}, err
	}
	q.Reads++
	if len(m) < EnvelopeBytes {
		return Envelope{}, badMessage(id, ErrShort, "%d bytes", len(m))
	}
	return ParseEnvelope(m)
}

// Body implements Queue.
func (q *MemQueue) Body(id uint64) ([]byte, error) {
	m, err := q.get(id)
	if err != nil {
		return nil, err
	}
	if len(m) < EnvelopeBytes {
		return nil, badMessage(id, ErrShort, "%d bytes", len(m))
	}
	out := make([]byte, len(m)-EnvelopeBytes)
	copy(out, m[EnvelopeBytes:])
	return out, nil
}

// Consume implements Queue.
func (q *MemQueue) Consume(id uint64) error {
	if _, err := q.get(id); err != nil {
		return err
	}
	q.consumed[id] = true
	return nil
}
