package lhsnic

// The receiving hosts of an incast (experiment/incast): the MPI library itself on the host
// bus (MPIReceiver), or a transaction-level host charging per-message costs (CostReceiver).

import (
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
)

// Want names a message a receiver waits for, by sender and tag.
type Want struct{ Src, Tag int }

// Receiver is a receiving node's host software (MPIReceiver, CostReceiver): it completes a receive
// for each message it wants, one at a time in the order given, and reports after the run.
type Receiver interface {
	Results() (done []netsim.Time, depths []int, maxQueue, copies int)
	// Posted is when each receive done so far was posted, in the order of Results.
	Posted() []netsim.Time
	// Unfinished says why the host has not completed all its receives ("" if it has).
	Unfinished() string
}

// MPIReceiver is a receiving node's software as the MPI library runs it: the driver and the MPI
// library of drivers/mpi, run on the node's host bus at the host CPU model's time (its
// Program). From PostAt it receives every wanted message in order, one at a time, as
// CostReceiver does: the MPI engine searches the unexpected queue in the LH buffer by PIO
// (LHS on) or in the SO-DIMM ring by VL (LHS off), fetches tails by VL and releases what it
// consumed. When the LH buffer is full and the wanted message is not in it, the host spills
// the oldest held message to host memory (mpi.LHSQueue.Spill) so that the input moves again.
type MPIReceiver struct {
	Want   []Want
	LHS    bool
	Nodes  int         // ranks in the communicator
	PostAt netsim.Time // when the receives are posted
	// Wait bounds how long the host waits for the next message to come in before it gives
	// up with an error naming the receive.
	Wait netsim.Time

	done     []netsim.Time
	posted   []netsim.Time
	depths   []int
	maxQueue int
	copies   int
	bus      *HostBus
}

// Posted implements Receiver: the host's Irecv of each receive.
func (h *MPIReceiver) Posted() []netsim.Time { return h.posted[:len(h.done)] }

// Results implements Receiver.
func (h *MPIReceiver) Results() ([]netsim.Time, []int, int, int) {
	return h.done, h.depths, h.maxQueue, h.copies
}

// Unfinished implements Receiver.
func (h *MPIReceiver) Unfinished() string {
	switch b := h.bus; {
	case len(h.done) == len(h.Want):
		return ""
	case b == nil:
		return "its host program never started"
	case b.Err() != nil:
		return b.Err().Error()
	case !b.Done():
		return "its host waits for " + b.Waiting()
	}
	return "its host program ended early"
}

// Program is the host's software, for Config.Program.
func (h *MPIReceiver) Program(bus *HostBus) error {
	h.bus = bus
	st, err := mpi.OpenStack(bus, bus.CPU, drivers.Config{LHS: h.LHS, TailSize: hw.TailSizeMax})
	if err != nil {
		return err
	}
	e, lq := st.Engine, st.LHS
	if err := e.AddComm(0, h.Nodes); err != nil {
		return err
	}
	bus.Sleep(h.PostAt - bus.Now())
	for _, k := range h.Want {
		h.posted = append(h.posted, bus.Now())
		r, err := e.Irecv(mpi.Pattern{Source: int32(k.Src), Tag: int32(k.Tag), Comm: 0})
		if err != nil {
			return err
		}
		for !r.Done() {
			spilled := false
			if lq != nil && lq.Held() >= st.Host.Entries() {
				if spilled, err = lq.Spill(); err != nil {
					return err
				}
			}
			if !spilled {
				if err := bus.WaitCommit(h.Wait); err != nil {
					return fmt.Errorf("receive from %d, tag %d: %w", k.Src, k.Tag, err)
				}
			}
			if err := e.Progress(); err != nil {
				return err
			}
		}
		if err := r.Status().Err; err != nil {
			return fmt.Errorf("receive from %d, tag %d: %w", k.Src, k.Tag, err)
		}
		h.done = append(h.done, bus.Now())
		h.depths = append(h.depths, max(r.Status().Depth, 0))
		h.maxQueue = max(h.maxQueue, e.Pending()+1)
	}
	if lq != nil {
		h.copies = lq.Spilled
	}
	return nil
}

// CostReceiver is a receiving node's software at the transaction level (a Host): from PostAt it
// posts a receive for every wanted message, in order (in the order of sender and tag,
// messages that arrived interleaved from many senders sit ahead of the one wanted: deep
// searches), and completes each one after searching the unexpected queue: depth x the
// per-message cost, plus the fetch of a body not in the entry. Consumed entries go back to
// the NIC oldest first, as drivers/mpi's host driver releases them.
type CostReceiver struct {
	eng      *netsim.Engine
	node     *Node
	lhs      bool
	costs    Costs
	want     []Want      // the receives, in posting order
	next     int         // the next receive to complete
	busy     netsim.Time // the host is busy until then
	queue    []queued    // unexpected: committed, not received, in arrival order
	consumed []bool      // by commit number
	sizes    []int       // by commit number
	released int         // commits released so far (a prefix)
	pending  bool        // a completion or copy event is scheduled
	entries  int         // the receive path's LH entries
	copies   int
	done     []netsim.Time
	depths   []int
	maxQueue int
}

