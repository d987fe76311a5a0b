package match

import (
	"sort"

	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// binsKind is bins:K, software hash bins.
var binsKind = Kind{Name: "bins", Params: []Param{{Name: "K", Min: 1, Max: MaxBins}}, Software: true, Walks: true,
	New: func(b *build) (goal.Queue, goal.Queue, error) {
		k := b.spec.Arg(0)
		return newBinsQueue(b.u, &b.set.cfg.Costs, k, postedBase), newBinsQueue(b.u, &b.set.cfg.Costs, k, unexpectedBase), nil
	},
	Memory: func(s Spec, ranks, ops int) int64 {
		// A bin is allocated when its first entry arrives, so a run holds at most one per
		// entry ever queued (an operation queues at most one) and K per queue.
		return min(int64(2*ranks)*int64(s.Arg(0)), int64(ops)) * binBytes
	},
}

// binBytes bounds what one allocated bin takes: its swList, its place in the map of bins and
// in the list of bins in use (measured by TestBinsMemory).
const binBytes = 256

// binsQueue is bins:K, the hash-bin matching of Flajslik, Dinan and Underwood ("Mitigating MPI
// Message Matching Misery", ISC 2016): entries whose source and tag are both given go to bin
// hash(source, tag) of K, entries with a wildcard to one more list; every entry carries a
// sequence number. A search for a given source and tag walks its bin and the wildcard list
// (which it leaves once past the bin's match) and takes the older of the two matches; a
// search with a wildcard walks every bin and the wildcard list and takes the oldest first
// match. Each bin is a list in host memory, searched by the host as the list matcher's.
//
// A bin's list is made when its first entry arrives (K lists up front took 14 MB a rank at
// K = 65,536), at the address it always has, and kept, so that its freed entries are reused
// as an MPI library's would be.
type binsQueue struct {
	u     *unit
	cpu   *hostcpu.CPU
	c     *Costs
	k     int
	base  uint64
	bins  map[int]*swList
	used  []int // bins made, ascending
	wild  *swList
	heads uint64 // address of the array of bin heads (8 bytes each)
	seq   uint64
	// live are the sequence numbers queued, ascending from live[head]: a match's position
	// in the queue (the depth the run records) is its rank among them.
	live []uint64
	head int
}

func newBinsQueue(u *unit, c *Costs, k int, base uint64) *binsQueue {
	return &binsQueue{u: u, cpu: u.cpu, c: c, k: k, base: base, bins: map[int]*swList{}, heads: base,
		wild: newSWList(u.cpu, c, base+uint64(k+1)<<28)}
}

// binList is bin b's list, made on first use; each list has its own 256 MiB of address
// space after the head array.
func (q *binsQueue) binList(b int) *swList {
	l := q.bins[b]
	if l == nil {
		l = newSWList(q.cpu, q.c, q.base+uint64(b+1)<<28)
		q.bins[b] = l
		i := sort.SearchInts(q.used, b)
		q.used = append(q.used, 0)
		copy(q.used[i+1:], q.used[i:])
		q.used[i] = b
	}
	return l
}

// bin is the hash of a (source, tag): a multiplicative hash of both (Knuth's golden-ratio
// constant), modulo K.
func (q *binsQueue) bin(src, tag uint32) int {
	h := (uint64(src)*0x9E3779B1 ^ uint64(tag)*0x85EBCA6B) * 0x9E3779B97F4A7C15
	return int((h >> 32) % uint64(q.k))
}

func (q *binsQueue) Push(e goal.Entry) {
	q.seq++
	if q.head > 0 && q.head == len(q.live) {
		q.live, q.head = q.live[:0], 0
	}
	q.live = append(q.live, q.seq)
	if e.Src == goal.Any || e.Tag == goal.Any {
		q.wild.push(e, q.seq)
		return
	}
	q.cpu.Compute(q.c.HashInstr)
	b := q.bin(e.Src, e.Tag)
	q.cpu.Load(q.heads+8*uint64(b), 8)
	q.binList(b).push(e, q.seq)
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
		if l := q.bins[b]; l != nil {
			look(l, ^uint64(0))
		}
	} else {
		// Every bin's head is read; the bins never made are empty.
		next := 0
		for b := 0; b < q.k; b++ {
			q.cpu.Load(q.heads+8*uint64(b), 8)
			if next < len(q.used) && q.used[next] == b {
				look(q.bins[b], ^uint64(0))
				next++
			}
		}
	}
	below := ^uint64(0)
	if best != nil {
		below = best.e[bi].seq
	}
	look(q.wild, below)
	q.u.examined += examined
	if best == nil {
		return goal.Entry{}, 0, false
	}
	e := best.remove(bi)
	return e.Entry, q.position(e.seq), true
}

// position removes seq from the live sequence numbers and returns its place among them
// (1: the oldest entry queued).
func (q *binsQueue) position(seq uint64) int {
	live := q.live[q.head:]
	i := sort.Search(len(live), func(i int) bool { return live[i] >= seq })
	if i == 0 {
		q.head++
	} else {
		copy(live[i:], live[i+1:])
		q.live = q.live[:len(q.live)-1]
	}
	return i + 1
}

func (q *binsQueue) Len() int { return len(q.live) - q.head }

// Entries are the entries in the order they came (by sequence number).
func (q *binsQueue) Entries() []goal.Entry {
	all := append([]swEntry(nil), q.wild.entries()...)
	for _, b := range q.used {
		all = append(all, q.bins[b].entries()...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	return plain(all)
}
