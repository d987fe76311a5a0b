package goal

// A schedule on the simulated machine (netsim/cluster on netsim/fabric): the same dependency
// graph, matching and eager/rendezvous rule as RunLogGP, with the machine's costs in place of
// LogGOPS's. A calc holds its CPU for its time; a send holds its CPU for the node latency (the
// library's overhead, cluster.Config.NodeLatency), then the NIC reads the data by DMA and the
// fabric carries its packets; a message is matched when its last byte has landed. A send of
// at most S bytes is done when the CPU lets go of it (eager: buffered); a larger one when the
// receiver matches it (LogGOPSim's rendezvous: the data goes at once, the send completes at
// the match). A recv costs no CPU: it is posted when it may start. A rank's NICs (nic N) are
// its node's one NIC. A message to oneself is copied by the DMA engine without the fabric.

import (
	"fmt"
	"sync"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
)

// Tracer sees a packet run as it goes (a timeline: experiment's --timeline). Ranks and
// operations are as in the schedule; times are the engine's.
type Tracer interface {
	// Busy: a calc, or a send's CPU time (the node latency), holds its CPU from start to end.
	Busy(rank int, op uint32, start, end netsim.Time)
	// Sending: send op's message goes to the NIC now (before the NIC takes it).
	Sending(rank int, op uint32, now netsim.Time)
	// Posted: recv op is posted now, before it is matched against the unexpected queue.
	Posted(rank int, op uint32, now netsim.Time)
	// Arrived: send op of src has landed at rank now; matched says whether a posted recv
	// took it (else it waits in the unexpected queue).
	Arrived(rank int, src, sendOp uint32, now netsim.Time, matched bool)
	// Matched: recv op of rank has taken send op of src now.
	Matched(rank int, recvOp, src, sendOp uint32, now netsim.Time)
	// Queues: rank's posted and unexpected queues have these lengths from now.
	Queues(rank int, now netsim.Time, posted, unexpected int)
}

// PartsTracer is a Tracer that may be called from the threads of several parts at once (a
// count): the one kind a machine on parts takes.
type PartsTracer interface {
	Tracer
	FromParts()
}

type pktRank struct {
	deps       []uint32
	started    []bool
	cpu        []netsim.Time // when each CPU is free
	posted, uq Queue
	end        netsim.Time
	m          Matcher     // nil: matching takes no time
	mfree      netsim.Time // when m has done its last step
	// eng is the engine of the rank's node (its part's, on a machine on parts), keys its
	// events' keys there (nil on one engine: the order they were scheduled in), and work
	// its part's operations freed and not yet started.
	eng  *netsim.Engine
	keys *netsim.Keys
	work *workList
	// run and id make the record the handler of the rank's own events (Fire): an operation's
	// start, end and send need no closure each.
	run *pktRun
	id  uint32
}

// A rank's events (pktRank.Fire): the kind in an event's arg's low bits, the operation above.
const (
	evStarted  = iota // the operation has its CPU: markStarted
	evDone            // a calc's CPU time is over: markDone
	evSend            // a send's node latency is over: send
	evSelf            // a message to oneself has been copied: arrive
	evKindBits = 2
)

// Fire runs the rank's event arg (netsim.Handler).
func (rk *pktRank) Fire(now netsim.Time, arg int64) {
	r, op := rk.run, uint32(arg>>evKindBits)
	switch arg & (1<<evKindBits - 1) {
	case evStarted:
		r.markStarted(rk.id, op)
	case evDone:
		r.markDone(rk.id, op)
	case evSend:
		r.send(rk.id, op, now)
	case evSelf:
		r.arrive(rk.id, rk.id, op, now)
	}
}

// workList is one part's operations freed and not yet started, drained in turn.
type workList struct {
	items []pktItem
	busy  bool
}

type pktRun struct {
	s     *Schedule
	c     *cluster.Cluster
	S     uint64
	nl    netsim.Time
	ranks []pktRank
	rec   recorder
	t0    netsim.Time // when the run began: the searches' times count from it
	mu    sync.Mutex  // err's, set from any part
	err   error
	tr    Tracer
}

type pktItem struct {
	rank, op uint32
}

