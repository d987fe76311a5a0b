// Package lhsnic puts the LHS receive path inside the network, as a node's NIC.
package lhsnic

// lhsnic puts the LHS receive path inside the network: the Verilated RTL or the Go
// golden model on its board, through the device layer (in this process or in a plugin
// process), or the transaction-level model (gosim/tlm). The MPI eager messages that reach a
// node become messages on its 128-bit input stream at the NIC clock, and when the receive
// path holds the stream off (LH buffer or tail ring full), the node keeps the message's last
// packet in the fabric's ejection buffer, so the back-pressure spreads into the network.
//
// Time is kept in step conservatively: device cycle k starts at Base + k*Period on the
// engine's clock, and the device runs cycle k once the engine has reached its start, or
// earlier when the engine's next event comes after that start (nothing can arrive in
// between). A message that arrives at t enters the input at the first cycle that starts
// after t, whatever order the events at t run in. While the device has work it is
// stepped in batches of at most Batch cycles, each batch ending at the engine's next event;
// idle, it is not stepped at all and its idle cycles are skipped in bulk. What the device
// tells the network (a message taken whole, so its packet's buffer space is free) is
// timestamped with the cycle it happened in, so the batch size changes the number of engine
// events and nothing else (TestBatchInvariance).
//
// The device runs in steps (device.Steps) that end at every cycle the network must react to:
// a message taken, an entry committed. A plugin device costs one call a step, and the
// transaction-level model no work a cycle at all: it computes when each message is taken and
// commits, and a step jumps to the next such cycle.

import (
	"fmt"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
)

// Config is one node's receive path.
type Config struct {
	// Device is the receive path: rtl, go or lockstep, on the cgo bridge (in this process) or
	// the plugin bridge (in a plugin process of its own).
	Device device.Config
	// TLM runs the transaction-level model (gosim/tlm) instead of Device, with Device's
	// ENTRIES.
	TLM bool
	// Period is the NIC clock. source: the LHS paper's section 5.1, DIMMnet-2's FPGA at 100 MHz.
	Period netsim.Time
	// Batch bounds how many cycles run per engine event while the device has work.
	Batch int
	// LHS turns the splitter's LHS rule on (off: every message whole into the SO-DIMM ring).
	LHS bool
	// HoldReleases is when the host starts taking messages (its receives are posted late,
	// the unexpected-message case of Tanabe et al.'s LHS paper): until then nothing is released and the
	// buffers fill; from then on every LH entry (and its tail) is released the cycle after
	// it commits.
	HoldReleases netsim.Time
	// Host, when set, takes every committed message instead (HoldReleases is then unused):
	// a host model that receives them and gives their space back with Node.Release.
	Host Host
	// Program, when set, is the host's software, run on its CPU model (CPU, the zero value
	// taking hostcpu.Pentium4) against the node's host bus (HostBus): it programs the NIC,
	// reads what the network brought and releases it, all on the device. Host and
	// HoldReleases are then unused. It needs a device (not TLM).
	Program Program
	CPU     hostcpu.Config
	// Keys, when set, keys the events of the node, its host program and its costs host
	// (netsim.Engine.AtKey; on a machine of parts, netsim/machine gives each node its own):
	// their order among one instant's events is then the node's own, on any part. nil: the
	// engine's order of scheduling.
	Keys *netsim.Keys
	// TakenAtTime runs the done of Arrive in an event of its own at the time t the message
	// was taken, not inside the step that found the take: that step may run ahead of t (to
	// its engine's next event, on parts to the window's end), so a done that acts at its
	// engine's time (a GOAL rank starting its next operation) or draws keys would see a time
	// and an order that depend on how far the node ran ahead. TakenKeys, when set, keys those
	// events from a counter only the node's takes draw, in the order of its messages, so
	// their order among one instant's events is the same on any split.
	TakenAtTime bool
	TakenKeys   *netsim.Keys
}

