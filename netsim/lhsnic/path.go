package lhsnic

import (
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/tlm"
	"github.com/lhsim/lhsim/hw"
)

// receivePath is what a node runs: a device on either bridge, or the transaction-level
// model. cycle is the node's device cycle at the call (the next to run); a device keeps its
// own clock and skips nothing, since its idle cycles change nothing.
type receivePath interface {
	Inject(cycle uint64, msg []byte) error
	PostWrite(cycle uint64, addr, val uint32) error
	PostRead(cycle uint64, addr uint32) error
	Steps(cycle uint64, max, settle int) (device.Steps, error)
	Close() error
}

// stepDevice is what *device.Local and *device.Remote both offer a node.
type stepDevice interface {
	Inject(msg []byte) error
	PostWrite(addr, val uint32) error
	PostRead(addr uint32) error
	Steps(max, settle int) (device.Steps, error)
	Close() error
}

// devicePath is a device on either bridge as a receive path.
type devicePath struct{ d stepDevice }

func (p devicePath) Inject(_ uint64, msg []byte) error          { return p.d.Inject(msg) }
func (p devicePath) PostWrite(_ uint64, addr, val uint32) error { return p.d.PostWrite(addr, val) }
func (p devicePath) PostRead(_ uint64, addr uint32) error       { return p.d.PostRead(addr) }
func (p devicePath) Close() error                               { return p.d.Close() }
func (p devicePath) Steps(_ uint64, max, settle int) (device.Steps, error) {
	return p.d.Steps(max, settle)
}

// tlmPath is the transaction-level model as a node's receive path: each message is offered
// when it reaches the input, in order; the model answers when it is taken and commits (or
// that it must wait for a release), and a step jumps to the next such cycle. Its cycles are
// the node's.
type tlmPath struct {
	nic     *tlm.NIC
	lhs     bool
	queue   []queuedMsg // injected, not yet accepted: the first may be blocked
	blocked bool        // queue[0] was refused: it shows its first beat from blockedAt
	blockAt uint64
	flights []flight // accepted, their take or commit not yet reported
	busFree uint64   // the first cycle the host bus is free for a posted write
	stallAt uint64   // stall cycles of the blocked message are reported up to here
}

type queuedMsg struct {
	at  uint64
	msg []byte
}

type flight struct {
	a                tlm.Accepted
	taken, committed bool
	reported         uint64 // its stall cycles already reported (while it was blocked)
}

func newTLMPath(lhs bool, entries int) (*tlmPath, error) {
	cfg := tlm.DefaultConfig()
	cfg.LHSOn, cfg.TailSize, cfg.Entries = lhs, hw.TailSizeMax, entries
	nic, err := tlm.New(cfg)
	if err != nil {
		return nil, err
	}
	return &tlmPath{nic: nic, lhs: lhs}, nil
}

func (p *tlmPath) Close() error { return nil }

func (p *tlmPath) Inject(cycle uint64, msg []byte) error {
	p.queue = append(p.queue, queuedMsg{cycle, msg})
	if len(p.queue) == 1 {
		return p.offer(cycle)
	}
	return nil
}

// offer offers the waiting messages in order until one must wait for a release; cycle is
// the node's, up to which a blocked message's stalls have been reported.
func (p *tlmPath) offer(cycle uint64) error {
	for len(p.queue) > 0 {
		q := p.queue[0]
		at := q.at
		if p.blocked {
			at = p.blockAt
		}
		a, err := p.nic.Offer(at, q.msg)
		var b *tlm.BlockedError
		if errors.As(err, &b) {
			if !p.blocked {
				p.blocked, p.blockAt, p.stallAt = true, b.At, b.At
			}
			return nil
		}
		if err != nil {
			return err
		}
		f := flight{a: a}
		if p.blocked {
			f.reported = max(cycle, p.stallAt) - p.blockAt
		}
		p.blocked = false
		p.flights = append(p.flights, f)
		p.queue = p.queue[1:]
	}
	return nil
}

func (p *tlmPath) PostRead(uint64, uint32) error {
	return errors.New("tlm: the transaction-level model has no host bus to read: run the host's program on a device node")
}

func (p *tlmPath) PostWrite(cycle uint64, addr, val uint32) error {
	at := max(cycle, p.busFree) // one host write a cycle, in order
	p.busFree = at + 1
	var err error
	switch addr {
	case hw.RegLHRelease:
		err = p.nic.Release(at, val, 0)
	case hw.RegTailRelease:
		err = p.nic.Release(at, 0, val)
	default:
		return fmt.Errorf("tlm: a network node's host writes only LH_RELEASE and TAIL_RELEASE, not %#x", addr)
	}
	if err != nil {
		return err
	}
	if p.blocked {
		return p.offer(cycle)
	}
	return nil
}

// Steps runs from cycle to the next take or commit, at most max cycles.
func (p *tlmPath) Steps(cycle uint64, most, settle int) (device.Steps, error) {
	var st device.Steps
	next := ^uint64(0) // the next cycle with a take or a commit
	for _, f := range p.flights {
		if !f.taken {
			next = min(next, f.a.Last)
		}
		if !f.committed {
			next = min(next, f.a.Commit)
		}
	}
	k := uint64(most)
	switch {
	case next != ^uint64(0):
		k = min(k, next-cycle+1)
	case !p.blocked: // idle: the settle cycles pass
		k = min(k, uint64(settle))
		settle -= int(k)
	}
	last := cycle + k - 1
	st.Cycles = int(k)
	if p.blocked && k > 0 && last >= p.blockAt {
		from := max(cycle, p.blockAt, p.stallAt)
		if last >= from {
			st.Stalls += last - from + 1
		}
		p.stallAt = last + 1
		st.Stalled = true
	}
	for i := range p.flights {
		f := &p.flights[i]
		if k == 0 {
			break
		}
		if !f.committed && f.a.Commit == last {
			f.committed = true
			ev := drivers.EvCommit
			if !p.lhs {
				ev = drivers.EvMsgDone
			}
			st.Events = append(st.Events, device.Event{Cycle: k - 1, Flags: ev})
		}
		if !f.taken && f.a.Last == last {
			f.taken, st.Taken = true, true
			st.Stalls += f.a.Stalls - f.reported
		}
		if !f.taken && f.a.First > last && f.a.Present <= last {
			st.Stalled = true
		}
	}
	for len(p.flights) > 0 && p.flights[0].taken && p.flights[0].committed {
		p.flights = p.flights[1:]
	}
	for _, f := range p.flights {
		if !f.taken {
			st.Pending++
		}
	}
	st.Pending += len(p.queue)
	st.Busy = st.Pending > 0 || len(p.flights) > 0
	st.HostBusy = p.busFree > cycle+k
	st.Settle = settle
	return st, nil
}
