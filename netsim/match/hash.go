package match

import (
	"fmt"
	"sort"

	"github.com/lhsim/lhsim/netsim/goal"
)

// hashKind is hash:K:N: rtl/hash_match.v with K bins and N entries for each queue (two banks,
// a one-cycle block RAM read, as the study builds it), a software list behind it; on RTL nodes
// (hash:64:1024, the Verilated build) the RTL beside the model, every cycle compared.
// hash:K:N:W:L gives W banks and an L-cycle read (hash:4:16:4:2 is Verilated too).
var hashKind = Kind{Name: "hash", Params: []Param{{Name: "K", Min: 1, Max: 65536, Pow2: true}, {Name: "N", Min: 4, Max: 65536, Pow2: true},
	{Name: "W", Min: 1, Max: 256, Pow2: true, Optional: true}, {Name: "L", Min: 1, Max: 8, Optional: true}},
	Walks: true, Policies: true,
	Fields: func(Spec) (int, int) { return HashRTLParams.SrcBits, HashRTLParams.TagBits },
	Check: func(s Spec) error {
		p := hashParams(s)
		if err := p.Check(); err != nil {
			return err
		}
		if n := HashBRAMs(p); n > XC2VP70BRAMs {
			return fmt.Errorf("N %d needs about %d 18-Kbit block RAMs per queue, over the XC2VP70's %d", s.Arg(1), n, XC2VP70BRAMs)
		}
		return nil
	},
	RTL: func(s Spec) bool { p := hashParams(s); return p == HashRTLParams || p == HashRTLSmall },
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		p, err := newHashQueue(b, postedBase, "posted")
		if err != nil {
			return nil, nil, err
		}
		q, err := newHashQueue(b, unexpectedBase, "unexpected")
		if err != nil {
			p.hw.close()
			return nil, nil, err
		}
		return p, q, nil
	},
	// Two matchers of N entries and K bins: the posted and the unexpected queue's (with their
	// banks and read latency when the name gives them).
	Area: func(s Spec) []AreaTerm {
		params := []AreaParam{{Name: "BINS", Value: s.Arg(0)}, {Name: "ENTRIES", Value: s.Arg(1)}}
		if s.Arg(2) != 0 {
			params = append(params, AreaParam{Name: "BANKS", Value: s.Arg(2)}, AreaParam{Name: "RD_LAT", Value: s.Arg(3)})
		}
		return []AreaTerm{{Top: "hash_match", Params: params, Count: 2}}
	},
}

// XC2VP70BRAMs are the block RAMs of the LHS paper's part (area.XC2VP70BRAMs).
const XC2VP70BRAMs = 328

// hashParams are the study's hash_match for hash:K:N: the RTL's defaults but K and N (and
// the banks and read latency of hash:K:N:W:L).
func hashParams(s Spec) HashParams {
	p := HashRTLParams
	p.Bins, p.Entries = s.Arg(0), s.Arg(1)
	if s.Arg(2) != 0 {
		p.Banks, p.ReadLat = s.Arg(2), s.Arg(3)
	}
	return p
}

// HashBRAMs estimates the 18-Kbit block RAMs of one hash_match: in each bank the entry words
// and five link RAMs of N/W words, each in RAMB16s of the shape for its depth (512 x 36,
// 1K x 18, 2K x 9, 4K x 4, 8K x 2, 16K x 1; deeper ones side by side).
func HashBRAMs(p HashParams) int {
	depth := p.Entries / p.Banks
	aw, bw := 1, 1
	for 1<<aw < depth {
		aw++
	}
	for 1<<bw < p.Bins {
		bw++
	}
	entW := p.SeqBits + p.HandleBits + p.CtxBits + p.TagBits + p.SrcBits + 2 + bw
	per := func(w int) int {
		width := map[int]int{512: 36, 1024: 18, 2048: 9, 4096: 4, 8192: 2, 16384: 1}
		d := max(depth, 512)
		if d > 16384 {
			return w * d / 16384
		}
		return (w + width[d] - 1) / width[d]
	}
	return p.Banks * (per(entW) + 5*per(aw))
}