// Host is the software at the node: it learns of each message the receive path committed,
// at the time of its commit, and releases entries with Node.Release when it has consumed
// them.
type Host interface {
	Committed(now netsim.Time, c Commit, msg []byte)
}

// DefaultConfig is the RTL at 100 MHz, LHS on, the host taking every message at once.
func DefaultConfig() Config {
	return Config{Device: device.Config{Model: device.RTL, Bridge: device.Cgo}, Period: 10 * netsim.Nanosecond, Batch: 256, LHS: true}
}

// Commit is one message the receive path committed: when, and which.
type Commit struct {
	Cycle uint64      // device cycle of ev_commit (ev_msg_done with LHS off)
	Time  netsim.Time // its start on the engine's clock
	Size  int         // the message's length
}

// RxKind is a step of a message through the receive path.
type RxKind uint8

// The steps, in the order a message takes them.
const (
	RxArrived  RxKind = iota // its last packet arrived: it goes into the input stream in Cycle
	RxTaken                  // its last beat was taken off the input
	RxLHEntry                // ev_commit: its LH entry committed (LHS on)
	RxDone                   // ev_msg_done: all of it written, the tail in the SO-DIMM ring when it has one
	RxReleased               // the host gave its LH entry and tail space back (its read is done)
)

var rxKindNames = [...]string{"arrival", "taken", "LH entry", "message done", "host release"}

func (k RxKind) String() string { return rxKindNames[k] }

// RxEvent is one step of message Msg (the node's Msg-th, from 0) through the receive path:
// the device cycle it happened in, and Board, that cycle as the device counts the cycles it
// ran (the waveform's cycle: OnCommit's board), at Time on the engine's clock. Tail is the
// bytes of the message that go to the SO-DIMM ring (0: all in its LH entry).
type RxEvent struct {
	Kind       RxKind
	Msg        int
	Cycle      uint64
	Board      uint64
	Time       netsim.Time
	Size, Tail int
}

// tell gives OnEvent the next message's event of kind k.
func (n *Node) tell(k RxKind, cycle, board uint64) {
	i := n.seen[k]
	if i >= len(n.sizes) {
		return
	}
	n.seen[k]++
	size := n.sizes[i]
	tail := int(hw.Reserved(uint32(size), n.cfg.LHS, n.splitPos, hw.MaxMsgReset, hw.TailSizeMax/16) * 16)
	n.OnEvent(RxEvent{Kind: k, Msg: i, Cycle: cycle, Board: board, Time: n.start(cycle), Size: size, Tail: tail})
}

// Node is one network node's receive path.
type Node struct {
	cfg   Config
	eng   *netsim.Engine
	path  receivePath
	local *device.Local   // the device, when it is in this process
	bus   *HostBus        // the host's program, if it runs one
	m     *netsim.Machine // the node's host program on the engine; its first failure stops the node

	base    netsim.Time // engine time of device cycle 0 (after reset)
	next    uint64      // the device cycle to run next
	settle  int         // quiet cycles still to run before the device counts as idle
	wakeAt  netsim.Time // the step event scheduled (Never: none)
	wakeGen int64       // its number: an event with another number was replaced by it
	group   *Group      // the nodes it is stepped with, if any
	lastRun netsim.Time // the start of the last cycle run
	st      device.Steps
	wakes   uint64 // step events fired (WakeEvents)
	stuck   uint64 // cycles the input has been held off in a row, nothing else happening

	inputs   []input  // messages injected and not yet taken whole, oldest first
	order    [][]byte // the messages injected and not yet committed, oldest first
	held     []int    // committed messages not yet released (their sizes), before HoldReleases
	entries  int      // LH buffer entries
	splitPos uint32

	Commits []Commit // every commit, in order
	// OnCommit, when set, is told of each commit as it is taken (a timeline), with its
	// cycle as the device counts the cycles it ran (the idle cycles the node skips are not
	// run): the waveform's cycle, at (board + hw.ResetCycles) cycle times in the device's
	// FST, as waves.Events' markers count.
	OnCommit func(c Commit, board uint64)
	// OnEvent, when set, is told of each message's steps through the receive path (a
	// timeline), each kind in order.
	OnEvent func(e RxEvent)
	sizes   []int  // the sizes of the messages arrived, while OnEvent is set
	seen    [5]int // per RxKind: how many were told
	ran     uint64 // cycles the device has run (OnCommit's board cycle)
	Stalls  uint64 // cycles the input was held off (s_msg_tvalid && !s_msg_tready)
}

