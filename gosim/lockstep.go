package gosim

import "fmt"

// Lockstep runs two cores on the same inputs and compares every output on every cycle. The
// first core's outputs drive the board. Mismatch holds the first disagreement.
type Lockstep struct {
	A, B     Core
	cycle    uint64
	Mismatch error
}

// Reset resets both.
func (l *Lockstep) Reset() { l.A.Reset(); l.B.Reset() }

// Close closes both and returns the first disagreement, if any.
func (l *Lockstep) Close() error {
	ea, eb := l.A.Close(), l.B.Close()
	switch {
	case l.Mismatch != nil:
		return l.Mismatch
	case ea != nil:
		return ea
	}
	return eb
}

// Cycle clocks both cores with p's inputs and records the first cycle their outputs differ.
func (l *Lockstep) Cycle(p *Pins) {
	q := *p
	l.A.Cycle(p)
	l.B.Cycle(&q)
	if l.Mismatch == nil {
		if d := DiffOutputs(p, &q); d != "" {
			l.Mismatch = fmt.Errorf("lockstep: cycle %d after reset: %s", l.cycle, d)
		}
	}
	l.cycle++
}

// DiffOutputs describes how two cycles' outputs differ ("" when they agree).
func DiffOutputs(a, b *Pins) string {
	type field struct {
		name string
		x, y uint64
	}
	fs := []field{
		{"s_msg_tready", uint64(a.MsgReady), uint64(b.MsgReady)},
		{"m_mem_valid", uint64(a.MemValid), uint64(b.MemValid)},
		{"host_rvalid", uint64(a.HostRValid), uint64(b.HostRValid)},
		{"host_rdata", uint64(a.HostRData), uint64(b.HostRData)},
		{"ev_commit", uint64(a.EvCommit), uint64(b.EvCommit)},
		{"ev_msg_done", uint64(a.EvMsgDone), uint64(b.EvMsgDone)},
		{"ev_vec_done", uint64(a.EvVecDone), uint64(b.EvVecDone)},
	}
	if a.MemValid != 0 {
		fs = append(fs,
			field{"m_mem_write", uint64(a.MemWrite), uint64(b.MemWrite)},
			field{"m_mem_addr", uint64(a.MemAddr), uint64(b.MemAddr)})
		if a.MemWrite != 0 {
			fs = append(fs,
				field{"m_mem_wdata[63:0]", a.MemWData[0], b.MemWData[0]},
				field{"m_mem_wdata[127:64]", a.MemWData[1], b.MemWData[1]})
		}
	}
	for _, f := range fs {
		if f.x != f.y {
			return fmt.Sprintf("%s: %#x vs %#x", f.name, f.x, f.y)
		}
	}
	return ""
}