// hashQueue is hash:K:N for one queue: the hashed matcher in front of a software list, with
// the overflow policy of alpuQueue (an entry goes to hardware while the software list is
// empty and an entry is free; freed entries are refilled from software, oldest first), so
// every entry in hardware is older than every entry in software.
type hashQueue struct {
	u       *unit
	hw      *hashPair
	sw      *swList
	which   string
	ent     map[uint32]hashHeld // by handle
	free    []uint32            // handles free
	live    []uint64            // sequence numbers in hardware, ascending (positions)
	entries int
	mode    mode
}

func newHashQueue(b *build, base uint64, which string) (*hashQueue, error) {
	p := hashParams(b.spec)
	hw, err := newHashPair(p, b.rtl)
	if err != nil {
		return nil, fmt.Errorf("match: node %d's %s queue: %w", b.rank, which, err)
	}
	q := &hashQueue{u: b.u, hw: hw, sw: b.list(base), which: which, ent: map[uint32]hashHeld{}, entries: p.Entries,
		mode: mode{u: b.u, policy: b.spec.Full()}}
	b.u.queues++
	for h := p.Entries - 1; h >= 0; h-- {
		q.free = append(q.free, uint32(h))
	}
	if b.rtl {
		b.u.hash = append(b.u.hash, hw)
	}
	return q, nil
}

func (q *hashQueue) hwCycles(n int) { q.u.hwPs += uint64(n) * q.u.cyclePs }

// fits says whether src and tag fit the RTL's fields (a wildcard always does).
func (q *hashQueue) fits(src, tag uint32) bool {
	p := &q.hw.m.p
	return (src == goal.Any || uint64(src) < 1<<p.SrcBits) && (tag == goal.Any || uint64(tag) < 1<<p.TagBits)
}

func (q *hashQueue) fault(what string, err error) {
	q.u.fail(fmt.Errorf("node %d, %s queue, %s: %w", q.u.rank, q.which, what, err))
}

// insert puts e into the hardware (there is room).
func (q *hashQueue) insert(e goal.Entry) {
	h := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	cycles, refused, err := q.hw.insert(e.Src, e.Tag, 0, h, e.Src == goal.Any, e.Tag == goal.Any)
	what := fmt.Sprintf("insert of the entry from %s tag %s (line %d) at cycle %d", anyStr(e.Src), anyStr(e.Tag), e.Line, q.hw.m.Cycles())
	if err != nil {
		q.fault(what, err)
		return
	}
	if refused {
		q.fault(what, fmt.Errorf("refused with %d of %d entries held", q.hw.m.Count(), q.entries))
		return
	}
	q.hwCycles(cycles)
	seq := q.hw.m.seq - 1
	q.ent[h] = hashHeld{e, seq}
	q.live = append(q.live, seq)
}

func (q *hashQueue) Push(e goal.Entry) {
	if !q.fits(e.Src, e.Tag) {
		p := &q.hw.m.p
		q.u.fail(fmt.Errorf("%s queue: source %d, tag %d (line %d) do not fit hash_match's %d-bit source and %d-bit tag", q.which, e.Src, e.Tag, e.Line, p.SrcBits, p.TagBits))
		return
	}
	defer func() { q.mode.note(q.sw.len()) }()
	if q.sw.len() == 0 && !q.mode.onloaded && len(q.free) > 0 {
		q.insert(e)
		return
	}
	if q.mode.policy == Onload && !q.mode.onloaded && len(q.free) == 0 {
		q.onload()
	}
	q.sw.push(e, 0)
}

