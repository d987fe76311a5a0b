package goal

// The LogGOPS model as LogGOPSim simulates it: the event loop of src/LogGOPSim/LogGOPSim.cpp
// (commit 76451de) with its LogGP network backend, step by step, so that a schedule ends at
// the same time as there. Times are in picoseconds here (LogGOPSim counts in its parameters'
// unit, ns by default), in uint64 with C's wrap-around arithmetic, because LogGOPSim computes
// (size-1)*G in uint64 too: a 0-byte message charges -G (docs/goal.md).

import (
	"fmt"
	"sort"
)

// Params are LogGOPS's parameters, in picoseconds (per byte for G and O); S in bytes.
// LogGOPSim's defaults (loggopsim_cmdline.ggo) are DefaultParams.
type Params struct {
	L, O, G            uint64 // latency, overhead (o), gap per message (g)
	PerByteG, PerByteO uint64 // G and O
	S                  uint64 // messages above S bytes go by rendezvous
}

// DefaultParams are LogGOPSim's defaults (src/LogGOPSim/loggopsim_cmdline.ggo): L=2500 ns,
// o=1500 ns, g=1000 ns, G=6 ns/B, O=0, S=65535 B.
func DefaultParams() Params {
	return Params{L: 2500_000, O: 1500_000, G: 1000_000, PerByteG: 6000, PerByteO: 0, S: 65535}
}

// Options are what a run collects.
type Options struct {
	NewQueue NewQueue // nil: NewListQueue
	// NewMatcher, on the packet network, gives each rank a matching unit whose queues take
	// the place of NewQueue's and whose searches take time (netsim/match); nil: none, matching
	// is free.
	NewMatcher NewMatcher
	Stats      bool // match statistics (Result.Match)
	// Searches logs every search of a matching queue with its depth and time
	// (Result.Searches: LogGOPSim's --qstat files, WriteQStat).
	Searches bool
	// StdSort orders operations that become free together as LogGOPSim does, with
	// libstdc++'s std::sort by type, which does not keep the written order among more than
	// 16 of them; without it they are sorted by type in the order written. The two differ
	// when many receives are posted at once: LogGOPSim then posts them in a shuffled order,
	// and Schedgen's allreduce_ring from 16 ranks on deadlocks there (docs/goal.md).
	StdSort bool
	// Tracer, when set, sees a packet run's operations and matching (RunPacket only).
	Tracer Tracer
	// Progress, when set, is told every 16,384 operations a LogGOPS run starts, with
	// the count so far (RunLogGP only; a packet run tells its Tracer).
	Progress func(started int64)
}

// QueueStats are one rank's matching statistics with LogGOPSim's --qstat meaning: the
// longest posted (rq) and unexpected (uq) queue seen when a search began, and per search
// how far it went: Hits[d] counts matches found at depth d (1: the head), Misses[n] searches
// that went through a queue of n entries and found nothing.
type QueueStats struct {
	PostedMax        int   `json:"posted_max"`
	UnexpectedMax    int   `json:"unexpected_max"`
	PostedHits       []int `json:"posted_hits"`
	UnexpectedHits   []int `json:"unexpected_hits"`
	PostedMisses     []int `json:"posted_misses"`
	UnexpectedMisses []int `json:"unexpected_misses"`
}

func bump(h *[]int, d int) {
	for len(*h) <= d {
		*h = append(*h, 0)
	}
	(*h)[d]++
}

// MaxDepth is the deepest successful search in either queue.
func (q *QueueStats) MaxDepth() int {
	return max(len(q.PostedHits), len(q.UnexpectedHits), 1) - 1
}

// Unmatched is an operation left over at the end of a run.
type Unmatched struct {
	Rank int
	Kind Kind // Recv: a posted receive; Send: a message nobody received
	Peer uint32
	Tag  uint32
	Line uint32
}

func (u Unmatched) String() string {
	peer := fmt.Sprint(u.Peer)
	if u.Peer == Any {
		peer = "any"
	}
	tag := fmt.Sprint(u.Tag)
	if u.Tag == Any {
		tag = "any"
	}
	if u.Kind == Recv {
		return fmt.Sprintf("rank %d: recv from %s tag %s (line %d) was never matched", u.Rank, peer, tag, u.Line)
	}
	return fmt.Sprintf("rank %d: a message from %s tag %s (its send on line %d) was never received", u.Rank, peer, tag, u.Line)
}