type input struct {
	msg  []byte
	done func(now netsim.Time)
}

// New opens the node's receive path and programs it as a host would.
func New(eng *netsim.Engine, cfg Config) (*Node, error) {
	if cfg.Period <= 0 || cfg.Batch < 1 {
		return nil, fmt.Errorf("lhsnic: period %v and batch %d: want both positive", cfg.Period, cfg.Batch)
	}
	n := &Node{cfg: cfg, eng: eng, m: netsim.NewMachine(eng), splitPos: hw.SplitPosReset, entries: cfg.Device.Params().Entries}
	if cfg.TLM && cfg.Program != nil {
		return nil, fmt.Errorf("lhsnic: a host program needs a device's host bus, and the transaction-level model has none")
	}
	if cfg.TLM {
		p, err := newTLMPath(cfg.LHS, n.entries)
		if err != nil {
			return nil, err
		}
		n.path = p
	} else {
		dev, err := device.Open(cfg.Device)
		if err != nil {
			return nil, err
		}
		if cfg.Program == nil { // else the program programs the NIC
			ctrl := uint32(hw.CtrlEnable)
			if cfg.LHS {
				ctrl |= hw.CtrlLHSOn
			}
			if err := dev.WriteReg(hw.RegTailSize, hw.TailSizeMax); err == nil {
				err = dev.WriteReg(hw.RegCtrl, ctrl)
			}
			if err != nil {
				dev.Close()
				return nil, err
			}
		}
		sd, ok := dev.(stepDevice)
		if !ok {
			dev.Close()
			return nil, fmt.Errorf("lhsnic: a device of type %T cannot run in steps", dev)
		}
		n.path = devicePath{sd}
		n.local, _ = dev.(*device.Local)
	}
	n.base, n.wakeAt = eng.Now(), netsim.Never
	if cfg.Program != nil {
		cc := cfg.CPU
		if cc == (hostcpu.Config{}) {
			cc = hostcpu.Pentium4()
		}
		cpu, err := hostcpu.New(cc)
		if err != nil {
			n.path.Close()
			return nil, err
		}
		n.bus = startHost(n, cpu, cfg.Program)
	}
	return n, nil
}

// WakeEvents is the number of the node's own step events that fired (a grouped node's are
// its group's: Group.Events). How many there are depends on how far the node may run ahead
// of the engine's next event, which on a machine of parts is its part's: a run's results do
// not, and a count of its events that must be the same on any number of parts leaves them
// out.
func (n *Node) WakeEvents() uint64 { return n.wakes }

// Engine is the engine the node runs on (on a machine of parts, its node's part's).
func (n *Node) Engine() *netsim.Engine { return n.eng }

// Bus is the host bus of the node's Program (nil without one): after a run, whether the
// program finished and what it waits for if not.
func (n *Node) Bus() *HostBus { return n.bus }

// Local is the device when it is in this process (the cgo bridge), for reading its entries
// and registers after a run and watching its ports; nil on the plugin bridge and for the
// transaction-level model.
func (n *Node) Local() *device.Local { return n.local }

// Err is the first error of the device (a plugin process that died, a release the model
// refused): the node stopped there, and the run ends with its receivers waiting.
func (n *Node) Err() error { return n.m.Err() }

// Close ends a host program left waiting and frees the device (and reports a lockstep
// disagreement, if any).
func (n *Node) Close() error {
	if n.bus != nil {
		n.bus.close()
	}
	return n.path.Close()
}

