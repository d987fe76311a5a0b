package goal

// MPI matching: the posted-receive queue and the unexpected-message queue of a rank. Both
// are a Queue; a run takes a NewQueue to make them, so another matcher (a hashed one, the
// LHS receive path's) can take their place without touching the simulation.

// Entry is a posted receive (Src may be Any) or an arrived message (Src is its sender).
type Entry struct {
	Src, Tag uint32
	Op       uint32 // the operation: the recv's index, or the send's index at Src
	Line     uint32 // where that operation is written
	At       uint64 // when it entered the queue (ps)
}

// Matches is LogGOPSim's test (match in LogGOPSim.cpp): either side's Any matches.
func Matches(e *Entry, src, tag uint32) bool { return matches(e, src, tag) }

func matches(e *Entry, src, tag uint32) bool {
	return (src == Any || e.Src == Any || e.Src == src) && (tag == Any || e.Tag == Any || e.Tag == tag)
}

// Queue is one matching queue.
type Queue interface {
	// Push appends e.
	Push(e Entry)
	// Take removes the first entry that matches src and tag and returns it with the number of
	// entries examined to find it (1: the head). With no match it returns ok false.
	Take(src, tag uint32) (e Entry, depth int, ok bool)
	// Len is the number of entries.
	Len() int
	// Entries are the entries in order (for the report of what was left unmatched).
	Entries() []Entry
}

// NewQueue makes a rank's posted or unexpected queue.
type NewQueue func() Queue

// ListQueue is LogGOPSim's matching (LIST_MATCH, which its --qstat needs): a list searched
// from the oldest entry.
type ListQueue struct {
	e    []Entry
	head int
}

// NewListQueue makes an empty ListQueue.
func NewListQueue() Queue { return &ListQueue{} }

// Push implements Queue.
func (q *ListQueue) Push(e Entry) {
	if q.head > 0 && q.head == len(q.e) {
		q.e, q.head = q.e[:0], 0
	}
	q.e = append(q.e, e)
}

// Take implements Queue.
func (q *ListQueue) Take(src, tag uint32) (Entry, int, bool) {
	for i := q.head; i < len(q.e); i++ {
		if matches(&q.e[i], src, tag) {
			e, depth := q.e[i], i-q.head+1
			if i == q.head {
				q.head++
			} else {
				copy(q.e[i:], q.e[i+1:])
				q.e = q.e[:len(q.e)-1]
			}
			return e, depth, true
		}
	}
	return Entry{}, 0, false
}

// Len implements Queue.
func (q *ListQueue) Len() int { return len(q.e) - q.head }

// Entries implements Queue.
func (q *ListQueue) Entries() []Entry { return q.e[q.head:] }

// Matcher is a rank's matching unit on the packet network (netsim/match has them): its two
// queues, and the time its searches take. A matching step is an arrival's search of the
// posted queue and the push to the unexpected queue that may follow, or a receive's search of
// the unexpected queue and the push to the posted queue that may follow. The run calls Begin,
// the queue operations of the step, then End; the unit does one step at a time, so a step
// that finds the unit busy waits for it.
type Matcher interface {
	Posted() Queue
	Unexpected() Queue
	// Begin starts a step at simulated time now (ps).
	Begin(now uint64)
	// End returns how long the step took (ps), or the fault that must stop the run (the
	// matcher's RTL and its model disagree).
	End() (uint64, error)
}

// NewMatcher makes rank's matching unit.
type NewMatcher func(rank int) (Matcher, error)
