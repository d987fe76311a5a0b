package fabric

// The booksim router's queues and buffers: the pipeline stages' queues, the VC buffers and the
// sender's view of the buffer downstream.

// iqEntry is an item of one of the router's pipeline queues (_route_vcs, _vc_alloc_vcs,
// _sw_alloc_vcs): the time its stage completes (-1: not yet evaluated), the input VC, and
// the stage's result.
type iqEntry struct {
	time      int64
	input, vc int32
	res       int32
}

type iqQueue struct {
	buf  []iqEntry
	head int
}

func (q *iqQueue) len() int { return len(q.buf) - q.head }

func (q *iqQueue) push(e iqEntry) {
	if q.head > 0 && q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	q.buf = append(q.buf, e)
}

func (q *iqQueue) front() *iqEntry { return &q.buf[q.head] }

func (q *iqQueue) pop() {
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head > 64 && q.head*2 > len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		q.buf, q.head = q.buf[:n], 0
	}
}

func (q *iqQueue) pending() []iqEntry { return q.buf[q.head:] }

// xbarEntry is a flit crossing the switch (_crossbar_flits).
type xbarEntry struct {
	time   int64
	f      iqFlit
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