// Result is a run.
type Result struct {
	End       uint64   // the latest CPU's end (ps): LogGOPSim's "Maximum finishing time"
	Finished  []uint64 // each rank's latest CPU end (ps): LogGOPSim's "Times" per host
	Events    uint64   // operations and messages put on the event queue (LogGOPSim's "Events")
	Unmatched []Unmatched
	NotRun    []int // per rank, operations that never started (their dependencies never completed)
	Match     []QueueStats
	Searches  []SearchLog // per rank, with Options.Searches
}

// ErrTooLong is wrapped by the error of a schedule whose times may overflow simulated time.
var ErrTooLong = fmt.Errorf("times past the simulated time's range")

// maxTime bounds simulated time (ps): about 53 days, well inside uint64 and netsim.Time.
const maxTime = 1 << 62

// Bound is an upper bound of a schedule's end time (ps) under p: every operation's costs
// one after another. A schedule whose bound is over the simulated time is refused.
func Bound(s *Schedule, p Params) float64 {
	t := 0.0
	perMsg := float64(2*p.O + p.L + p.G)
	perByte := float64(max(p.PerByteG, p.PerByteO) + p.PerByteO)
	for r := range s.Ranks {
		for i := range s.Ranks[r].Ops {
			op := &s.Ranks[r].Ops[i]
			if op.Kind == Calc {
				t += float64(op.Size) * 1000
			} else {
				t += perMsg + float64(op.Size)*perByte
			}
		}
	}
	return t
}

const opMsg = 4 // LogGOPSim's OP_MSG: a message on its way

// event is LogGOPSim's graph_node_properties.
type event struct {
	time, ts, start, size uint64
	host, target, tag     uint32
	offset                uint32
	kind                  uint8
	proc, nic             uint8
}

// eventHeap is LogGOPSim's active queue (a std::priority_queue ordered by time, then by the
// insertion stamp ts: STRICT_ORDER): a 4-ary heap of small keys over a slab of events, so
// that sifting moves 24 bytes, not the event.
type eventHeap struct {
	keys []heapKey
	slab []event
	free []uint32
}

type heapKey struct {
	time, ts uint64
	idx      uint32
}

func (k heapKey) before(o heapKey) bool {
	return k.time < o.time || k.time == o.time && k.ts < o.ts
}

func (h *eventHeap) len() int { return len(h.keys) }