// fail records the device's first error and stops the engine: the node does no more, and
// the run ends with the error (cluster.Run reports it).
func (n *Node) fail(err error) { n.m.Fail(fmt.Errorf("lhsnic: %w", err)) }

// ranPast reports (and fails the node with) a call at now after the device has already run a
// cycle that starts after now: a lookahead too long for the network (Group).
func (n *Node) ranPast(now netsim.Time) bool {
	if n.lastRun > now { // (cycles skipped in bulk while the input waits for the host do not count)
		n.fail(fmt.Errorf("causality: a call at %v after a cycle at %v ran: the group's lookahead is longer than the network's", now, n.lastRun))
		return true
	}
	return false
}

// start is the engine time device cycle c starts.
func (n *Node) start(c uint64) netsim.Time { return n.base + netsim.Time(c)*n.cfg.Period }

// Arrive hands the node a message whose last packet has arrived at now; done(t) is called at
// the time t its last beat has been taken by the receive path.
func (n *Node) Arrive(now netsim.Time, msg []byte, done func(now netsim.Time)) error {
	if err := n.reach(now); err != nil {
		return err
	}
	if err := n.path.Inject(n.next, msg); err != nil {
		return fmt.Errorf("lhsnic: %w", err)
	}
	n.st.Pending++
	n.st.Busy = true
	n.inputs = append(n.inputs, input{msg, done})
	n.order = append(n.order, msg)
	if n.OnEvent != nil {
		n.sizes = append(n.sizes, len(msg))
		n.tell(RxArrived, n.next, n.ran)
	}
	n.settle, n.stuck = 3, 0
	n.wake(now)
	return nil
}

// reach brings the node to now for something that comes from outside at now (a message, a
// host access): the cycles that start by now run, and an idle device skips to the first cycle
// after now, where it will go in. It returns the node's error, or a causality error.
func (n *Node) reach(now netsim.Time) error {
	if n.m.Err() != nil {
		return n.m.Err()
	}
	n.catchUp(now)
	if n.ranPast(now) {
		return n.m.Err()
	}
	if !n.busy() {
		n.next = max(n.next, n.cycleAfter(now))
	}
	return nil
}

// cycleAfter is the first cycle starting after t.
func (n *Node) cycleAfter(t netsim.Time) uint64 {
	if t < n.base {
		return 0
	}
	return uint64((t-n.base)/n.cfg.Period) + 1
}

// cycleAt is the first cycle starting at or after t.
func (n *Node) cycleAt(t netsim.Time) uint64 {
	if t <= n.base {
		return 0
	}
	return uint64((t - n.base + n.cfg.Period - 1) / n.cfg.Period)
}

// busy: the device has work that running cycles advances.
func (n *Node) busy() bool { return n.m.Err() == nil && (n.st.Busy || n.settle > 0) }

// catchUp runs the cycles that start at or before t, if the device has work.
func (n *Node) catchUp(t netsim.Time) {
	for n.busy() && n.start(n.next) <= t {
		n.step(uint64(t-n.start(n.next))/uint64(n.cfg.Period) + 1)
	}
}

// wake schedules a step event: for the next cycle while the device has work, else for the
// host's first release if some are held.
func (n *Node) wake(now netsim.Time) {
	at := netsim.Never
	switch {
	case n.m.Err() != nil:
	case n.busy():
		at = max(now, n.start(n.next))
	case len(n.held) > 0:
		at = max(now, n.cfg.HoldReleases)
	}
	if at < n.wakeAt { // replaces a later one, which will find it is stale
		n.wakeGen++
		n.wakeAt = at
		switch {
		case n.group != nil:
			n.group.schedule(at)
		case n.cfg.Keys != nil:
			n.eng.AtKey(at, n.cfg.Keys.Next(), n, n.wakeGen)
		default:
			n.eng.At(at, n, n.wakeGen)
		}
	}
}

