package gosim

import "github.com/lhsim/lhsim/hw"

// Stretches: a run of cycles in which the host does not touch the board, made in one call to
// a core that can (Stretcher: the RTL through one C call instead of one a cycle). The board
// says how long it runs (Until); when the core cannot, or the board is not one a stretch
// covers, Board.RunWhile steps it a cycle at a time to the same end. Either way every cycle
// is the same, ports, counters and memory alike.

// Until says how long Board.RunWhile runs: at most Max cycles, and only while one of the
// conditions holds (checked before every cycle).
type Until struct {
	Max          uint64
	Always       bool   // every cycle up to Max
	Input        bool   // while messages are queued at the input (Board.Pending)
	Host         bool   // while host accesses are queued (Board.HostBusy)
	Commits      bool   // while Count.Commits is not CommitTarget
	CommitTarget uint64 // with Commits
	// Release is the benchmark's host (device.Receiver.Feed): after a cycle that commits an
	// LH entry it posts LH_RELEASE 1 and, from Units in order, the entry's tail units (0: none).
	Release bool
	Units   []uint32
}

// Stretcher is a Core that runs a stretch itself, with the board's source, memory and host
// around it as Board.Step drives them: the RTL through the cgo bridge.
type Stretcher interface {
	Core
	RunStretch(s *Stretch)
}

// HostWrite is a posted host write (the C bridge's lhs_op).
type HostWrite struct{ Addr, Data uint32 }

// MemWrite is a write the core made to the SO-DIMM (the C bridge's lhs_memw).
type MemWrite struct {
	Data word
	Addr uint32
	_    uint32
}

// StretchEvent is an event pulse in a stretch (the C bridge's lhs_event): Flags as
// Board.OnEvent gives them, Cycle from the stretch's first (0).
type StretchEvent struct {
	Cycle uint64
	Flags uint32
	_     uint32
}

// Stretch flags (the C bridge's LHS_WHILE_* and LHS_*).
const (
	StretchAlways  = 1
	StretchInput   = 2
	StretchHost    = 4
	StretchCommits = 8
	StretchRelease = 16
	StretchEvents  = 32
)

// StretchCtl is what a stretch is asked and what it did (the C bridge's lhs_run_ctl, field
// for field).
type StretchCtl struct {
	MaxCycles, Commits, CommitTarget                          uint64
	Flags, MsgOff, NOps, CapOps, NUnits, CapWrites, CapEvents uint32
	UnitsUsed, NWrites, NEvents, MsgsTaken, ReadReq           uint32
	Cycles, NewCommits, MsgsDone, VecDone, Stalls, Beats      uint64
}

// Stretch is one stretch's inputs, buffers and account, for a Stretcher.
type Stretch struct {
	Pins   *Pins
	Msgs   []byte   // the queued messages back to back
	Lens   []uint32 // their lengths
	Ops    []HostWrite
	Units  []uint32
	Writes []MemWrite
	Events []StretchEvent
	Ctl    StretchCtl
}

// maxStretch bounds one stretch, so that a long run still reports progress (OnAdvance) often.
const maxStretch = 1 << 16

// OnEvent calls f for every cycle in which an event output pulsed, in cycle order, no later
// than the call that ran the cycle returns: flags are ev_commit | ev_msg_done<<1 |
// ev_vec_done<<2. Unlike OnCycle it leaves stretches on.
func (b *Board) OnEvent(f func(cycle uint64, flags uint8)) { b.onEvent = append(b.onEvent, f) }

// OnAdvance calls f with the cycle count after every cycle or stretch run.
func (b *Board) OnAdvance(f func(cycle uint64)) { b.onAdvance = append(b.onAdvance, f) }

func (u *Until) running(b *Board) bool {
	return u.Always || (u.Input && b.src.Pending() > 0) || (u.Host && b.HostBusy()) ||
		(u.Commits && b.Count.Commits != u.CommitTarget)
}

// RunWhile runs cycles as u says and returns how many it ran and how many of u.Units it
// released.
func (b *Board) RunWhile(u Until) (uint64, int) {
	var n uint64
	used := 0
	for n < u.Max && u.running(b) {
		if k, released := b.stretch(&u, u.Max-n, used); k > 0 {
			n += k
			used += released
			continue
		}
		before := b.Count.Commits
		b.Step()
		n++
		if u.Release {
			for k := before; k < b.Count.Commits; k++ {
				b.Post(hw.RegLHRelease, 1)
				if used < len(u.Units) {
					if x := u.Units[used]; x > 0 {
						b.Post(hw.RegTailRelease, x*16)
					}
					used++
				}
			}
		}
	}
	return n, used
}