// RunPacket runs s on c, rank r on node r, from the engine's current time.
func RunPacket(s *Schedule, c *cluster.Cluster, S uint64, opt Options) (*Result, error) {
	P := len(s.Ranks)
	if P > c.Size() {
		return nil, fmt.Errorf("goal: %d ranks on a machine of %d nodes", P, c.Size())
	}
	// The machine's costs end to end: the node latency per message, the DMA per byte.
	perByte := uint64(c.Config().DMATime(1<<20)) >> 20
	if b := Bound(s, Params{O: uint64(c.Config().NodeLatency), PerByteG: perByte}); b > maxTime {
		return nil, fmt.Errorf("goal: %w: the schedule may run %.3g s of simulated time, over the %.3g s the simulator counts: refused", ErrTooLong, b/1e12, float64(maxTime)/1e12)
	}
	if opt.NewQueue == nil {
		opt.NewQueue = NewListQueue
	}
	ps := c.Parts()
	if ps != nil && ps.Len() > 1 {
		if _, ok := opt.Tracer.(PartsTracer); opt.Tracer != nil && !ok {
			return nil, fmt.Errorf("goal: a tracer on a machine of %d parts (it sees the run from one thread)", ps.Len())
		}
		if err := EagerAcross(s, S); err != nil {
			return nil, fmt.Errorf("goal: a machine of %d parts: %w", ps.Len(), err)
		}
	}
	r := &pktRun{s: s, c: c, S: S, nl: c.Config().NodeLatency, ranks: make([]pktRank, P), tr: opt.Tracer}
	r.rec = newRecorder(P, opt)
	now := c.Now()
	r.t0 = now
	var space uint64
	if ps != nil {
		space = c.Engine().NewKeySpace()
	}
	lists := map[*netsim.Engine]*workList{}
	for i := range r.ranks {
		rk := &r.ranks[i]
		rk.run, rk.id = r, uint32(i)
		rk.eng = c.Network().NodeEngine(i)
		if ps != nil {
			rk.keys = netsim.NewKeys(space, i, P)
		}
		if lists[rk.eng] == nil {
			lists[rk.eng] = &workList{}
		}
		rk.work = lists[rk.eng]
		ops := s.Ranks[i].Ops
		rk.deps = make([]uint32, len(ops))
		rk.started = make([]bool, len(ops))
		rk.cpu = make([]netsim.Time, int(s.MaxCPU)+1)
		for c := range rk.cpu {
			rk.cpu[c] = now
		}
		rk.posted, rk.uq = opt.NewQueue(), opt.NewQueue()
		if opt.NewMatcher != nil {
			m, err := opt.NewMatcher(i)
			if err != nil {
				return nil, err
			}
			rk.m, rk.posted, rk.uq = m, m.Posted(), m.Unexpected()
		}
		rk.end = now
		var free []uint32
		for j := range ops {
			rk.deps[j] = ops[j].Deps
			if ops[j].Deps == 0 {
				free = append(free, uint32(j))
			}
		}
		var scratch []uint32
		stableByKind(free, ops, &scratch)
		for _, j := range free {
			rk.work.items = append(rk.work.items, pktItem{uint32(i), j})
		}
	}
	// In rank order, as one list: each rank's first events are scheduled in the order of
	// its operations, whichever part it is on.
	for i := range r.ranks {
		r.drain(r.ranks[i].work)
	}
	if ps != nil {
		ps.Run(netsim.Never)
	} else {
		c.Engine().Run(netsim.Never)
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	res := &Result{Finished: make([]uint64, P), NotRun: make([]int, P), Match: r.rec.stats, Searches: r.rec.log, Events: c.Fired()}
	for h := range r.ranks {
		rk := &r.ranks[h]
		res.Finished[h] = uint64(rk.end - now)
		res.End = max(res.End, res.Finished[h])
		for _, e := range rk.posted.Entries() {
			res.Unmatched = append(res.Unmatched, Unmatched{Rank: h, Kind: Recv, Peer: e.Src, Tag: e.Tag, Line: e.Line})
		}
		for _, e := range rk.uq.Entries() {
			res.Unmatched = append(res.Unmatched, Unmatched{Rank: h, Kind: Send, Peer: e.Src, Tag: e.Tag, Line: e.Line})
		}
		for _, st := range rk.started {
			if !st {
				res.NotRun[h]++
			}
		}
	}
	return res, nil
}

// EagerAcross refuses a schedule with a rendezvous send (more than S bytes) to another rank:
// such a send completes at the instant its receiver matches it, an effect across the machine
// with no lookahead, which a machine on parts cannot carry between its windows.
func EagerAcross(s *Schedule, S uint64) error {
	for r, rk := range s.Ranks {
		for _, o := range rk.Ops {
			if o.Kind == Send && o.Size > S && int(o.Peer) != r {
				return fmt.Errorf("rank %d line %d sends %d bytes to rank %d by rendezvous (over S=%d), which completes at the receiver's match", r, o.Line, o.Size, o.Peer, S)
			}
		}
	}
	return nil
}

// drain starts the operations of w that have become free, in turn.
func (r *pktRun) drain(w *workList) {
	if w.busy {
		return
	}
	w.busy = true
	for k := 0; k < len(w.items); k++ {
		r.ready(w.items[k].rank, w.items[k].op)
	}
	w.items = w.items[:0]
	w.busy = false
}

// at schedules f at t for rank: on its part, keyed when the machine is on parts.
func (r *pktRun) at(rank uint32, t netsim.Time, f func(netsim.Time)) {
	r.atEvent(rank, t, netsim.Func(func(now netsim.Time, _ int64) { f(now) }), 0)
}

// atOp schedules rank's event kind (evStarted...) of operation op at t.
func (r *pktRun) atOp(rank uint32, t netsim.Time, kind int64, op uint32) {
	r.atEvent(rank, t, &r.ranks[rank], int64(op)<<evKindBits|kind)
}

func (r *pktRun) atEvent(rank uint32, t netsim.Time, h netsim.Handler, arg int64) {
	rk := &r.ranks[rank]
	if rk.keys == nil {
		rk.eng.At(t, h, arg)
		return
	}
	rk.eng.AtKey(t, rk.keys.Next(), h, arg)
}

func (r *pktRun) touch(rank uint32, t netsim.Time) {
	rk := &r.ranks[rank]
	rk.end = max(rk.end, t)
}

func (r *pktRun) free(rank uint32, list []uint32) {
	rk := &r.ranks[rank]
	for _, j := range list {
		if rk.deps[j]--; rk.deps[j] == 0 {
			rk.work.items = append(rk.work.items, pktItem{rank, j})
		}
	}
}

func (r *pktRun) markStarted(rank, op uint32) {
	r.ranks[rank].started[op] = true
	r.free(rank, r.s.Ranks[rank].Irequirers(int(op)))
	r.drain(r.ranks[rank].work)
}

func (r *pktRun) markDone(rank, op uint32) {
	r.touch(rank, r.ranks[rank].eng.Now())
	r.free(rank, r.s.Ranks[rank].Requirers(int(op)))
	r.drain(r.ranks[rank].work)
}

// ready starts op when its CPU is free (a recv at once).
func (r *pktRun) ready(rank, op uint32) {
	rk := &r.ranks[rank]
	o := &r.s.Ranks[rank].Ops[op]
	now := rk.eng.Now()
	switch o.Kind {
	case Recv:
		r.post(rank, op)
	case Calc:
		start := max(now, rk.cpu[o.CPU])
		end := start + netsim.Time(o.Size)*netsim.Nanosecond
		rk.cpu[o.CPU] = end
		if r.tr != nil {
			r.tr.Busy(int(rank), op, start, end)
		}
		r.atOp(rank, start, evStarted, op)
		r.atOp(rank, end, evDone, op)
	case Send:
		start := max(now, rk.cpu[o.CPU])
		end := start + r.nl
		rk.cpu[o.CPU] = end
		if r.tr != nil {
			r.tr.Busy(int(rank), op, start, end)
		}
		r.atOp(rank, start, evStarted, op)
		r.atOp(rank, end, evSend, op)
	}
}

// send hands the message to the NIC once the CPU has issued it.
func (r *pktRun) send(rank, op uint32, now netsim.Time) {
	o := &r.s.Ranks[rank].Ops[op]
	r.touch(rank, now)
	dst := o.Peer
	if r.tr != nil {
		r.tr.Sending(int(rank), op, now)
	}
	if dst == rank {
		r.atOp(rank, now+r.c.Config().DMATime(int(o.Size)), evSelf, op)
	} else if err := r.c.PostSend(now, int(rank), int(dst), int(o.Size), int(o.Tag), func(t netsim.Time) { r.arrive(dst, rank, op, t) }); err != nil {
		r.fail(rank, err)
		return
	}
	if o.Size <= r.S {
		r.markDone(rank, op)
	}
}

// fail stops the run on its first error, which rank's part found.
func (r *pktRun) fail(rank uint32, err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.ranks[rank].eng.Stop()
}

// arrive matches a landed message against dst's posted receives.
func (r *pktRun) arrive(dst, src, sendOp uint32, now netsim.Time) {
	rk := &r.ranks[dst]
	so := &r.s.Ranks[src].Ops[sendOp]
	r.begin(rk, now)
	n := rk.posted.Len()
	m, depth, ok := rk.posted.Take(src, so.Tag)
	r.rec.posted(int(dst), n, depth, ok, uint64(now-r.t0))
	if !ok {
		rk.uq.Push(Entry{Src: src, Tag: so.Tag, Op: sendOp, Line: so.Line, At: uint64(now)})
		if r.tr != nil {
			r.tr.Arrived(int(dst), src, sendOp, now, false)
			r.tr.Queues(int(dst), now, rk.posted.Len(), rk.uq.Len())
		}
		r.end(rk, dst, now)
		return
	}
	if r.tr != nil {
		r.tr.Arrived(int(dst), src, sendOp, now, true)
		r.tr.Queues(int(dst), now, rk.posted.Len(), rk.uq.Len())
	}
	r.complete(rk, dst, now, m.Op, src, sendOp)
}

// post posts a recv: matched at once against the unexpected queue, or queued.
func (r *pktRun) post(rank, op uint32) {
	rk := &r.ranks[rank]
	o := &r.s.Ranks[rank].Ops[op]
	r.markStarted(rank, op)
	now := rk.eng.Now()
	if r.tr != nil {
		r.tr.Posted(int(rank), op, now)
	}
	r.begin(rk, now)
	n := rk.uq.Len()
	m, depth, ok := rk.uq.Take(o.Peer, o.Tag)
	r.rec.unexpected(int(rank), n, depth, ok, uint64(now-r.t0))
	if !ok {
		rk.posted.Push(Entry{Src: o.Peer, Tag: o.Tag, Op: op, Line: o.Line, At: uint64(now)})
		if r.tr != nil {
			r.tr.Queues(int(rank), now, rk.posted.Len(), rk.uq.Len())
		}
		r.end(rk, rank, now)
		return
	}
	if r.tr != nil {
		r.tr.Queues(int(rank), now, rk.posted.Len(), rk.uq.Len())
	}
	r.complete(rk, rank, now, op, m.Src, m.Op)
}

// begin starts a matching step on rk's unit.
func (r *pktRun) begin(rk *pktRank, now netsim.Time) {
	if rk.m != nil {
		rk.m.Begin(uint64(max(now, rk.mfree)))
	}
}

// end ends the step and returns when its result is known: at once without a unit, else when
// the unit, free or once done with its previous steps, has taken the step's time.
func (r *pktRun) end(rk *pktRank, rank uint32, now netsim.Time) netsim.Time {
	if rk.m == nil {
		return now
	}
	d, err := rk.m.End()
	if err != nil {
		r.fail(rank, fmt.Errorf("goal: node %d's matcher: %w", rank, err))
	}
	rk.mfree = max(now, rk.mfree) + netsim.Time(d)
	return rk.mfree
}

// complete completes a match found at now: at once without a matching unit (as before
// units), else when the unit's step ends.
func (r *pktRun) complete(rk *pktRank, rank uint32, now netsim.Time, recvOp, src, sendOp uint32) {
	if rk.m == nil {
		r.matched(rank, recvOp, src, sendOp)
		return
	}
	t := r.end(rk, rank, now)
	if t <= rk.eng.Now() {
		r.matched(rank, recvOp, src, sendOp)
		return
	}
	r.at(rank, t, func(netsim.Time) { r.matched(rank, recvOp, src, sendOp) })
}

// matched completes a recv and, for a rendezvous message, its send.
func (r *pktRun) matched(rank, recvOp, src, sendOp uint32) {
	if so := &r.s.Ranks[src].Ops[sendOp]; so.Size > r.S {
		r.markDone(src, sendOp)
	}
	if r.tr != nil {
		r.tr.Matched(int(rank), recvOp, src, sendOp, r.ranks[rank].eng.Now())
	}
	r.markDone(rank, recvOp)
}