func (h *eventHeap) push(e event) {
	var idx uint32
	if n := len(h.free); n > 0 {
		idx = h.free[n-1]
		h.free = h.free[:n-1]
		h.slab[idx] = e
	} else {
		idx = uint32(len(h.slab))
		h.slab = append(h.slab, e)
	}
	k := heapKey{e.time, e.ts, idx}
	h.keys = append(h.keys, k)
	a := h.keys
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !k.before(a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = k
}

func (h *eventHeap) pop() event {
	a := h.keys
	top := a[0]
	n := len(a) - 1
	k := a[n]
	a = a[:n]
	i := 0
	for {
		l := 4*i + 1
		if l >= n {
			break
		}
		m := l
		for c := l + 1; c < l+4 && c < n; c++ {
			if a[c].before(a[m]) {
				m = c
			}
		}
		if !a[m].before(k) {
			break
		}
		a[i] = a[m]
		i = m
	}
	if n > 0 {
		a[i] = k
	}
	h.keys = a
	h.free = append(h.free, top.idx)
	return h.slab[top.idx]
}

// RunLogGP runs s in the LogGOPS model.
func RunLogGP(s *Schedule, p Params, opt Options) (*Result, error) {
	if b := Bound(s, p); b > maxTime {
		return nil, fmt.Errorf("goal: %w: the schedule may run %.3g s of simulated time, over the %.3g s the simulator counts: refused", ErrTooLong, b/1e12, float64(maxTime)/1e12)
	}
	if opt.NewQueue == nil {
		opt.NewQueue = NewListQueue
	}
	P := len(s.Ranks)
	ncpu, nnic := int(s.MaxCPU)+1, int(s.MaxNIC)+1
	nexto := make([]uint64, P*ncpu)
	nextgr := make([]uint64, P*nnic)
	nextgs := make([]uint64, P*nnic)
	rq := make([]Queue, P)
	uq := make([]Queue, P)
	for i := range rq {
		rq[i], uq[i] = opt.NewQueue(), opt.NewQueue()
	}
	deps := make([][]uint32, P)  // dependencies left per operation
	exec := make([][]uint32, P)  // newly free operations (SerializedGraph's executableNodes)
	started := make([][]bool, P) // for the report of what never ran
	for r := range s.Ranks {
		ops := s.Ranks[r].Ops
		d := make([]uint32, len(ops))
		for i := range ops {
			d[i] = ops[i].Deps
			if d[i] == 0 {
				exec[r] = append(exec[r], uint32(i))
			}
		}
		deps[r] = d
		started[r] = make([]bool, len(ops))
	}
	rec := newRecorder(P, opt)
	res := &Result{}

	var nstarted int64
	markStarted := func(host int, off uint32) {
		started[host][off] = true
		if nstarted++; opt.Progress != nil && nstarted&(1<<14-1) == 0 {
			opt.Progress(nstarted)
		}
		rk := &s.Ranks[host]
		for _, j := range rk.Irequirers(int(off)) {
			if deps[host][j]--; deps[host][j] == 0 {
				exec[host] = append(exec[host], j)
			}
		}
	}
	markDone := func(host int, off uint32) {
		rk := &s.Ranks[host]
		for _, j := range rk.Requirers(int(off)) {
			if deps[host][j]--; deps[host][j] == 0 {
				exec[host] = append(exec[host], j)
			}
		}
	}

	var aq eventHeap
	nfree := P
	for r := range exec {
		nfree += len(exec[r])
	}
	aq.keys, aq.slab = make([]heapKey, 0, nfree), make([]event, 0, nfree)
	var aqtime uint64
	sorter := &typeSorter{}
	var scratch []uint32
	// free pushes host's newly free operations, sorted by type as LogGOPSim sorts them.
	free := func(host int, initial bool) bool {
		list := exec[host]
		if len(list) == 0 {
			return false
		}
		ops := s.Ranks[host].Ops
		if opt.StdSort {
			sorter.sort(list, ops)
		} else {
			stableByKind(list, ops, &scratch)
		}
		for _, off := range list {
			op := &ops[off]
			e := event{host: uint32(host), target: op.Peer, tag: op.Tag, size: op.Size, offset: off,
				kind: uint8(op.Kind), proc: op.CPU, nic: op.NIC, ts: aqtime}
			aqtime++
			if !initial {
				o := nexto[host*ncpu+int(op.CPU)]
				if op.Kind == Send {
					o = max(o, nextgs[host*nnic+int(op.NIC)])
				}
				e.time = o
			}
			aq.push(e)
		}
		exec[host] = list[:0]
		return true
	}
	for host := 0; host < P; host++ {
		free(host, true)
	}

	L, o, g, G, O, S := p.L, p.O, p.G, p.PerByteG, p.PerByteO, p.S
	var check []int
	// sendDone completes a rendezvous send (src's operation op) when its receive matches: the
	// sender's CPU and NIC are busy until then (LogGOPSim does this in two places alike).
	sendDone := func(src int, op uint32, elem *event) {
		markDone(src, op)
		check = append(check, src)
		if co := src*ncpu + int(elem.proc); nexto[co] < elem.time {
			nexto[co] = elem.time
		}
		if gs := src*nnic + int(elem.nic); nextgs[gs] < elem.time {
			nextgs[gs] = elem.time
		}
	}
	for aq.len() > 0 {
		elem := aq.pop()
		check = check[:0]
		h := int(elem.host)
		switch elem.kind {
		case uint8(Calc):
			co := h*ncpu + int(elem.proc)
			if nexto[co] <= elem.time {
				nexto[co] = elem.time + elem.size*1000 // calc N is N ns
				markStarted(h, elem.offset)
				markDone(h, elem.offset)
				check = append(check, h)
			} else {
				elem.time = nexto[co]
				aq.push(elem)
			}

		case uint8(Send):
			co, gs := h*ncpu+int(elem.proc), h*nnic+int(elem.nic)
			if max(nexto[co], nextgs[gs]) <= elem.time {
				markStarted(h, elem.offset)
				check = append(check, h)
				nexto[co] = elem.time + o + (elem.size-1)*O
				nextgs[gs] = elem.time + g + (elem.size-1)*G
				elem.kind = opMsg
				elem.host, elem.target = elem.target, uint32(h)
				elem.start = elem.time
				elem.time = elem.time + o + L
				elem.ts = aqtime
				aqtime++
				aq.push(elem)
				if elem.size <= S { // eager: the send is done
					markDone(h, elem.offset)
				}
			} else {
				elem.time = max(nexto[co], nextgs[gs])
				aq.push(elem)
			}

		case uint8(Recv):
			markStarted(h, elem.offset)
			check = append(check, h)
			n := uq[h].Len()
			m, depth, ok := uq[h].Take(elem.target, elem.tag)
			rec.unexpected(h, n, depth, ok, elem.time)
			if ok {
				if elem.size > S {
					sendDone(int(m.Src), m.Op, &elem)
				}
				markDone(h, elem.offset)
			} else {
				rk := &s.Ranks[h]
				rq[h].Push(Entry{Src: elem.target, Tag: elem.tag, Op: elem.offset, Line: rk.Ops[elem.offset].Line, At: elem.time})
			}

		case opMsg:
			co, gr := h*ncpu+int(elem.proc), h*nnic+int(elem.nic)
			if max(nexto[co], nextgr[gr]) <= elem.time {
				nexto[co] = elem.time + o + max((elem.size-1)*O, (elem.size-1)*G)
				nextgr[gr] = elem.time + g + (elem.size-1)*G
				n := rq[h].Len()
				m, depth, ok := rq[h].Take(elem.target, elem.tag)
				rec.posted(h, n, depth, ok, elem.time)
				if ok {
					if elem.size > S {
						sendDone(int(elem.target), elem.offset, &elem)
					}
					markDone(h, m.Op)
					check = append(check, h)
				} else {
					src := int(elem.target)
					uq[h].Push(Entry{Src: elem.target, Tag: elem.tag, Op: elem.offset, Line: s.Ranks[src].Ops[elem.offset].Line, At: elem.time})
				}
			} else {
				elem.time = max(nexto[co], nextgr[gr]) // the LogGP network: the message is through at once
				aq.push(elem)
			}
		}
		if len(check) > 1 {
			sort.Ints(check)
		}
		last := -1
		for _, host := range check {
			if host != last {
				free(host, false)
				last = host
			}
		}
	}
	res.Events = aqtime

	res.Finished = make([]uint64, P)
	for h := 0; h < P; h++ {
		for c := 0; c < ncpu; c++ {
			res.Finished[h] = max(res.Finished[h], nexto[h*ncpu+c])
		}
		res.End = max(res.End, res.Finished[h])
		for _, e := range rq[h].Entries() {
			res.Unmatched = append(res.Unmatched, Unmatched{Rank: h, Kind: Recv, Peer: e.Src, Tag: e.Tag, Line: e.Line})
		}
		for _, e := range uq[h].Entries() {
			res.Unmatched = append(res.Unmatched, Unmatched{Rank: h, Kind: Send, Peer: e.Src, Tag: e.Tag, Line: e.Line})
		}
	}
	res.NotRun = make([]int, P)
	for h := range started {
		for _, st := range started[h] {
			if !st {
				res.NotRun[h]++
			}
		}
	}
	res.Match, res.Searches = rec.stats, rec.log
	if res.End > maxTime {
		return res, fmt.Errorf("goal: the run ended at %d ps, past the simulated time's range: LogGOPSim's arithmetic wrapped (a 0-byte message costs -G, docs/goal.md)", res.End)
	}
	return res, nil
}