// stretchable reports whether a stretch covers the board as it is: a core that runs them, no
// OnCycle observer, a source that never idles or adds noise, memory with no read in flight and
// no random back-pressure, and only posted writes on the host bus.
func (b *Board) stretchable() bool {
	if b.fast == nil || len(b.watch) > 0 || b.src.idle > 0 || b.src.noise || len(b.reads) > 0 {
		return false
	}
	if m := &b.mem.p; b.mem.Busy() || m.BusyPercent > 0 || m.StallPercent > 0 || m.MaxOutstanding <= 0 {
		return false
	}
	for i := range b.ops {
		if !b.ops[i].write {
			return false
		}
	}
	return true
}

// stretch runs up to max cycles of u in one call to the core when the board allows it, and
// returns the cycles run (0: none, step instead) and the units released.
func (b *Board) stretch(u *Until, max uint64, used int) (uint64, int) {
	if !b.stretchable() {
		return 0, 0
	}
	s := b.scratch
	if s == nil {
		s = &Stretch{Pins: &b.pins, Writes: make([]MemWrite, 4096), Events: make([]StretchEvent, 1024)}
		b.scratch = s
	}
	s.Pins = &b.pins
	s.Ops = s.Ops[:0]
	for _, op := range b.ops {
		s.Ops = append(s.Ops, HostWrite{Addr: op.addr, Data: op.data})
	}
	nops := len(s.Ops)
	if cap(s.Ops) < nops+256 {
		s.Ops = append(make([]HostWrite, 0, 2*nops+256), s.Ops...)
	}
	s.Ops = s.Ops[:cap(s.Ops)]
	var off int
	s.Msgs, s.Lens, off = b.src.queued()
	s.Units = nil
	c := &s.Ctl
	*c = StretchCtl{MaxCycles: min(max, maxStretch), Commits: b.Count.Commits, CommitTarget: u.CommitTarget,
		MsgOff: uint32(off), NOps: uint32(nops), CapOps: uint32(len(s.Ops)),
		CapWrites: uint32(len(s.Writes)), CapEvents: uint32(len(s.Events))}
	for _, f := range []struct {
		on   bool
		flag uint32
	}{{u.Always, StretchAlways}, {u.Input, StretchInput}, {u.Host, StretchHost}, {u.Commits, StretchCommits},
		{u.Release, StretchRelease}, {len(b.onEvent) > 0, StretchEvents}} {
		if f.on {
			c.Flags |= f.flag
		}
	}
	if u.Release && used < len(u.Units) {
		s.Units = u.Units[used:]
		c.NUnits = uint32(len(s.Units))
	}
	b.fast.RunStretch(s)
	s.Msgs, s.Lens, s.Units = nil, nil, nil
	n := c.Cycles
	if n == 0 {
		return 0, 0
	}
	start := b.cycle
	for _, w := range s.Writes[:c.NWrites] {
		b.mem.land(w.Addr, w.Data)
	}
	b.src.advance(int(c.MsgsTaken), c.Beats, int(c.MsgOff))
	b.src.presenting = b.pins.MsgValid != 0 && b.pins.MsgReady == 0
	b.ops = b.ops[:0]
	for _, op := range s.Ops[:c.NOps] {
		b.ops = append(b.ops, hostOp{write: true, addr: op.Addr, data: op.Data})
	}
	b.Count.Commits += c.NewCommits
	b.Count.Messages += c.MsgsDone
	b.Count.VecDone += c.VecDone
	b.Count.Stalls += c.Stalls
	if c.ReadReq != 0 {
		b.mem.Observe(&b.pins, start+n-1)
	}
	for _, e := range s.Events[:c.NEvents] {
		for _, f := range b.onEvent {
			f(start+e.Cycle, uint8(e.Flags))
		}
	}
	b.cycle += n
	for _, f := range b.onAdvance {
		f(b.cycle)
	}
	return n, int(c.UnitsUsed)
}
