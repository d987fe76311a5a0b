package gosim

// Non-blocking host bus access, for callers that keep several requests in flight the way a
// pipelined host does (and for tests that stop a run with requests outstanding).

// PostRead queues a host bus read without waiting for it; the word it returns is written to
// *dst when the answer comes back (HostPending reaches zero once every request is answered).
func (b *Board) PostRead(addr uint32, dst *uint32) {
	b.ops = append(b.ops, hostOp{addr: addr, dst: dst})
}

// HostPending is the number of host bus requests queued or waiting for their answer.
func (b *Board) HostPending() int { return len(b.ops) + len(b.reads) }
