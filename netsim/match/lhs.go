package match

import (
	"fmt"
	"math"
	"slices"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/netsim/goal"
)

// LHSRTLEntries is the LH buffer of the Verilated receive path (the RTL build's): on RTL
// nodes the lhs matcher runs it, and the Go model beside it, with this many entries.
const LHSRTLEntries = 1024

// LHSEntries is the LH buffer of the lhs matcher: 512 entries, the largest with a
// checked-in Yosys report (synth-reports: lhs_rx ENTRIES=512). On RTL nodes the receive path
// is the RTL build's, of LHSRTLEntries.
const LHSEntries = 512

// lhsKind is lhs: the LHS receive path for the unexpected queue, posted receives in the
// host's list.
var lhsKind = Kind{Name: "lhs", NIC: true,
	RTL: func(Spec) bool { return true },
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		l, err := newLHSQueue(b.u, &b.set.cfg, b.rtl)
		if err != nil {
			return nil, nil, fmt.Errorf("match: node %d's LHS receive path: %w", b.rank, err)
		}
		b.u.lhs = l
		return &listQueue{b.list(postedBase)}, l, nil
	},
	Area: func(Spec) []AreaTerm { return lhsArea() },
}

// hybridKind is lhs+alpu:N: LHS for the unexpected queue, an ALPU of N cells for posted
// receives.
var hybridKind = Kind{Name: "lhs+alpu", Params: []Param{{Name: "N", Min: 1, Max: MaxCells}}, NIC: true, Policies: true,
	RTL: func(s Spec) bool { return s.Arg(0) <= RTLCells },
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		p := newALPUQueue(b.u, b.u.cpu, &b.set.cfg.Costs, b.spec.Arg(0), postedBase, "posted", b.spec.Full())
		if b.rtl {
			if err := b.u.attachRTL(p); err != nil {
				return nil, nil, err
			}
		}
		l, err := newLHSQueue(b.u, &b.set.cfg, b.rtl)
		if err != nil {
			b.u.closeRTL()
			return nil, nil, fmt.Errorf("match: node %d's LHS receive path: %w", b.rank, err)
		}
		b.u.lhs = l
		return p, l, nil
	},
	Area: func(s Spec) []AreaTerm { return append(lhsArea(), alpuArea(s.Arg(0), 1)) },
}

// lhsArea is what LHS adds to the receive path: lhs_rx with LHSEntries entries less lhs_rx
// with LHS=0 (Table 1's increment).
func lhsArea() []AreaTerm {
	e := AreaParam{Name: "ENTRIES", Value: LHSEntries}
	return []AreaTerm{{Top: "lhs_rx", Params: []AreaParam{e}, Count: 1},
		{Top: "lhs_rx", Params: []AreaParam{e, {Name: "LHS", Value: 0}}, Count: -1}}
}

// lhsQueue is the unexpected queue on the LHS paper's receive path (lhs, lhs+alpu:N): each
// arriving message runs into the node's NIC (NIC: the device, in device cycles that cost the
// host nothing), and a receive's search is the host model running the paper's loop over the
// LH entries, then taking the message and releasing its entry. The NIC is the Go model of
// the receive path; on RTL nodes it is the Verilated RTL, with the Go model beside it doing
// the same, checked after every operation: the same message matched at the same depth, the
// same host time, the same device cycle. A message the host moved off a full LH buffer
// into host memory (mpi.LHSQueue.Spill) and matched there counts as a fallback.
type lhsQueue struct {
	u     *unit
	nic   *NIC // the one that charges: the RTL on RTL nodes, else the Go model
	model *NIC // on RTL nodes, the Go model checked against it
	ent   map[uint64]goal.Entry
	order []uint64 // arrival numbers queued, oldest first
	// fault, in tests, changes what the model side is given (a fault in the model).
	fault   func(e *goal.Entry)
	nc      NICConfig
	rtl     bool
	openErr error
}

func newLHSQueue(u *unit, cfg *Config, rtl bool) (*lhsQueue, error) {
	return &lhsQueue{u: u, ent: map[uint64]goal.Entry{}, fault: cfg.lhsFault, nc: cfg.NIC, rtl: rtl}, nil
}

// open opens the node's NIC (and on RTL nodes the model beside it) when the queue is first
// used: a rank that never receives needs none.
func (q *lhsQueue) open() bool {
	if q.nic != nil || q.openErr != nil {
		return q.openErr == nil
	}
	nc := q.nc
	nc.LHS = true
	nc.Model = device.Go
	if q.rtl {
		nc.Entries = LHSRTLEntries
		nc.Model = device.RTL
	}
	nic, err := OpenNIC(nc)
	if err == nil && q.rtl {
		nc.Model = device.Go
		if q.model, err = OpenNIC(nc); err != nil {
			nic.Close()
		}
	}
	if err != nil {
		q.openErr = err
		q.u.fail(fmt.Errorf("node %d's LHS receive path: %w", q.u.rank, err))
		return false
	}
	q.nic = nic
	return true
}

