package plugin

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/lhsim/lhsim/gosim"
)

// Opener builds the board the plugin serves; cmd/lhsim-plugin passes nic.OpenBoard's work.
type Opener func(Spec) (*gosim.Board, error)

// Serve runs the plugin process's side: go-plugin answers the handshake and the build check,
// and the board's thread serves the call channel until the harness closes it or goes away.
// The plugin binary's main calls it and nothing else.
func Serve(open Opener) {
	f, err := parseFault(os.Getenv(FaultEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		// The plugin's garbage is the batches it has fed to the board; collecting it half
		// as often saves a fifth of the process's time on the benchmark workload.
		debug.SetGCPercent(200)
	}
	s := &server{open: open, fault: f, build: BuildID(), done: map[uint64]*job{}}
	if f.kind == "build" {
		s.build += "-other"
	}
	if path := os.Getenv(StatusEnv); path != "" {
		if s.page, err = openStatusFile(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if v := os.Getenv(ChannelEnv); v != "" {
		fd, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: %s=%q is not a file descriptor\n", ChannelEnv, v)
			os.Exit(2)
		}
		go s.serve(os.NewFile(uintptr(fd), "lhsim call channel"))
	}
	hs := handshake
	if f.kind == "protocol" {
		hs.ProtocolVersion++
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         goplugin.PluginSet{pluginName: &rpcPlugin{srv: s}},
		// go-plugin's own messages: only errors, on the stderr the harness keeps.
		Logger: hclog.New(&hclog.LoggerOptions{Name: "lhsim-plugin", Level: hclog.Error, Output: os.Stderr, JSONFormat: true}),
	})
}

// rpcPlugin is the go-plugin glue: the server side hands out the build check, the client
// side keeps the raw *rpc.Client.
type rpcPlugin struct{ srv *server }

func (p *rpcPlugin) Server(*goplugin.MuxBroker) (any, error) { return &RPC{s: p.srv}, nil }

func (p *rpcPlugin) Client(_ *goplugin.MuxBroker, c *rpc.Client) (any, error) { return c, nil }

// RPC is what go-plugin registers as "Plugin": the build check.
type RPC struct{ s *server }

// Hello tells the harness which build answers, and which process.
func (r *RPC) Hello(harness string, rep *HelloReply) error {
	rep.Build, rep.Pid = r.s.build, os.Getpid()
	return nil
}

// server owns the board. A Verilated model must stay on one OS thread: serve's goroutine,
// locked to its thread, reads each call from the channel, runs it and writes the answer,
// with no other goroutine on the way.
type server struct {
	open   Opener
	fault  fault
	page   *statusPage
	build  string
	board  *gosim.Board
	local  *Local
	closed bool

	watching bool    // Client.Watch asked for event pulses
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

// serve is the board's thread: queued batches first, then the next call.
func (s *server) serve(ch *os.File) {
	runtime.LockOSThread()
	r, w := bufio.NewReaderSize(ch, 64<<10), bufio.NewWriterSize(ch, 64<<10)
	dec, enc := gob.NewDecoder(r), gob.NewEncoder(w)
	redirected := false
	for {
		for len(s.queue) > 0 {
			j := s.queue[0]
			s.queue = s.queue[1:]
			s.run(j)
			s.done[j.id] = j
		}
		var h header
		if err := dec.Decode(&h); err != nil {
			if errors.Is(err, io.EOF) {
				os.Exit(0) // the harness has gone
			}
			fmt.Fprintf(os.Stderr, "plugin: reading a call: %v\n", err)
			os.Exit(2)
		}
		if !redirected {
			stdoutToStderr() // go-plugin has written the handshake before a call can come
			redirected = true
		}
		if s.page != nil {
			s.page.startCall()
		}
		rep, err := s.dispatch(h.Method, dec)
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: call %d: %v\n", h.Method, err)
			os.Exit(2)
		}
		if err := enc.Encode(rep); err == nil {
			err = w.Flush()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: answering call %s: %v\n", methodNames[h.Method], err)
			os.Exit(2)
		}
	}
}

// dispatch decodes a call's arguments, runs it and returns its reply. An error means the
// channel is out of step: the process stops.
func (s *server) dispatch(m uint8, dec *gob.Decoder) (any, error) {
	switch m {
	case mOpen:
		var a OpenArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &Reply{}
		if err := s.openBoard(a.Spec); err != nil {
			rep.Err = err.Error()
		}
		return rep, nil
	case mFlush, mStats, mClose:
		var a Args
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		switch m {
		case mStats:
			rep := &StatsReply{}
			s.call(a.Pending, &rep.Status, func(*gosim.Board) (err error) {
				rep.CPU, err = processCPU()
				return err
			})
			return rep, nil
		case mClose:
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
	case mReadReg:
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
	case mReadBlock, mMemRead, mMemWrite:
		var a BlockArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &BlockReply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
			switch {
			case m == mMemWrite:
				return b.MemWrite(a.Addr, a.Data)
			case a.N < 0 || a.N > 1<<30 || (m == mReadBlock && a.Addr >= 1<<32):
				return fmt.Errorf("plugin: %s of %d bytes at %#x", methodNames[m], a.N, a.Addr)
			case m == mMemRead:
				rep.Data = make([]byte, a.N)
				return b.MemRead(a.Addr, rep.Data)
			}
			rep.Data = make([]byte, a.N)
			return b.ReadBlock(uint32(a.Addr), rep.Data)
		})
		return rep, nil
	case mRun, mRunUntilIdle:
		var a RunArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &Reply{}
		s.call(a.Pending, &rep.Status, func(b *gosim.Board) error {
			if m == mRun {
				return b.Run(a.N)
			}
			return b.RunUntilIdle(a.N)
		})
		return rep, nil
	case mReceive, mFeed:
		var a ReceiveArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		rep := &BlockReply{}
		s.call(a.Pending, &rep.Status, func(*gosim.Board) error {
			return s.batch(a, &rep.Data)
		})
		return rep, nil
	case mExchange:
		var a ExchangeArgs
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		return s.exchange(a), nil
	}
	return nil, fmt.Errorf("unknown method %d", m)
}

// openBoard builds the device; after Close, a fresh one in the same process (Reopen).
func (s *server) openBoard(spec Spec) error {
	if s.board != nil {
		return errors.New("plugin: Open while a device is open: Close it first")
	}
	b, err := s.open(spec)
	if err != nil {
		return err
	}
	s.board, s.local, s.closed, s.broken, s.watching = b, NewLocal(b), false, false, false
	b.Watch(s.watch)
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

func (s *server) apply(op Op) error {
	switch op.Kind {
	case opInject:
		return s.board.Inject(op.Data)
	case opWriteReg:
		return s.board.WriteReg(op.Addr, op.Val)
	case opWriteBlock:
		return s.board.WriteBlock(op.Addr, op.Data)
	case opWatch:
		s.watching = true
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
		return &BlockReply{Status: Status{Err: fmt.Sprintf("plugin: no batch %d was submitted", a.Collect)}}
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

// watch publishes every cycle on the status page, records event pulses for Client.Watch
// and fires the fault hook.
func (s *server) watch(cycle uint64, p *gosim.Pins) {
	done := cycle + 1
	if s.page != nil {
		s.page.setCycle(done)
	}
	if s.watching {
		if f := p.EvCommit | p.EvMsgDone<<1 | p.EvVecDone<<2; f != 0 {
			s.events = append(s.events, Event{Cycle: cycle, Flags: f})
		}
	}
	if done == s.fault.at {
		s.fault.fire(done)
	}
}

// processCPU is the CPU time this process has used (user and system, all threads).
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