// Fire implements netsim.Handler: run a batch of cycles, each starting no later than now or
// before the engine's next event.
func (n *Node) Fire(now netsim.Time, gen int64) {
	n.wakes++
	if gen != n.wakeGen {
		return // replaced by an earlier step event
	}
	n.run(now)
}

// run runs the node's step event at now.
func (n *Node) run(now netsim.Time) {
	n.wakeAt = netsim.Never
	if n.m.Err() != nil {
		return
	}
	if !n.busy() && len(n.held) > 0 && now >= n.cfg.HoldReleases {
		// Idle until the host's first release: skip to it and release.
		n.next = max(n.next, n.cycleAfter(now))
		n.release(n.held)
		n.held = n.held[:0]
		n.settle = 3
	}
	for ran := uint64(0); ran < uint64(n.cfg.Batch) && n.busy(); {
		// The cycles that may run: those starting no later than now, or before the
		// engine's next event (a message taken may schedule an earlier one: each step ends
		// at a take, and the limit is looked at again).
		limit := n.horizon()
		k := uint64(n.cfg.Batch) - ran
		if limit != netsim.Never {
			k = 0
			if lim := n.cycleAt(limit); lim > n.next {
				k = lim - n.next // the cycles starting before it
			}
		}
		if end := n.cycleAfter(now); end > n.next {
			k = max(k, end-n.next)
		}
		if k = min(k, uint64(n.cfg.Batch)-ran); k == 0 {
			break
		}
		ran += n.step(k)
		if n.waitsForHost() {
			// Held off until the host's first release, with nothing else moving: the cycles
			// until then change only the stall count, so they are skipped in bulk.
			skip := n.cycleAt(n.cfg.HoldReleases) - n.next
			n.next += skip
			n.Stalls += skip
			break
		}
	}
	if n.heldOff() && !stepHeldOff {
		// Nothing changes until a host access or a message comes (each brings the node up
		// to its time, running the cycles between); if none ever does, the run ends with
		// its waiting ranks.
		return
	}
	n.wake(max(now, n.start(n.next)))
}

// horizon is the time before which the device may run: the engine's next event, and in a
// group the other nodes' next steps plus the lookahead. On a machine of parts the engine is
// the node's part's, and the window it runs in bounds it too: another part's events come at
// its end at the soonest.
func (n *Node) horizon() netsim.Time {
	h := min(n.eng.NextAt(), n.eng.WindowEnd())
	if n.group != nil {
		h = min(h, n.group.others(n))
	}
	return h
}

// step runs at most k cycles from n.next (at least one), ending after one the network or
// the host must react to, and returns how many ran.
func (n *Node) step(k uint64) uint64 {
	if len(n.held) > 0 {
		if n.start(n.next) >= n.cfg.HoldReleases {
			n.release(n.held)
			n.held = n.held[:0]
		} else {
			k = min(k, n.cycleAt(n.cfg.HoldReleases)-n.next) // stop where the host starts
		}
	}
	st, err := n.path.Steps(n.next, int(min(k, 1<<30)), n.settle)
	if err != nil {
		n.fail(err)
		return max(k, 1)
	}
	first, ran := n.next, n.ran
	n.ran += uint64(st.Cycles)
	n.st, n.settle = st, st.Settle
	if st.Cycles > 0 && st.Stalls == uint64(st.Cycles) && !st.Taken && len(st.Events) == 0 && len(st.Reads) == 0 {
		n.stuck += uint64(st.Cycles)
	} else {
		n.stuck = 0
	}
	n.next += uint64(st.Cycles)
	if st.Cycles > 0 {
		n.lastRun = n.start(n.next - 1)
	}
	n.Stalls += st.Stalls
	for _, e := range st.Events {
		if n.bus != nil {
			n.bus.event(first+e.Cycle, e.Flags)
		}
		if n.OnEvent != nil && n.cfg.LHS && e.Flags&drivers.EvCommit != 0 {
			n.tell(RxLHEntry, first+e.Cycle, ran+e.Cycle)
		}
		if n.OnEvent != nil && e.Flags&drivers.EvMsgDone != 0 {
			n.tell(RxDone, first+e.Cycle, ran+e.Cycle)
		}
		if e.Flags&drivers.EvCommit != 0 || !n.cfg.LHS && e.Flags&drivers.EvMsgDone != 0 {
			n.committed(first+e.Cycle, ran+e.Cycle)
		}
	}
	if len(st.Reads) > 0 && n.bus != nil {
		n.bus.answered(st.Reads, n.start(n.next)) // at the end of the cycle that brought them
	}
	if st.Taken {
		if n.OnEvent != nil {
			n.tell(RxTaken, n.next-1, n.ran-1)
		}
		in := n.inputs[0]
		n.inputs = n.inputs[1:]
		if in.done != nil {
			n.taken(in.done, n.start(n.next)) // taken at the end of the cycle
		}
	}
	if st.Cycles == 0 {
		return 1 // nothing to run: count it, so that a caller's loop ends
	}
	return uint64(st.Cycles)
}

