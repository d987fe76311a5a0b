package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Commands: seed 004 §5.5's IbCPR. The scheduler processor takes one command at a time; a
// command names a range of QPs (first..last), so stopping or saving many QPs is one request
// instead of one per QP.

// CommandKind is what a command does.
type CommandKind uint8

const (
	// CmdStop moves the QPs in range from ready to stopped (send queue drained).
	CmdStop CommandKind = iota + 1
	// CmdResume moves them back to ready; a QP whose RNR timer ended while stopped resends.
	CmdResume
	// CmdSave writes the contexts of the QPs in range (and, with Queues, of every CQ and
	// shared receive queue) to host memory at Addr, by DMA. The QPs must be stopped and the
	// HCA quiet.
	CmdSave
	// CmdRestore reads an image from host memory at Addr (Bytes long) by DMA and makes the
	// QPs (and queues) it holds from it, replacing those of the same numbers.
	CmdRestore
)

func (k CommandKind) String() string {
	switch k {
	case CmdStop:
		return "stop"
	case CmdResume:
		return "resume"
	case CmdSave:
		return "save"
	case CmdRestore:
		return "restore"
	}
	return fmt.Sprintf("command(%d)", uint8(k))
}

// Command is one request to the HCA's scheduler processor.
type Command struct {
	Kind        CommandKind
	First, Last uint32 // QP numbers, inclusive
	Queues      bool   // save: also the CQs and shared receive queues
	Addr        uint64 // save and restore: the image in host memory
	Bytes       int    // restore: its length; save: the room at Addr
}

// CommandResult is what a command did.
type CommandResult struct {
	Done  netsim.Time // when the host saw its completion
	Bytes int         // save: the image's length
	Err   error
}

type command struct {
	Command
	issued netsim.Time
	done   func(CommandResult)
}

// scheduler is the scheduler processor: commands (stop, resume, save, restore: seed 004
// §5.5's IbCPR) one at a time, in order.
type scheduler struct {
	*HCA
	cmds []command
	busy bool
}

// Issue sends cmd to the HCA at at (a PIO write of its 16 bytes); done is called when the
// host has seen its completion word (the HCA writes it by DMA and the host's poll reads it).
func (h *scheduler) Issue(at netsim.Time, cmd Command, done func(CommandResult)) {
	h.Stats.Commands++
	end := h.bus.write(h.now(), at, 16, toHCA)
	h.at(end, func(now netsim.Time) {
		h.cmds = append(h.cmds, command{Command: cmd, issued: at, done: done})
		if !h.busy {
			h.nextCommand(now)
		}
	})
}

func (h *scheduler) nextCommand(now netsim.Time) {
	if len(h.cmds) == 0 {
		h.busy = false
		return
	}
	h.busy = true
	c := h.cmds[0]
	k := 0
	if c.Last >= c.First {
		k = int(c.Last - c.First + 1)
	}
	t := now + h.p.hca(h.p.CommandCycles+k*h.p.QPCommandCycles)
	finish := func(now netsim.Time, r CommandResult) {
		h.cmds = h.cmds[1:]
		// The completion word: a DMA write the host's poll then reads.
		end := h.bus.write(now, now, 8, toMemory)
		h.at(end+h.p.PollRead, func(now netsim.Time) {
			r.Done = now
			if c.done != nil {
				c.done(r)
			}
		})
		h.nextCommand(now)
	}
	switch c.Kind {
	case CmdRestore:
		// Read the image first, then build the QPs from it.
		end := h.bus.read(now, now, max(c.Bytes, 8))
		h.at(max(end, t), func(now netsim.Time) {
			err := h.Restore(h.mem.Bytes(c.Addr, c.Bytes))
			finish(now, CommandResult{Bytes: c.Bytes, Err: err})
		})
	case CmdSave:
		h.at(t, func(now netsim.Time) {
			img, err := h.Save(c.First, c.Last, c.Queues)
			if err == nil && len(img) > c.Bytes {
				err = fmt.Errorf("node %d: %w: %d bytes for %d", h.node, ErrSaveTooLong, len(img), c.Bytes)
			}
			if err != nil {
				finish(now, CommandResult{Err: err})
				return
			}
			end := h.bus.write(now, now, len(img), toMemory)
			h.at(end, func(now netsim.Time) {
				h.mem.Write(c.Addr, img)
				finish(now, CommandResult{Bytes: len(img)})
			})
		})
	default:
		h.at(t, func(now netsim.Time) {
			var err error
			if c.Kind == CmdStop {
				err = h.Stop(c.First, c.Last)
			} else if c.Kind == CmdResume {
				err = h.Resume(now, c.First, c.Last)
			} else {
				err = fmt.Errorf("node %d: %w: unknown command %v", h.node, ErrBadRequest, c.Kind)
			}
			finish(now, CommandResult{Err: err})
		})
	}
}

// rangeQPs checks first..last and returns the QPs.
func (h *scheduler) rangeQPs(first, last uint32) ([]*qp, error) {
	if first == 0 || first > last || int(last) > len(h.qps) {
		return nil, fmt.Errorf("node %d: QPs %d..%d: %w (the HCA has 1..%d)", h.node, first, last, ErrNoQP, len(h.qps))
	}
	return h.qps[first-1 : last], nil
}

// Stop is the effect of CmdStop: every ready QP in range stops starting messages (the one
// the SQ processor is sending goes out whole). An RNR retry that was waiting is kept for
// the resume.
func (h *scheduler) Stop(first, last uint32) error {
	qs, err := h.rangeQPs(first, last)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if q.State != QPReady {
			continue
		}
		q.State = QPStopped
		if q.RNRWait {
			q.RNRWait, q.RNRDue = false, true
			q.timer++
		}
	}
	return nil
}

// Resume is the effect of CmdResume: stopped QPs in range are ready again, in QP order.
func (h *scheduler) Resume(now netsim.Time, first, last uint32) error {
	qs, err := h.rangeQPs(first, last)
	if err != nil {
		return err
	}
	// The SQ processor's turn is rebuilt in QP order for the QPs in range, whatever order
	// they had before the stop, so a restored HCA and one that was never restored go on alike.
	kept := h.sq.ready[:0]
	for _, n := range h.sq.ready {
		if n < first || n > last {
			kept = append(kept, n)
		} else {
			h.qp(n).queued = false
		}
	}
	h.sq.ready = kept
	for _, q := range qs {
		if q.State != QPStopped {
			continue
		}
		q.State = QPReady
		if q.RNRDue {
			q.RNRDue = false
			h.sq.rewind(now, q)
		}
		h.sq.enqueue(q)
	}
	h.sq.kickSQ(now)
	return nil
}

// Stable reports whether the QPs in range have nothing on the wire: each stopped (or in
// error) with every message it started acknowledged or refused, and the HCA quiet. This is
// pmSendStable's condition.
func (h *scheduler) Stable(first, last uint32) (bool, string) {
	qs, err := h.rangeQPs(first, last)
	if err != nil {
		return false, err.Error()
	}
	now := h.now()
	for _, q := range qs {
		if q.State == QPReady {
			return false, fmt.Sprintf("QP %d is not stopped", q.Num)
		}
		if q.sqBusy {
			return false, fmt.Sprintf("QP %d is sending", q.Num)
		}
		if q.State == QPStopped && len(q.Outstanding) > 0 && !q.RNRDue {
			return false, fmt.Sprintf("QP %d waits for the ACK of PSN %d", q.Num, q.Outstanding[0].LastPSN)
		}
	}
	if !h.quiet(now) {
		return false, h.busyWith(now)
	}
	return true, ""
}
