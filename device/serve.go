package device

import (
	"encoding/gob"
	"errors"
	"fmt"
	"os"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/plugin"
)

// Serve is the plugin process's side of Remote: it builds the device the harness's Open
// call describes (OpenLocal) and serves its calls on package plugin's channel. The plugin
// binary's main calls it and nothing else; it does not return.
func Serve() {
	srv, err := plugin.NewServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv.Serve(BuildID(), &server{srv: srv, done: map[uint64]*job{}})
}

// server owns the device in the plugin process. Every call runs on the transport's locked
// thread, which a Verilated model needs.
type server struct {
	srv    *plugin.Server
	board  *gosim.Board
	local  *Local
	step   *stepper // Steps' observer on board
	closed bool

	watching bool    // Remote.Watch asked for event pulses
	events   []Event // pulses of the call running

	queue  []*job          // batches submitted by Exchange, not run yet
	done   map[uint64]*job // batches run, not collected yet
	broken bool            // a batch failed: the ones queued after it fail unrun
}

// job is a batch submitted by Exchange: it runs after the reply that queued it has gone
// out, while the harness looks at the batch before, and the next Exchange collects it.
type job struct {
	id   uint64
	args ReceiveArgs
	rep  BlockReply
}

// dispatch decodes a call's arguments, runs it and returns its reply. An error means the
// channel is out of step: the process stops.
func (s *server) Serve(m string, dec *gob.Decoder) (any, error) {
	switch m {
	case "Open":
		var a OpenArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &Reply{}
		if err := s.open(a.Config); err != nil {
			rep.Err = err.Error()
		}
		return rep, nil
	case "Flush", "Stats", "Close":
		var a Args
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		switch m {
		case "Stats":
			rep := &StatsReply{}
			s.call(a.Pending, &rep.Status, func(*gosim.Board) (err error) {
				rep.CPU, err = cputime.Process()
				return err
			})
			return rep, nil
		case "Close":
			rep := &Reply{}
			s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
				s.board, s.local, s.closed = nil, nil, true
				return b.Close()
			})
			return rep, nil
		}
		rep := &Reply{}
		s.call(a.Pending, &rep.Status, func(*gosim.Board) error { return nil })
		return rep, nil
	case "ReadReg":
		var a RegArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &RegReply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) (err error) {
			rep.Val, err = b.ReadReg(a.Addr)
			return err
		})
		return rep, nil
	case "ReadBlock", "MemRead", "MemWrite":
		var a BlockArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &BlockReply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
			switch {
			case m == "MemWrite":
				return b.MemWrite(a.Addr, a.Data)
			case a.N < 0 || a.N > 1<<30 || (m == "ReadBlock" && a.Addr >= 1<<32):
				return fmt.Errorf("plugin: %s of %d bytes at %#x", m, a.N, a.Addr)
			case m == "MemRead":
				rep.Data = make([]byte, a.N)
				return b.MemRead(a.Addr, rep.Data)
			}
			rep.Data = make([]byte, a.N)
			return b.ReadBlock(uint32(a.Addr), rep.Data)
		})
		return rep, nil
	case "Run", "RunUntilIdle":
		var a RunArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &Reply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
			if m == "Run" {
				return b.Run(a.N)
			}
			return b.RunUntilIdle(a.N)
		})
		return rep, nil
	case "Receive", "Feed":
		var a ReceiveArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &BlockReply{}
		s.call(a.Pending, &rep.Status, func(*gosim.Board) error {
			return s.batch(a, &rep.Data)
		})
		return rep, nil
	case "Steps":
		var a StepArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &StepReply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
			rep.Steps = s.stepper().run(a.Max, a.Settle)
			return nil
		})
		return rep, nil
	case "Exchange":
		var a ExchangeArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		return s.exchange(a), nil
	}
	return nil, fmt.Errorf("unknown method %q", m)
}

// open builds the device; after Close, a fresh one in the same process (Reopen).
func (s *server) open(cfg Config) error {
	if s.board != nil {
		return errors.New("plugin: Open while a device is open: Close it first")
	}
	cfg.Bridge = Cgo // here, the device is in this process
	l, err := OpenLocal(cfg)
	if err != nil {
		return err
	}
	s.board, s.local, s.closed, s.broken, s.watching = l.Board, l, false, false, false
	if s.srv.ExactCycles() {
		l.OnCycle(s.watch)
		return nil
	}
	// Progress after every cycle or stretch (gosim.Board.RunWhile), and the event pulses
	// once Remote.Watch asks (apply): neither needs the board a cycle at a time.
	l.OnAdvance(s.srv.Progress)
	return nil
}

