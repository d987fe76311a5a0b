package match

import (
	"fmt"

	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// The ALPU's match field, as the matcher packs an envelope into rtl/alpu.v's 42 bits
// (FIELD_W): the source in the top 16 bits, the tag in the low 26. A source or tag that
// does not fit stops the run with an error naming it.
const (
	alpuTagBits = 26
	alpuSrcBits = 16
	alpuTagMask = uint64(1)<<alpuTagBits - 1
	alpuSrcMask = (uint64(1)<<alpuSrcBits - 1) << alpuTagBits
)

// The ALPU's timing, from rtl/alpu.v: an insert takes effect at the clock edge that accepts it
// (one cycle); a request is registered when accepted, compared in the next cycle and answered
// in the one after (three cycles from driving the request to taking the response). On RTL
// nodes alpuRTL checks both on every operation (TestALPUFillsAndFallsBackInOrder runs it). The
// single-cycle insert is also the ALPU patent's (US 8,688,903, Hemmert and Underwood: "inserts
// to occur in a single clock cycle" when not full).
const (
	ALPUInsertCycles = 1
	ALPUSearchCycles = 3
)

// alpuField packs src and tag, with the don't-care mask of their wildcards; ok is false when
// they do not fit the field.
func alpuField(src, tag uint32) (field, mask uint64, ok bool) {
	if src != goal.Any {
		if uint64(src) >= 1<<alpuSrcBits {
			return 0, 0, false
		}
		field |= uint64(src) << alpuTagBits
	} else {
		mask |= alpuSrcMask
	}
	if tag != goal.Any {
		if uint64(tag) > alpuTagMask {
			return 0, 0, false
		}
		field |= uint64(tag)
	} else {
		mask |= alpuTagMask
	}
	return field, mask, true
}

type hwEntry struct {
	goal.Entry
	field, mask uint64
	ptr         uint16
}

// alpuQueue is alpu:N for one queue: an ALPU of N cells (Underwood, Hemmert, Rodrigues et al.,
// IPDPS 2005; rtl/alpu.v) in front of a software list. An entry goes into the ALPU when the
// software list is empty and a cell is free, else to the end of the software list; so every
// entry in hardware is older than every entry in software, and a search asks the ALPU first
// and walks the software list only on a miss (a match found there "fell back to software").
// When a match frees a cell, the software moves the oldest entries of its list into the ALPU
// while there is room (each a load of the entry and an insert), so the queue goes back to
// hardware as it drains. Neither step reorders the queue.
type alpuQueue struct {
	u     *unit
	cells int
	hw    []hwEntry // oldest first
	sw    *swList
	ptrs  []bool // pointers in use (the ALPU returns the pointer of the entry it deletes)
	free  []uint16
	rtl   *alpuRTL // nil: the model alone
	which string   // "posted" or "unexpected", for the fault report
	mode  mode
}

func newALPUQueue(u *unit, cpu *hostcpu.CPU, c *Costs, cells int, base uint64, which string, policy Policy) *alpuQueue {
	q := &alpuQueue{u: u, cells: cells, sw: newSWList(cpu, c, base), which: which, mode: mode{u: u, policy: policy}}
	u.queues++
	for p := cells - 1; p >= 0; p-- {
		q.free = append(q.free, uint16(p))
	}
	return q
}

func (q *alpuQueue) hwCycles(n int) { q.u.hwPs += uint64(n) * q.u.cyclePs }

// insert puts e into a free cell.
func (q *alpuQueue) insert(e goal.Entry, field, mask uint64) {
	p := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	q.hw = append(q.hw, hwEntry{Entry: e, field: field, mask: mask, ptr: p})
	q.hwCycles(ALPUInsertCycles)
	if q.rtl != nil {
		q.rtl.insert(q, field, mask, p, e)
	}
}

func (q *alpuQueue) Push(e goal.Entry) {
	defer func() { q.mode.note(q.sw.len()) }()
	if q.sw.len() == 0 && !q.mode.onloaded && len(q.hw) < q.cells {
		if field, mask, ok := alpuField(e.Src, e.Tag); ok {
			q.insert(e, field, mask)
			return
		}
	}
	if _, _, ok := alpuField(e.Src, e.Tag); !ok {
		q.u.fail(fmt.Errorf("%s queue: source %d, tag %d (line %d) do not fit the ALPU's %d-bit source and %d-bit tag", q.which, e.Src, e.Tag, e.Line, alpuSrcBits, alpuTagBits))
	}
	if q.mode.policy == Onload && !q.mode.onloaded && len(q.hw) == q.cells {
		q.onload()
	}
	q.sw.push(e, 0)
}

// onload moves every entry from the ALPU to the software list, oldest first: each a search
// that matches anything (the oldest cell answers), a load of its response and an append.
func (q *alpuQueue) onload() {
	q.mode.onloaded = true
	all := alpuSrcMask | alpuTagMask
	for len(q.hw) > 0 {
		q.hwCycles(ALPUSearchCycles)
		if q.rtl != nil {
			q.rtl.search(q, 0, all, 0, goal.Any, goal.Any)
		}
		e := q.hw[0]
		q.hw = q.hw[1:]
		q.free = append(q.free, e.ptr)
		q.sw.cpu.Compute(q.sw.c.PushInstr)
		q.sw.push(e.Entry, 0)
	}
}

func (q *alpuQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	defer func() { q.mode.note(q.sw.len()) }()
	field, mask, fits := alpuField(src, tag)
	if !fits {
		q.u.fail(fmt.Errorf("%s queue: source %d, tag %d do not fit the ALPU's %d-bit source and %d-bit tag", q.which, src, tag, alpuSrcBits, alpuTagBits))
		return goal.Entry{}, 0, false
	}
	if len(q.hw) > 0 {
		q.hwCycles(ALPUSearchCycles)
		hit := -1
		for i := range q.hw {
			e := &q.hw[i]
			care := ^e.mask & ^mask
			if (e.field^field)&care == 0 {
				hit = i
				break
			}
		}
		if q.rtl != nil {
			q.rtl.search(q, field, mask, hit, src, tag)
		}
		if hit >= 0 {
			e := q.hw[hit]
			q.hw = append(q.hw[:hit], q.hw[hit+1:]...)
			q.free = append(q.free, e.ptr)
			q.refill()
			q.mode.matched(true)
			return e.Entry, hit + 1, true
		}
	}
	q.sw.cpu.Compute(q.sw.c.CallInstr)
	i, n := q.sw.find(src, tag, ^uint64(0))
	if i < 0 {
		return goal.Entry{}, 0, false
	}
	q.u.fallbacks++
	q.mode.matched(false)
	return q.sw.remove(i).Entry, len(q.hw) + n, true
}

// refill moves the oldest software entries into free cells (overflow: onload leaves them in
// software until the queue drains).
func (q *alpuQueue) refill() {
	for q.mode.policy != Onload && q.sw.len() > 0 && len(q.hw) < q.cells {
		h := &q.sw.e[q.sw.head]
		field, mask, _ := alpuField(h.Src, h.Tag)
		q.sw.cpu.Load(h.addr, q.sw.c.EntryBytes)
		q.sw.cpu.Compute(q.sw.c.PushInstr)
		e := q.sw.remove(q.sw.head)
		q.insert(e.Entry, field, mask)
		q.u.refills++
	}
}

func (q *alpuQueue) Len() int { return len(q.hw) + q.sw.len() }

func (q *alpuQueue) Entries() []goal.Entry {
	out := make([]goal.Entry, 0, q.Len())
	for _, e := range q.hw {
		out = append(out, e.Entry)
	}
	return append(out, plain(q.sw.entries())...)
}

// alpuKind is alpu:N: an ALPU of N cells per queue, on RTL nodes (N up to RTLCells) the
// Verilated rtl/alpu.v beside each.
var alpuKind = Kind{Name: "alpu", Params: []Param{{Name: "N", Min: 1, Max: MaxCells}}, Policies: true,
	RTL: func(s Spec) bool { return s.Arg(0) <= RTLCells },
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		n := b.spec.Arg(0)
		p := newALPUQueue(b.u, b.u.cpu, &b.set.cfg.Costs, n, postedBase, "posted", b.spec.Full())
		q := newALPUQueue(b.u, b.u.cpu, &b.set.cfg.Costs, n, unexpectedBase, "unexpected", b.spec.Full())
		if b.rtl {
			if err := b.u.attachRTL(p, q); err != nil {
				return nil, nil, err
			}
		}
		return p, q, nil
	},
	// Two ALPUs of N cells: the posted and the unexpected queue's.
	Area: func(s Spec) []AreaTerm { return []AreaTerm{alpuArea(s.Arg(0), 2)} },
}

func alpuArea(cells, count int) AreaTerm {
	return AreaTerm{Top: "alpu", Params: []AreaParam{{Name: "CELLS", Value: cells}}, Count: count}
}