// onload moves every entry from the hardware to the software list, oldest first: each a
// search with both wildcards (the arrival lists' oldest entry answers), a load of its
// response and an append.
func (q *hashQueue) onload() {
	q.mode.onloaded = true
	for len(q.live) > 0 {
		rsp, cycles, err := q.hw.search(0, 0, 0, true, true)
		if err != nil || rsp.RspHit == 0 {
			if err == nil {
				err = fmt.Errorf("no entry answered with %d held", len(q.live))
			}
			q.fault(fmt.Sprintf("onload at cycle %d", q.hw.m.Cycles()), err)
			return
		}
		q.hwCycles(cycles + 1)
		h := uint32(rsp.RspHandle)
		held := q.ent[h]
		delete(q.ent, h)
		q.free = append(q.free, h)
		q.position(held.seq)
		q.sw.cpu.Compute(q.sw.c.PushInstr)
		q.sw.push(held.Entry, 0)
	}
}

func (q *hashQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	defer func() { q.mode.note(q.sw.len()) }()
	if !q.fits(src, tag) {
		p := &q.hw.m.p
		q.u.fail(fmt.Errorf("%s queue: a search for source %d, tag %d does not fit hash_match's %d-bit source and %d-bit tag", q.which, src, tag, p.SrcBits, p.TagBits))
		return goal.Entry{}, 0, false
	}
	if len(q.live) > 0 {
		rsp, cycles, err := q.hw.search(src, tag, 0, src == goal.Any, tag == goal.Any)
		if err != nil {
			q.fault(fmt.Sprintf("search for source %s tag %s at cycle %d", anyStr(src), anyStr(tag), q.hw.m.Cycles()), err)
			return goal.Entry{}, 0, false
		}
		q.hwCycles(cycles + 1) // from driving the request to taking the response
		q.u.examined += int(rsp.RspWalked)
		if rsp.RspHit == 1 {
			h := uint32(rsp.RspHandle)
			held := q.ent[h]
			delete(q.ent, h)
			q.free = append(q.free, h)
			pos := q.position(held.seq)
			q.refill()
			q.mode.matched(true)
			return held.Entry, pos, true
		}
	}
	q.sw.cpu.Compute(q.sw.c.CallInstr)
	i, n := q.sw.find(src, tag, ^uint64(0))
	q.u.examined += n
	if i < 0 {
		return goal.Entry{}, 0, false
	}
	q.u.fallbacks++
	q.mode.matched(false)
	return q.sw.remove(i).Entry, len(q.live) + n, true
}

// position removes seq from the hardware's live sequence numbers and returns its place.
func (q *hashQueue) position(seq uint64) int {
	i := sort.Search(len(q.live), func(i int) bool { return q.live[i] >= seq })
	q.live = append(q.live[:i], q.live[i+1:]...)
	return i + 1
}

// refill moves the oldest software entries into free hardware entries (overflow: onload
// leaves them in software until the queue drains).
func (q *hashQueue) refill() {
	for q.mode.policy != Onload && q.sw.len() > 0 && len(q.free) > 0 {
		h := &q.sw.e[q.sw.head]
		q.sw.cpu.Load(h.addr, q.sw.c.EntryBytes)
		q.sw.cpu.Compute(q.sw.c.PushInstr)
		e := q.sw.remove(q.sw.head)
		q.insert(e.Entry)
		q.u.refills++
	}
}

func (q *hashQueue) Len() int { return len(q.live) + q.sw.len() }

// hashHeld is an entry in the hardware with its sequence number.
type hashHeld struct {
	goal.Entry
	seq uint64
}

// Entries are the hardware's entries by sequence number, then the software list's.
func (q *hashQueue) Entries() []goal.Entry {
	hs := make([]hashHeld, 0, len(q.ent))
	for _, e := range q.ent {
		hs = append(hs, e)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].seq < hs[j].seq })
	out := make([]goal.Entry, 0, q.Len())
	for _, h := range hs {
		out = append(out, h.Entry)
	}
	return append(out, plain(q.sw.entries())...)
}