// Costs are what CostReceiver charges: inputs, not simulated.
type Costs struct {
	PostAt netsim.Time // when the host posts its receives
	// SearchPerMessage is the cost to compare one queued message, with and without LHS.
	SearchPerMessage map[bool]netsim.Time
	// Fetch is the cost to bring a matched message's body that is not in an LH entry (the
	// tail of a split message; with LHS off, every body).
	Fetch netsim.Time
}

// NewCostReceiver is the host of a node with entries LH entries, LHS on or off, on eng; Attach
// gives it its node once the node is made.
func NewCostReceiver(eng *netsim.Engine, want []Want, lhs bool, entries int, costs Costs) *CostReceiver {
	return &CostReceiver{eng: eng, lhs: lhs, costs: costs, want: want, entries: entries}
}

// Attach is the node the host releases entries on; the host's events take the node's keys
// (Config.Keys), if it has them.
func (h *CostReceiver) Attach(n *Node) { h.node = n }

// at schedules the host's event arg at t: keyed as its node's, or in scheduling order.
func (h *CostReceiver) at(t netsim.Time, arg int64) {
	if h.node != nil && h.node.cfg.Keys != nil {
		h.eng.AtKey(t, h.node.cfg.Keys.Next(), h, arg)
		return
	}
	h.eng.At(t, h, arg)
}

type queued struct {
	k      Want
	seq    int // commit number
	size   int
	split  bool
	copied bool // moved to host memory, its entry released
}

// Results implements Receiver.
func (h *CostReceiver) Results() ([]netsim.Time, []int, int, int) {
	return h.done, h.depths, h.maxQueue, h.copies
}

// Posted implements Receiver: the host takes up each receive at PostAt or, after the
// first, when the one before it has completed (it receives in order, one at a time).
func (h *CostReceiver) Posted() []netsim.Time {
	p := make([]netsim.Time, len(h.done))
	for i := range p {
		p[i] = h.costs.PostAt
		if i > 0 {
			p[i] = max(p[i], h.done[i-1])
		}
	}
	return p
}

// Unfinished implements Receiver.
func (h *CostReceiver) Unfinished() string {
	if len(h.done) == len(h.want) {
		return ""
	}
	return fmt.Sprintf("its host waits for the message from %d, tag %d", h.want[h.next].Src, h.want[h.next].Tag)
}

// Committed implements Host.
func (h *CostReceiver) Committed(now netsim.Time, c Commit, msg []byte) {
	env, err := mpi.ParseEnvelope(msg) // cluster's sends carry an MPI envelope
	if err != nil {
		panic(fmt.Sprintf("lhsnic: a message without an envelope reached the host: %v", err))
	}
	k := Want{int(env.Source), int(env.Tag)}
	h.queue = append(h.queue, queued{k: k, seq: len(h.sizes), size: len(msg), split: len(msg) > hw.InlineMax})
	h.sizes = append(h.sizes, len(msg))
	h.consumed = append(h.consumed, false)
	h.maxQueue = max(h.maxQueue, len(h.queue))
	h.try(now)
}

// try schedules the next receive's completion if its message is here. If it is not, and
// the LH buffer is full of messages received later, the host copies the oldest of them to
// host memory and releases its entry (as an MPI library moves unexpected messages off the
// NIC), so that the one it waits for can come in.
func (h *CostReceiver) try(now netsim.Time) {
	if h.pending || h.next >= len(h.want) {
		return
	}
	start := max(now, h.busy, h.costs.PostAt)
	for d, q := range h.queue {
		if q.k != h.want[h.next] {
			continue
		}
		cost := netsim.Time(d+1) * h.costs.SearchPerMessage[h.lhs]
		if (!h.lhs || q.split) && !q.copied {
			cost += h.costs.Fetch
		}
		h.pending = true
		h.depths = append(h.depths, d)
		h.at(start+cost, int64(d))
		return
	}
	if h.lhs && len(h.sizes)-h.released >= h.entries {
		for i, q := range h.queue {
			if !q.copied {
				h.pending = true
				h.at(start+h.costs.Fetch, -1-int64(i))
				return
			}
		}
	}
}

// Fire completes the receive whose message sits at depth arg, or (arg < 0) the copy of the
// queued message -1-arg to host memory.
func (h *CostReceiver) Fire(now netsim.Time, arg int64) {
	h.pending = false
	h.busy = now
	if arg < 0 {
		q := &h.queue[-1-arg]
		q.copied = true
		h.copies++
		h.consumed[q.seq] = true
		h.releaseConsumed(now)
		h.try(now)
		return
	}
	q := h.queue[arg]
	h.queue = slices.Delete(h.queue, int(arg), int(arg)+1)
	h.done = append(h.done, now)
	h.next++
	h.consumed[q.seq] = true
	h.releaseConsumed(now)
	h.try(now)
}

// releaseConsumed gives the NIC back the oldest run of consumed entries.
func (h *CostReceiver) releaseConsumed(now netsim.Time) {
	var sizes []int
	for h.released < len(h.consumed) && h.consumed[h.released] {
		sizes = append(sizes, h.sizes[h.released])
		h.released++
	}
	if len(sizes) > 0 {
		h.node.Release(now, sizes)
	}
}
