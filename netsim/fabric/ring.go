package fabric

import "github.com/lhsim/lhsim/netsim"

// ring is a FIFO that keeps its first two items inside itself, next to the port that owns
// it, and spills into a slice of its own only while it holds more: a queue of the network
// (a VC's buffer, the packets landing at an input, the credits on their way back) holds
// zero, one or two items nearly always below saturation, so the common case touches one
// cache line, not the ring's header and then its storage somewhere else in memory.
type ring[T any] struct {
	head, n int32
	inl     [2]T
	big     *[]T // the spilled storage (a power of two), kept for the next spill
	spilled bool // the items live in *big
}

func (q *ring[T]) buf() []T {
	if q.spilled {
		return *q.big
	}
	return q.inl[:]
}

// len is the number of items.
func (q *ring[T]) len() int { return int(q.n) }

// front is the first item (the ring must not be empty).
func (q *ring[T]) front() *T {
	b := q.buf()
	return &b[q.head]
}

// back is the last item (the ring must not be empty).
func (q *ring[T]) back() *T {
	b := q.buf()
	return &b[(q.head+q.n-1)&int32(len(b)-1)]
}

func (q *ring[T]) push(x T) {
	b := q.buf()
	if int(q.n) == len(b) {
		var nb []T
		if q.big != nil && len(*q.big) > len(b) {
			nb = *q.big
		} else {
			nb = make([]T, max(8, 2*len(b)))
		}
		for i := range q.n {
			nb[i] = b[(q.head+i)&int32(len(b)-1)]
		}
		clear(b)
		q.big, q.spilled, q.head = &nb, true, 0
		b = nb
	}
	b[(q.head+q.n)&int32(len(b)-1)] = x
	q.n++
}

func (q *ring[T]) pop() T {
	b := q.buf()
	var zero T
	x := b[q.head]
	b[q.head] = zero
	q.head = (q.head + 1) & int32(len(b)-1)
	if q.n--; q.n == 0 {
		q.head, q.spilled = 0, false // back inside: the spilled storage waits for the next burst
	}
	return x
}

// packets is a FIFO of packets.
type packets struct{ ring[*Packet] }

// first is the first packet, or nil.
func (q *packets) first() *Packet {
	if q.n == 0 {
		return nil
	}
	return *q.front()
}

// timed is a packet with the time it is due, so that the next one's event can be scheduled
// without touching the packet.
type timed struct {
	at netsim.Time
	p  *Packet
}

// credit is buffer space on its way back upstream: flits that arrive at the sender at at.
type credit struct {
	at    netsim.Time
	flits int32
}

// outVC is the sender's view of one virtual channel of the buffer downstream: the free
// space counted so far, and a FIFO (in time order) of credits on their way back.
type outVC struct {
	free int32
	cr   ring[credit]
}