// call runs the posted ops, then f, and fills st.
func (s *server) call(pending []Op, st *Status, f func(b *gosim.Board) error) {
	var err error
	switch b := s.board; {
	case b == nil && s.closed:
		err, st.Kind = errors.New("plugin: the device is closed"), errKindClosed
	case b == nil:
		err = errors.New("plugin: no device: Open was not called")
	default:
		for i, op := range pending {
			if err = s.apply(op); err != nil {
				st.Failed = i + 1
				break
			}
		}
		if err == nil {
			err = f(b)
		}
		st.Cycle = b.Cycle()
		st.Events, s.events = s.events, nil
	}
	if err != nil {
		st.Err = err.Error()
		if errors.Is(err, gosim.ErrNotIdle) {
			st.Kind = errKindNotIdle
		}
	}
}

// stepper is the board's for Steps and posted reads.
func (s *server) stepper() *stepper {
	if s.step == nil || s.step.b != s.board {
		s.step = &stepper{b: s.board}
	}
	return s.step
}

func (s *server) apply(op Op) error {
	switch op.Kind {
	case opInject:
		return s.board.Inject(op.Data)
	case opWriteReg:
		return s.board.WriteReg(op.Addr, op.Val)
	case opWriteBlock:
		return s.board.WriteBlock(op.Addr, op.Data)
	case opWatch:
		if !s.watching && !s.srv.ExactCycles() {
			s.board.OnEvent(s.event)
		}
		s.watching = true
		return nil
	case opPost:
		s.board.Post(op.Addr, op.Val)
		return nil
	case opPostRead:
		s.stepper().postRead(op.Addr)
		return nil
	}
	return fmt.Errorf("plugin: unknown posted op %d", op.Kind)
}

// batch runs a Receive or a Feed.
func (s *server) batch(a ReceiveArgs, data *[]byte) error {
	msgs, err := a.unpack()
	switch {
	case err != nil:
		return err
	case a.Mode == modeReceive:
		*data, err = s.local.Receive(msgs, a.N, a.Limit)
		return err
	}
	return s.local.Feed(msgs, a.Mode == modeFeedDrain, a.Limit)
}

// Idle implements plugin.Handler: batches queued by Exchange run before the next call.
func (s *server) Idle() {
	for len(s.queue) > 0 {
		j := s.queue[0]
		s.queue = s.queue[1:]
		s.run(j)
		s.done[j.id] = j
	}
}

// exchange queues batch a.Submit and answers with batch a.Collect, which ran before this
// call was read (batches run in the order they came, before the next call).
func (s *server) exchange(a ExchangeArgs) *BlockReply {
	if a.Submit != 0 {
		s.queue = append(s.queue, &job{id: a.Submit, args: a.ReceiveArgs})
	}
	if a.Collect == 0 {
		return &BlockReply{}
	}
	j := s.done[a.Collect]
	if j == nil {
		return &BlockReply{Status: Status{Status: plugin.Status{Err: fmt.Sprintf("plugin: no batch %d was submitted", a.Collect)}}}
	}
	delete(s.done, a.Collect)
	if len(s.done) == 0 && len(s.queue) == 0 {
		s.broken = false
	}
	return &j.rep
}

// run runs a submitted batch, unless one before it failed.
func (s *server) run(j *job) {
	s.call(j.args.Pending, &j.rep.Status, func(*gosim.Board) error {
		if s.broken {
			return fmt.Errorf("plugin: batch %d not run: an earlier batch failed", j.id)
		}
		err := s.batch(j.args, &j.rep.Data)
		s.broken = err != nil
		return err
	})
	if j.rep.Err != "" {
		s.broken = true
	}
	j.args = ReceiveArgs{} // the messages are in the board now
}

// watch publishes every cycle's progress (for the harness's watchdog, crash reports and
// the fault hook) and records event pulses for Remote.Watch.
func (s *server) watch(cycle uint64, p *gosim.Pins) {
	s.srv.Progress(cycle + 1)
	if ev := pinEvents(p); ev != 0 {
		s.event(cycle, uint8(ev))
	}
}

// event records an event pulse for Remote.Watch, once it asked.
func (s *server) event(cycle uint64, ev uint8) {
	if s.watching {
		s.events = append(s.events, Event{Cycle: cycle, Flags: drivers.Events(ev)})
	}
}
