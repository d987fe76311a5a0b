package booksim

// The booksim router's queues and buffers: the pipeline stages' queues, the VC buffers and the
// sender's view of the buffer downstream.

// entry is an item of one of the router's pipeline queues (_route_vcs, _vc_alloc_vcs,
// _sw_alloc_vcs): the time its stage completes (-1: not yet evaluated), the input VC, and
// the stage's result. 16 bytes: a router's queues stay in a few cache lines.
type entry struct {
	time  int64
	res   int32
	input uint16 // a router has at most 65535 ports (New)
	vc    int16
}

// queue is a FIFO on a ring whose size is a power of two. An input VC has at most one
// entry in its router's three queues, so a ring of the router's VCs never grows; it would
// if that broke. An emptied ring starts again at its first slot.
type queue struct {
	buf     []entry
	head, n uint32
}

func newQueue(size int) queue {
	c := 4
	for c < size {
		c *= 2
	}
	return queue{buf: make([]entry, c)}
}

func (q *queue) len() int { return int(q.n) }

func (q *queue) push(e entry) {
	if int(q.n) == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&uint32(len(q.buf)-1)] = e
	q.n++
}

// grow doubles the ring (out of line: push stays small enough to be inlined).
//
//go:noinline
func (q *queue) grow() {
	b := make([]entry, 2*len(q.buf))
	for i := range q.n {
		b[i] = q.buf[(q.head+i)&uint32(len(q.buf)-1)]
	}
	q.buf, q.head = b, 0
}

func (q *queue) front() *entry { return &q.buf[q.head] }

// at is the i-th entry from the front, i < len.
func (q *queue) at(i int) *entry { return &q.buf[(q.head+uint32(i))&uint32(len(q.buf)-1)] }

func (q *queue) pop() {
	q.n--
	if q.n == 0 {
		q.head = 0
	} else {
		q.head = (q.head + 1) & uint32(len(q.buf)-1)
	}
}

// xbarEntry is a flit crossing the switch (_crossbar_flits).
type xbarEntry struct {
	time   int64
	f      flit
	output int32
}

// bufState is a terminal's view of the VCs of its router's input buffer (buffer_state.cpp
// with the private buffer policy): who holds each VC and how many of its slots are taken.
// The routers keep theirs per output in iqRouter.next.
type bufState struct {
	inUse []int32 // the node that holds it, -1 free (_in_use_by)
	occ   []int32 // flits sent and not yet credited (_vc_occupancy)
	size  int32   // vc_buf_size
}

func newBufState(v, size int) bufState {
	b := bufState{inUse: make([]int32, v), occ: make([]int32, v), size: int32(size)}
	for i := range b.inUse {
		b.inUse[i] = -1
	}
	return b
}

func (b *bufState) available(vc int) bool { return b.inUse[vc] < 0 }

func (b *bufState) full(vc int) bool { return b.occ[vc] >= b.size }

// sending is BufferState::SendingFlit: one more slot taken; a tail frees the VC for the
// next packet (wait_for_tail_credit = 0).
func (b *bufState) sending(vc int16, tail bool) {
	b.occ[vc]++
	if tail {
		b.inUse[vc] = -1
	}
}
