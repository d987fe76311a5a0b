package match

import (
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// Costs are the instructions the host software of a list spends, charged on the host model
// at its CPI.
type Costs struct {
	// EntryInstr is the instructions per entry a search examines (and EntryBytes the bytes it
	// loads from the entry: the envelope).
	EntryInstr, EntryBytes int
	// CallInstr is a search's set-up and return, and the unlinking of the entry found.
	CallInstr int
	// PushInstr is an append: taking a free entry, filling in the envelope, linking it.
	PushInstr int
	// HashInstr is computing a bin from (source, tag) (bins:K only).
	HashInstr int
}

// EntryBytes is the size of one list entry in host memory: 64 bytes, one cache line, as the
// paper's entries (Tanabe et al.'s LHS paper, section 5.1.2: 64-byte entries).
const EntryBytes = 64

type swEntry struct {
	goal.Entry
	addr, seq uint64
}

// swList is a list of entries in host memory, searched from the oldest by the host CPU model:
// every entry examined costs its envelope's load (through the caches) and Costs.EntryInstr.
type swList struct {
	cpu  *hostcpu.CPU
	c    *Costs
	base uint64
	next uint64   // the next never-used slot
	free []uint64 // freed entry addresses, reused last-freed first (as a free list does)
	e    []swEntry
	head int
}

func newSWList(cpu *hostcpu.CPU, c *Costs, base uint64) *swList {
	return &swList{cpu: cpu, c: c, base: base}
}

func (l *swList) alloc() uint64 {
	if n := len(l.free); n > 0 {
		a := l.free[n-1]
		l.free = l.free[:n-1]
		return a
	}
	a := l.base + l.next*EntryBytes
	l.next++
	return a
}

// push appends e (with its sequence number) and charges the append.
func (l *swList) push(e goal.Entry, seq uint64) {
	if l.head > 0 && l.head == len(l.e) {
		l.e, l.head = l.e[:0], 0
	}
	a := l.alloc()
	l.cpu.Compute(l.c.PushInstr)
	l.cpu.Store(a, l.c.EntryBytes)
	l.e = append(l.e, swEntry{Entry: e, addr: a, seq: seq})
}

// find walks from the oldest entry to the first that matches src and tag, charging each
// entry examined; it stops, without a match, at an entry whose sequence number exceeds
// below. It returns the index (-1: none) and the entries examined.
func (l *swList) find(src, tag uint32, below uint64) (int, int) {
	n := 0
	for i := l.head; i < len(l.e); i++ {
		e := &l.e[i]
		if e.seq > below {
			break
		}
		n++
		l.cpu.Load(e.addr, l.c.EntryBytes)
		l.cpu.Compute(l.c.EntryInstr)
		if goal.Matches(&e.Entry, src, tag) {
			return i, n
		}
	}
	return -1, n
}

// remove unlinks entry i (from find) and frees its slot.
func (l *swList) remove(i int) swEntry {
	e := l.e[i]
	if i == l.head {
		l.head++
	} else {
		copy(l.e[i:], l.e[i+1:])
		l.e = l.e[:len(l.e)-1]
	}
	l.free = append(l.free, e.addr)
	return e
}

func (l *swList) len() int { return len(l.e) - l.head }

func (l *swList) entries() []swEntry { return l.e[l.head:] }

// listQueue is the matcher list: one swList, as an MPI library keeps it.
type listQueue struct {
	l *swList
}

func (q *listQueue) Push(e goal.Entry) { q.l.push(e, 0) }

func (q *listQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	q.l.cpu.Compute(q.l.c.CallInstr)
	i, n := q.l.find(src, tag, ^uint64(0))
	if i < 0 {
		return goal.Entry{}, 0, false
	}
	return q.l.remove(i).Entry, n, true
}

func (q *listQueue) Len() int { return q.l.len() }

func (q *listQueue) Entries() []goal.Entry { return plain(q.l.entries()) }

func plain(s []swEntry) []goal.Entry {
	out := make([]goal.Entry, len(s))
	for i := range s {
		out[i] = s[i].Entry
	}
	return out
}

// listKind is list: the MPI library's two lists in host memory.
var listKind = Kind{Name: "list", Software: true,
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		return &listQueue{b.list(postedBase)}, &listQueue{b.list(unexpectedBase)}, nil
	}}

// LoopCosts are the software lists' instructions from a compiled search loop (the paper's:
// mpi.SearchLoopO0, counted from its disassembly by TestSearchLoopCounts): an entry examined
// costs what an entry in front of the target costs the loop, a search the rest of the loop's
// call. Two counts no source gives are assumptions (docs/matchers.md): an append costs a
// search call's instructions (PerCall: take a free entry, fill in the envelope, link it), and
// the hash of bins:K ten instructions (two multiplies, a shift, a modulo and the bin's
// address).
func LoopCosts(l mpi.SearchLoop) Costs {
	per := l.PerMessage[mpi.SearchFields-1]
	return Costs{
		EntryInstr: per,
		EntryBytes: 16, // the MPI envelope the loop compares (mpi.EnvelopeBytes)
		CallInstr:  l.PerCall - per,
		PushInstr:  l.PerCall,
		HashInstr:  10,
	}
}
