package device

import (
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/plugin"
)

// Steps is what a run of cycles did, as a network node (netsim/lhsnic) needs to know it: the
// node runs the device in steps that end at every cycle the network must react to, so that
// the same code drives a device in this process and one in a plugin process (one call a
// step, not one a cycle).
type Steps struct {
	Cycles  int     // cycles run
	Taken   bool    // the last cycle run took a message's last beat off the input
	Events  []Event // event pulses; Cycle counts from the step's first cycle (0)
	Stalls  uint64  // cycles the input was held off (s_msg_tvalid && !s_msg_tready)
	Stalled bool    // the last cycle run held it off
	Settle  int     // quiet cycles still to run before the device counts as idle
	// Reads are the answers of posted reads (PostRead) that came back, in the order they
	// were posted: a step ends after the cycle that answered the last read outstanding.
	Reads []uint32
	// After the step: messages injected and not fully taken, and gosim.Board's Busy,
	// Memory().Busy and HostBusy.
	Pending                 int
	Busy, MemBusy, HostBusy bool
}

// StepArgs runs at most Max cycles (Steps).
type StepArgs struct {
	Args
	Max, Settle int
}

// StepReply is a step's account.
type StepReply struct {
	Status
	Steps Steps
}

// stepper runs a board in steps.
type stepper struct {
	b       *gosim.Board
	watched bool
	stalled bool
	ev      drivers.Events
	reads   []*uint32 // posted reads not yet reported, oldest first
	answers uint64    // b.Count.HostReads when the oldest of them was posted, plus those before it answered
}

// postRead queues a host bus read whose answer a later step reports.
func (s *stepper) postRead(addr uint32) {
	if len(s.reads) == 0 {
		s.answers = s.b.Count.HostReads
	}
	v := new(uint32)
	s.reads = append(s.reads, v)
	s.b.PostRead(addr, v)
}

func (s *stepper) observe(_ uint64, p *gosim.Pins) {
	s.stalled = p.MsgValid != 0 && p.MsgReady == 0
	s.ev = pinEvents(p)
}

// run runs cycles while the board is busy or settle quiet cycles remain, at most max, and
// ends after the first cycle that took a message's last beat or pulsed an event output.
func (s *stepper) run(max, settle int) Steps {
	if !s.watched {
		s.b.OnCycle(s.observe)
		s.watched = true
	}
	var st Steps
	for st.Cycles < max && (s.b.Busy() || settle > 0) {
		before := s.b.Pending()
		s.b.Step()
		if s.stalled {
			st.Stalls++
		}
		if s.ev != 0 {
			st.Events = append(st.Events, Event{Cycle: uint64(st.Cycles), Flags: s.ev})
		}
		st.Cycles++
		if !s.b.Busy() && settle > 0 {
			settle--
		}
		read := false
		for len(s.reads) > 0 && s.b.Count.HostReads > s.answers {
			st.Reads = append(st.Reads, *s.reads[0])
			s.reads, s.answers, read = s.reads[1:], s.answers+1, true
		}
		if st.Taken = s.b.Pending() < before; st.Taken || s.ev != 0 || read && len(s.reads) == 0 {
			break
		}
	}
	st.Stalled = st.Cycles > 0 && s.stalled
	st.Settle = settle
	st.Pending, st.Busy, st.MemBusy, st.HostBusy = s.b.Pending(), s.b.Busy(), s.b.Memory().Busy(), s.b.HostBusy()
	return st
}

// Steps runs the device while it has work (or settle quiet cycles remain), at most max
// cycles, ending after the first cycle that took a message's last beat or pulsed an event
// output.
func (l *Local) Steps(max, settle int) (Steps, error) {
	if l.step == nil {
		l.step = &stepper{b: l.Board}
	}
	return l.step.run(max, settle), nil
}

// PostRead queues a host bus read without waiting for it: a later step (Steps.Reads)
// reports its answer, and ends after the cycle that brings the last one outstanding.
func (l *Local) PostRead(addr uint32) error {
	if err := postable(addr); err != nil {
		return err
	}
	if l.step == nil {
		l.step = &stepper{b: l.Board}
	}
	l.step.postRead(addr)
	return nil
}

// PostWrite queues a host bus write without waiting for it (gosim.Board.Post: one a cycle,
// in order, from the next cycle run).
func (l *Local) PostWrite(addr, val uint32) error {
	if err := postable(addr); err != nil {
		return err
	}
	l.Board.Post(addr, val)
	return nil
}

// Steps is Local.Steps in the plugin process: one call.
func (c *Remote) Steps(max, settle int) (Steps, error) {
	if err := c.check(); err != nil {
		return Steps{}, err
	}
	p := c.take()
	var rep StepReply
	err := c.call(plugin.Record{Call: "Steps", Desc: fmt.Sprintf("Steps(%d)", max), Posted: len(p)},
		&StepArgs{Args: Args{p}, Max: max, Settle: settle}, &rep.Status, &rep)
	return rep.Steps, err
}

// PostRead is Local.PostRead in the plugin process: it travels with the next call, and the
// answer comes back in a step's Reads.
func (c *Remote) PostRead(addr uint32) error {
	if err := postable(addr); err != nil {
		return err
	}
	return c.post(Op{Kind: opPostRead, Addr: addr}, false)
}

// PostWrite is Local.PostWrite in the plugin process: it travels with the next call.
func (c *Remote) PostWrite(addr, val uint32) error {
	if err := postable(addr); err != nil {
		return err
	}
	return c.post(Op{Kind: opPost, Addr: addr, Val: val}, false)
}

// postable refuses a posted access's address the board would not take.
func postable(addr uint32) error {
	if !hostAddrOK(addr, 4) {
		return fmt.Errorf("device: host address %#x is not a 4-byte-aligned address below 0x100000", addr)
	}
	return nil
}
