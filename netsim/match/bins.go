package match

import (
	"sort"

	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// binsQueue is bins:K, the hash-bin matching of Flajslik, Dinan and Underwood ("Mitigating MPI
// Message Matching Misery", ISC 2016): entries whose source and tag are both given go to bin
// hash(source, tag) of K, entries with a wildcard to one more list; every entry carries a
// sequence number. A search for a given source and tag walks its bin and the wildcard list
// (which it leaves once past the bin's match) and takes the older of the two matches; a
// search with a wildcard walks every bin and the wildcard list and takes the oldest first
// match. Each bin is a list in host memory, searched by the host as the list matcher's.
type binsQueue struct {
	cpu   *hostcpu.CPU
	c     *Costs
	bins  []*swList
	wild  *swList
	heads uint64 // address of the array of bin heads (8 bytes each)
	seq   uint64
	n     int
}

func newBinsQueue(cpu *hostcpu.CPU, c *Costs, k int, base uint64) *binsQueue {
	q := &binsQueue{cpu: cpu, c: c, bins: make([]*swList, k), heads: base}
	// Each list gets its own 256 MiB of address space after the head array.
	for i := range q.bins {
		q.bins[i] = newSWList(cpu, c, base+uint64(i+1)<<28)
	}
	q.wild = newSWList(cpu, c, base+uint64(k+1)<<28)
	return q
}

// bin is the hash of a (source, tag): a multiplicative hash of both (Knuth's golden-ratio
// constant), modulo K.
func (q *binsQueue) bin(src, tag uint32) int {
	h := (uint64(src)*0x9E3779B1 ^ uint64(tag)*0x85EBCA6B) * 0x9E3779B97F4A7C15
	return int((h >> 32) % uint64(len(q.bins)))
}

func (q *binsQueue) Push(e goal.Entry) {
	q.seq++
	q.n++
	if e.Src == goal.Any || e.Tag == goal.Any {
		q.wild.push(e, q.seq)
		return
	}
	q.cpu.Compute(q.c.HashInstr)
	b := q.bin(e.Src, e.Tag)
	q.cpu.Load(q.heads+8*uint64(b), 8)
	q.bins[b].push(e, q.seq)
}

func (q *binsQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	q.cpu.Compute(q.c.CallInstr)
	best, bi, examined := (*swList)(nil), -1, 0
	look := func(l *swList, below uint64) {
		i, n := l.find(src, tag, below)
		examined += n
		if i >= 0 && (best == nil || l.e[i].seq < best.e[bi].seq) {
			best, bi = l, i
		}
	}
	if src != goal.Any && tag != goal.Any {
		q.cpu.Compute(q.c.HashInstr)
		b := q.bin(src, tag)
		q.cpu.Load(q.heads+8*uint64(b), 8)
		look(q.bins[b], ^uint64(0))
	} else {
		for b, l := range q.bins {
			q.cpu.Load(q.heads+8*uint64(b), 8)
			look(l, ^uint64(0))
		}
	}
	below := ^uint64(0)
	if best != nil {
		below = best.e[bi].seq
	}
	look(q.wild, below)
	if best == nil {
		return goal.Entry{}, 0, false
	}
	q.n--
	return best.remove(bi).Entry, examined, true
}

func (q *binsQueue) Len() int { return q.n }

// Entries are the entries in the order they came (by sequence number).
func (q *binsQueue) Entries() []goal.Entry {
	all := append([]swEntry(nil), q.wild.entries()...)
	for _, l := range q.bins {
		all = append(all, l.entries()...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	return plain(all)
}