func (q *lhsQueue) close() error {
	if q.nic == nil {
		return nil
	}
	err := q.nic.Close()
	if q.model != nil {
		if e := q.model.Close(); err == nil {
			err = e
		}
	}
	q.nic, q.model = nil, nil
	return err
}

// int32s converts a source or tag for the NIC's envelope (goal.Any is MPI's wildcard).
func (q *lhsQueue) int32s(src, tag uint32) (int32, int32, bool) {
	conv := func(v uint32) (int32, bool) {
		if v == goal.Any {
			return -1, true
		}
		return int32(v), v <= math.MaxInt32
	}
	s, ok1 := conv(src)
	t, ok2 := conv(tag)
	return s, t, ok1 && ok2
}

func (q *lhsQueue) where(what string) string {
	return fmt.Sprintf("node %d, unexpected queue (LHS), %s, device cycle %d", q.u.rank, what, q.nic.Cycle())
}

func (q *lhsQueue) Push(e goal.Entry) {
	src, tag, ok := q.int32s(e.Src, e.Tag)
	if !ok || src < 0 || tag < 0 {
		q.u.fail(fmt.Errorf("node %d: message from %d tag %d (line %d) does not fit the MPI envelope's 32-bit signed source and tag", q.u.rank, e.Src, e.Tag, e.Line))
		return
	}
	if !q.open() {
		return
	}
	msg := fmt.Sprintf("message from %d tag %d (line %d)", e.Src, e.Tag, e.Line)
	id, err := q.nic.Arrive(src, tag)
	if err != nil {
		q.u.fail(fmt.Errorf("%s: %w", q.where(msg), err))
		return
	}
	if q.model != nil {
		m := e
		if q.fault != nil {
			q.fault(&m)
		}
		ms, mt, _ := q.int32s(m.Src, m.Tag)
		mid, err := q.model.Arrive(ms, mt)
		switch {
		case err != nil:
			q.u.fail(fmt.Errorf("%s: the Go model: %w", q.where(msg), err))
		case mid != id || q.model.Cycle() != q.nic.Cycle():
			q.u.fail(fmt.Errorf("%s: the LHS RTL took it as arrival %d at device cycle %d, the Go model as %d at %d", q.where(msg), id, q.nic.Cycle(), mid, q.model.Cycle()))
		}
		q.u.rtlOps++
	}
	q.ent[id] = e
	q.order = append(q.order, id)
}

func (q *lhsQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	s, t, ok := q.int32s(src, tag)
	if !ok {
		q.u.fail(fmt.Errorf("node %d: a receive from %d tag %d does not fit the MPI envelope's 32-bit signed source and tag", q.u.rank, src, tag))
		return goal.Entry{}, 0, false
	}
	if !q.open() {
		return goal.Entry{}, 0, false
	}
	recv := fmt.Sprintf("receive from %s tag %s", anyStr(src), anyStr(tag))
	id, depth, found, ps, err := q.nic.Take(s, t)
	if err != nil {
		q.u.fail(fmt.Errorf("%s: %w", q.where(recv), err))
		return goal.Entry{}, 0, false
	}
	if q.model != nil {
		mid, md, mfound, mps, err := q.model.Take(s, t)
		show := func(found bool, id uint64, d int, ps int64, cyc uint64) string {
			if !found {
				return fmt.Sprintf("no match in %d ps, at device cycle %d", ps, cyc)
			}
			e := q.ent[id]
			return fmt.Sprintf("the message from %d tag %d (line %d) at depth %d in %d ps, at device cycle %d", e.Src, e.Tag, e.Line, d, ps, cyc)
		}
		switch {
		case err != nil:
			q.u.fail(fmt.Errorf("%s: the Go model: %w", q.where(recv), err))
		case mfound != found || mid != id || md != depth || mps != ps || q.model.Cycle() != q.nic.Cycle():
			q.u.fail(fmt.Errorf("%s: the LHS RTL matched %s; the Go model %s", q.where(recv), show(found, id, depth, ps, q.nic.Cycle()), show(mfound, mid, md, mps, q.model.Cycle())))
		}
		q.u.rtlOps++
	}
	q.u.hwPs += uint64(ps)
	if !found {
		return goal.Entry{}, 0, false
	}
	if q.nic.Spilled(id) {
		q.u.fallbacks++ // moved off the full LH buffer, found in host memory
	} else {
		q.u.nicMatches++
	}
	e := q.ent[id]
	delete(q.ent, id)
	i := slices.Index(q.order, id)
	q.order = slices.Delete(q.order, i, i+1)
	return e, depth + 1, true
}

func (q *lhsQueue) Len() int { return len(q.order) }

func (q *lhsQueue) Entries() []goal.Entry {
	out := make([]goal.Entry, len(q.order))
	for i, id := range q.order {
		out[i] = q.ent[id]
	}
	return out
}
