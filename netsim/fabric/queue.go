package fabric

import "github.com/lhsim/lhsim/netsim"

// ring is a FIFO of packets. Its capacity is always a power of two. A ring inside the
// network's arrays starts on its own small array (inline, so that the ring's first packets
// sit in the ring's own cache line rather than in a buffer elsewhere on the heap); it moves
// to a larger one on the heap only when it outgrows it.
type ring struct {
	buf   []*Packet
	head  int32
	n     int32
	small [2]*Packet
}

// inline points q's buffer at its own small array: q must not move afterwards (it lives in
// a slice that is never grown).
func (q *ring) inline() { q.buf = q.small[:] }

func (q *ring) front() *Packet {
	if q.n == 0 {
		return nil
	}
	return q.buf[q.head]
}

func (q *ring) push(p *Packet) {
	if int(q.n) == len(q.buf) {
		nb := make([]*Packet, max(4, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)&int32(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&int32(len(q.buf)-1)] = p
	q.n++
}

func (q *ring) pop() *Packet {
	p := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & int32(len(q.buf)-1)
	q.n--
	return p
}

// credit is buffer space on its way back upstream: flits that arrive at the sender at at.
type credit struct {
	at    netsim.Time
	flits int32
}

// outVC is the sender's view of one virtual channel of the buffer downstream: the free
// space counted so far, and a FIFO (in time order) of credits on their way back (a power of
// two, inline while it fits its small array, as ring).
type outVC struct {
	free   int32
	head   int32
	n      int32
	nextAt netsim.Time // buf[head].at, when n > 0
	lastAt netsim.Time // the newest entry's at, when n > 0
	buf    []credit
	small  [1]credit
}

func (q *outVC) inline() { q.buf = q.small[:] }

func (q *outVC) push(c credit) {
	if q.n == 0 {
		q.nextAt = c.at
	}
	q.lastAt = c.at
	if int(q.n) == len(q.buf) {
		nb := make([]credit, max(2, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)&int32(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&int32(len(q.buf)-1)] = c
	q.n++
}
