package booksim

// The network's parts and the windows they run in. A flit or credit sent in cycle c on a
// channel of latency L is read in cycle c+L+1, so the parts may run Network.window cycles
// (the least L+1 of a channel between routers) apart: each runs its routers and nodes for a
// window on its own thread, what it sent to another part waits in its outbox until the
// window ends, and the other takes it in before its next window. Every router reads its
// inputs in port order and draws from its own random stream, every node from its own, so
// the order in which the parts' events arrive changes nothing: a run's results are the
// same on any number of parts. The windows are the same on one part too, and the run's
// decisions (a sample period over, a deadlock, the drain done) are taken between windows,
// from every part's counts: so they are the same as well.

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// maxParts is the most parts a network runs in (dest.part is a byte).
const maxParts = 255

// MaxParts is the most parts NewParts cuts topo into: fabric.MaxParts, at most 255.
func MaxParts(topo fabric.Topology, cfg fabric.Config) int {
	return min(fabric.MaxParts(topo, cfg), maxParts)
}

// part is the routers and nodes one thread runs.
type part struct {
	_       [64]byte // (the parts' counters, written every cycle, on cache lines of their own)
	id      int
	n       *Network
	routers []int32 // its routers, in order
	nodes   []int32 // its nodes, in order

	wheel  [][]event // cycle & mask -> what its channels deliver then
	mask   int64
	active []int32 // routers to evaluate this cycle
	spare  []int32
	now    int64
	win    uint64 // the window it runs
	// outs[w%2][p]: what it sent part p (and the packets of p it retired) in window w.
	outs [2][]box

	moved    int64 // flits moved across a switch or channel, all time
	events   int64 // flits and credits its channels delivered, all time
	lastMove int64 // the last cycle it moved a flit
	touched  int64 // what touch read: kept, so that its reads are not dropped

	// The terminals' side (the measurement, sim): their packets, and what they counted.
	pkts    []packet // the packets its nodes created, and free slots
	pktFree []int32  // the free slots of pkts
	acc     tally
	_       [64]byte
}

// box is what one part hands another at a window's end.
type box struct {
	evs   []posted
	freed []int32 // slots of the other's pkts whose packets this one retired
}

// posted is an event for another part and the cycle it is read in.
type posted struct {
	at int64
	e  event
}

// slot is a new event for the cycle a send on to is read in: at the end of its wheel slot,
// or in the outbox of to's part. Its event is not cleared: the sender writes every field.
func (p *part) slot(to *dest) *event {
	at := p.now + int64(to.lat) + 1
	if int(to.part) != p.id {
		return p.post(to, at)
	}
	w := &p.wheel[at&p.mask]
	k := len(*w)
	if k == cap(*w) {
		growSlot(w)
	}
	*w = (*w)[:k+1]
	return &(*w)[k]
}

// post is slot for another part (out of line: slot stays small enough to be inlined).
//
//go:noinline
func (p *part) post(to *dest, at int64) *event {
	b := &p.outs[p.win%2][to.part]
	b.evs = append(b.evs, posted{at: at})
	return &b.evs[len(b.evs)-1].e
}

// growSlot makes room for one more event in a wheel slot (out of line: slot stays small
// enough to be inlined).
//
//go:noinline
func growSlot(w *[]event) { *w = append(*w, event{})[:len(*w)] }

// takeIn puts into p's wheel what the other parts sent it in the window before, and frees
// the slots of its packets they retired then. (They write the other set of outboxes now.)
func (p *part) takeIn() {
	for _, o := range p.n.parts {
		if o == p {
			continue
		}
		b := &o.outs[(p.win+1)%2][p.id]
		for i := range b.evs {
			w := &p.wheel[b.evs[i].at&p.mask]
			*w = append(*w, b.evs[i].e)
		}
		p.pktFree = append(p.pktFree, b.freed...)
		b.evs, b.freed = b.evs[:0], b.freed[:0]
	}
}

// crew is the threads of the parts after the first (which the caller's goroutine runs).
type crew struct {
	threads *netsim.Crew
	end     int64 // the end of the window they run
	stats   netsim.WindowStats
}

// runWindow runs every part from n.now to end (at most n.window cycles later) with cycle,
// each part on its own thread, and returns when all are done.
func (n *Network) runWindow(end int64, cycle func(p *part)) {
	if len(n.parts) == 1 {
		n.runPart(n.parts[0], end, cycle)
		n.now = end
		return
	}
	c := n.startCrew(cycle)
	c.end = end
	c.threads.Round(&c.stats)
	c.stats.Windows++
	n.now = end
}

// runPart runs part p's cycles up to end.
func (n *Network) runPart(p *part, end int64, cycle func(p *part)) {
	if len(n.parts) > 1 {
		p.takeIn()
	}
	for p.now < end {
		cycle(p)
		p.now++
	}
	p.win++
}

// startCrew starts the threads of the parts after the first, once per run.
func (n *Network) startCrew(cycle func(p *part)) *crew {
	if n.crew != nil {
		return n.crew
	}
	c := &crew{}
	c.stats.Parts = len(n.parts)
	c.stats.Lookahead = netsim.Time(n.window) * n.cfg.ClockPeriod
	// A part's routers stay on one thread: their state stays in its core's caches.
	c.threads = netsim.NewCrew(len(n.parts), true, func(i int) { n.runPart(n.parts[i], c.end, cycle) })
	n.crew = c
	return c
}

// stopCrew ends the threads a run started and says what their windows were (nil: none ran).
func (n *Network) stopCrew() *netsim.WindowStats {
	c := n.crew
	if c == nil {
		return nil
	}
	c.threads.Close()
	n.crew = nil
	for _, p := range n.parts {
		c.stats.Events += uint64(p.events)
	}
	return &c.stats
}