// committed takes the commit (ev_commit; ev_msg_done with LHS off) in device cycle c.
func (n *Node) committed(c, board uint64) {
	if len(n.order) == 0 {
		n.fail(fmt.Errorf("a commit in cycle %d with no message waiting for one", c))
		return
	}
	msg := n.order[0]
	n.order = n.order[1:]
	size := len(msg)
	cm := Commit{Cycle: c, Time: n.start(c), Size: size}
	n.Commits = append(n.Commits, cm)
	if n.OnCommit != nil {
		n.OnCommit(cm, board)
	}
	if n.bus != nil {
		n.bus.committed(n.start(c + 1)) // LH_PROD (MSG_COUNT) reads it from the next cycle
		return
	}
	if n.cfg.Host != nil {
		n.cfg.Host.Committed(cm.Time, cm, msg)
		return
	}
	if cm.Time < n.cfg.HoldReleases {
		n.held = append(n.held, size)
		return
	}
	n.release([]int{size})
}

// Release gives back the LH entries and tail space of consumed messages of these sizes, at
// now: the host's writes to LH_RELEASE and TAIL_RELEASE, run on the cycles from now.
func (n *Node) Release(now netsim.Time, sizes []int) {
	n.hostAccess(now, func(receivePath, uint64) error {
		n.release(sizes)
		return nil
	})
}

// hostAccess puts host bus accesses (ops posts them) on the device at now: they run on the
// cycles from the first that starts after now, after what the device has already been given.
func (n *Node) hostAccess(now netsim.Time, ops func(p receivePath, cycle uint64) error) error {
	if err := n.reach(now); err != nil {
		return err
	}
	if err := ops(n.path, n.next); err != nil {
		n.fail(err)
		return n.m.Err()
	}
	n.st.HostBusy, n.st.Busy = true, true
	n.settle, n.stuck = 3, 0 // (a release lets the input go a cycle or two later)
	n.wake(now)
	return nil
}

// release gives back the LH entries and tail space of messages of these sizes, as posted
// host writes (they run on the next cycles).
func (n *Node) release(sizes []int) {
	if n.OnEvent != nil {
		for range sizes {
			n.tell(RxReleased, n.next, n.ran)
		}
	}
	var tail uint32
	for _, s := range sizes {
		tail += hw.Reserved(uint32(s), n.cfg.LHS, n.splitPos, hw.MaxMsgReset, hw.TailSizeMax/16) * 16
	}
	post := func(reg, val uint32) {
		if err := n.path.PostWrite(n.next, reg, val); err != nil {
			n.fail(err)
		}
		n.st.HostBusy, n.st.Busy = true, true
	}
	if n.cfg.LHS {
		post(hw.RegLHRelease, uint32(len(sizes)))
	}
	if tail > 0 {
		post(hw.RegTailRelease, tail)
	}
}
