package device

import (
	"errors"
	"fmt"
	"time"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/verilator"
)

// Remote is the device in a plugin process (the plugin bridge), reached over package
// plugin's channel. Inject, WriteReg and WriteBlock are posted: they travel with the next
// call that needs an answer and run in order before it, so the device behaves cycle for cycle
// as it would in process; only an error of theirs that the harness could not check
// beforehand (a broken core, a crash) surfaces at that later call. Like Local, a Remote is
// for one goroutine at a time.
type Remote struct {
	conn *plugin.Conn
	cfg  Config

	packed       Batch // storage for the batch being sent
	pending      []Op
	pendingBytes int
	postedCycles bool // some posted op takes cycles (a host-bus write)
	postedErr    error

	watchers []func(cycle uint64, ev drivers.Events)
	jobs     uint64 // batches submitted
	closed   bool
	crash    error // the process's death, with what became of the trace
}

// posting limits: past these the posted ops go out on their own.
const (
	maxPending      = 4096
	maxPendingBytes = 1 << 20
)

// OpenRemote starts a plugin process and builds the device cfg describes in it. opts.Build
// is set here.
func OpenRemote(cfg Config, opts plugin.Options) (*Remote, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts.Build = BuildID()
	conn, err := plugin.Start(opts)
	if err != nil {
		return nil, err
	}
	r := &Remote{conn: conn, cfg: cfg}
	var rep Reply
	if err := r.call(plugin.Record{Call: "Open"}, &OpenArgs{Config: cfg}, &rep.Status, &rep); err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

// Conn is the transport under the device: its process, build and recent calls.
func (c *Remote) Conn() *plugin.Conn { return c.conn }

// call makes one call and turns what its Status says into an error. args must carry the
// posted ops taken by take(). A transport error (the process died or hung) makes the device
// dead from then on.
func (c *Remote) call(r plugin.Record, args any, st *Status, reply any) error {
	if c.closed {
		return errors.New("device: the plugin device is closed")
	}
	if err := c.conn.Call(r, args, &st.Status, reply); err != nil {
		return c.dead(err)
	}
	for _, e := range st.Events {
		for _, f := range c.watchers {
			f(e.Cycle, e.Flags)
		}
	}
	if st.Err == "" {
		return nil
	}
	var e error = remoteError{msg: st.Err}
	if st.Kind == errKindNotIdle {
		e = remoteError{msg: st.Err, is: gosim.ErrNotIdle}
	}
	if st.Failed > 0 {
		return fmt.Errorf("plugin: posted op %d of %d, run before %s: %w", st.Failed, r.Posted, r.Call, e)
	}
	return e
}

// dead is the error of a device whose process has died (err, the transport's report), the
// same for every call from then on. A trace the process was writing is finished here, from
// what it had flushed (verilator.FinishTrace), and the report says how far it goes.
func (c *Remote) dead(err error) error {
	if c.crash != nil {
		return c.crash
	}
	c.crash = err
	if c.cfg.Trace == "" {
		return err
	}
	switch f, ferr := verilator.FinishTrace(c.cfg.Trace); {
	case ferr != nil:
		c.crash = fmt.Errorf("%w\nwaveform %s: %v", err, c.cfg.Trace, ferr)
	case f.Finished && f.Blocks == 0:
		c.crash = fmt.Errorf("%w\nwaveform %s: finished after the crash, with the signals but no values (the process died before its first flush, every %d cycles)",
			err, c.cfg.Trace, verilator.TraceFlushCycles)
	case f.Finished:
		c.crash = fmt.Errorf("%w\nwaveform %s: finished after the crash, up to %d ns (board cycle %d, its last flush)",
			err, c.cfg.Trace, f.End, (f.End/10)-min(f.End/10, hw.ResetCycles))
	}
	return c.crash
}

// remoteError is an error the plugin's board returned, with its text unchanged and the
// sentinel it wrapped, if it is one callers test for.
type remoteError struct {
	msg string
	is  error
}

func (e remoteError) Error() string { return e.msg }
func (e remoteError) Unwrap() error { return e.is }

// take hands the posted ops to the call about to go out.
func (c *Remote) take() []Op {
	p := c.pending
	c.pending, c.pendingBytes, c.postedCycles = nil, 0, false
	return p
}

// check returns what a call must report before it runs: a dead process, an earlier
// posted op's failure.
func (c *Remote) check() error {
	if c.conn.Err() != nil {
		return c.dead(c.conn.Err())
	}
	if err := c.postedErr; err != nil {
		c.postedErr = nil
		return err
	}
	return nil
}

func (c *Remote) post(op Op, cycles bool) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.closed {
		return errors.New("device: the plugin device is closed")
	}
	c.pending = append(c.pending, op)
	c.pendingBytes += len(op.Data) + 16
	c.postedCycles = c.postedCycles || cycles
	if len(c.pending) >= maxPending || c.pendingBytes >= maxPendingBytes {
		return c.flush()
	}
	return nil
}

// Flush sends the posted ops and waits until they have run: with none posted, one bare
// round trip.
func (c *Remote) Flush() error {
	if err := c.check(); err != nil {
		return err
	}
	return c.flush()
}

func (c *Remote) flush() error {
	p := c.take()
	var rep Reply
	return c.call(plugin.Record{Call: "Flush", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
}

// hostAddrOK is the Board's own check of a host address: only an address that passes is
// posted, so that a bad one still gets the Board's error from a call of its own.
func hostAddrOK(addr uint32, n int) bool {
	return addr&3 == 0 && n%4 == 0 && uint64(addr)+uint64(n) <= 1<<20 && addr < 1<<20
}

// ReadReg reads one word over the host bus.
func (c *Remote) ReadReg(addr uint32) (uint32, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	p := c.take()
	var rep RegReply
	err := c.call(plugin.Record{Call: "ReadReg", Desc: fmt.Sprintf("ReadReg(%#x)", addr), Posted: len(p)},
		&RegArgs{Args: Args{p}, Addr: addr}, &rep.Status, &rep)
	return rep.Val, err
}

// WriteReg posts one word's write over the host bus.
func (c *Remote) WriteReg(addr, val uint32) error {
	if !hostAddrOK(addr, 4) {
		return c.sync(Op{Kind: opWriteReg, Addr: addr, Val: val})
	}
	return c.post(Op{Kind: opWriteReg, Addr: addr, Val: val}, true)
}

// WriteBlock posts writes of consecutive words.
func (c *Remote) WriteBlock(addr uint32, src []byte) error {
	if !hostAddrOK(addr, len(src)) {
		return c.sync(Op{Kind: opWriteBlock, Addr: addr, Data: src})
	}
	return c.post(Op{Kind: opWriteBlock, Addr: addr, Data: src}, len(src) > 0)
}

// Inject posts a message for the network input.
func (c *Remote) Inject(msg []byte) error {
	if len(msg) == 0 || len(msg) > gosim.MaxMessage {
		return c.sync(Op{Kind: opInject, Data: msg})
	}
	return c.post(Op{Kind: opInject, Data: msg}, false)
}

// sync sends op at once, for its error.
func (c *Remote) sync(op Op) error {
	if err := c.check(); err != nil {
		return err
	}
	p := append(c.take(), op)
	var rep Reply
	err := c.call(plugin.Record{Call: "Flush", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	if rep.Failed == len(p) && rep.Err != "" {
		return remoteError{msg: rep.Err} // the op's own error, as the Board words it
	}
	return err
}

// ReadBlock reads consecutive words over the host bus.
func (c *Remote) ReadBlock(addr uint32, dst []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(plugin.Record{Call: "ReadBlock", Desc: fmt.Sprintf("ReadBlock(%#x, %d bytes)", addr, len(dst)), Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: uint64(addr), N: len(dst)}, &rep.Status, &rep)
	if err == nil {
		copy(dst, rep.Data)
	}
	return err
}

// Run advances the clock by n cycles.
func (c *Remote) Run(n uint64) error { return c.run("Run", n) }

// RunUntilIdle runs until the NIC has taken every message and is quiet, within limit cycles.
func (c *Remote) RunUntilIdle(limit uint64) error { return c.run("RunUntilIdle", limit) }

func (c *Remote) run(method string, n uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	return c.call(plugin.Record{Call: method, Desc: fmt.Sprintf("%s(%d)", method, n), Posted: len(p)}, &RunArgs{Args: Args{p}, N: n}, &rep.Status, &rep)
}

// Watch implements drivers.Watcher: the event pulses come back with the replies (not every
// cycle's ports, as gosim.Board.OnCycle gives, which would cost the round trip the protocol
// saves), so f runs when the device call that ran those cycles returns, in cycle order.
func (c *Remote) Watch(f func(cycle uint64, ev drivers.Events)) {
	if len(c.watchers) == 0 {
		c.post(Op{Kind: opWatch}, false)
	}
	c.watchers = append(c.watchers, f)
}

// Cycle is the number of cycles since reset. It costs a call only when posted writes are
// waiting (they take cycles); an error of theirs is returned by the next call.
func (c *Remote) Cycle() uint64 {
	if c.postedCycles && c.conn.Err() == nil && !c.closed {
		if err := c.flush(); err != nil && c.conn.Err() == nil {
			c.postedErr = err
		}
	}
	return c.conn.Cycle()
}

// MemRead reads the large memory by backdoor.
func (c *Remote) MemRead(addr uint64, dst []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(plugin.Record{Call: "MemRead", Desc: fmt.Sprintf("MemRead(%#x, %d bytes)", addr, len(dst)), Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: addr, N: len(dst)}, &rep.Status, &rep)
	if err == nil {
		copy(dst, rep.Data)
	}
	return err
}

// MemWrite writes the large memory by backdoor.
func (c *Remote) MemWrite(addr uint64, src []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	return c.call(plugin.Record{Call: "MemWrite", Desc: fmt.Sprintf("MemWrite(%#x, %d bytes)", addr, len(src)), Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: addr, Data: src}, &rep.Status, &rep)
}

// Receive implements Receiver in one call: the batch goes over, the entries come back.
func (c *Remote) Receive(msgs [][]byte, n int, limit uint64) ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(plugin.Record{Call: "Receive", Desc: fmt.Sprintf("Receive(%d messages, %d entries)", len(msgs), n), Posted: len(p)},
		&ReceiveArgs{Args: Args{p}, Batch: c.packed.pack(msgs), N: n, Limit: limit}, &rep.Status, &rep)
	return rep.Data, err
}

// Feed implements Receiver in one call.
func (c *Remote) Feed(msgs [][]byte, drain bool, limit uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	mode := modeFeed
	if drain {
		mode = modeFeedDrain
	}
	var rep Reply
	return c.call(plugin.Record{Call: "Feed", Desc: fmt.Sprintf("Feed(%d messages, drain %v)", len(msgs), drain), Posted: len(p)},
		&ReceiveArgs{Args: Args{p}, Batch: c.packed.pack(msgs), Limit: limit, Mode: mode}, &rep.Status, &rep)
}

// ReceiveAll implements Receiver with one Exchange call per batch (and one more): each
// queues the next batch in the plugin and collects the last, so the plugin runs batch k+1
// while the harness checks k.
func (c *Remote) ReceiveAll(n int, batch func(k int) [][]byte, limit uint64, fn func(k int, entries []byte) error) error {
	return c.pipeline(n, func(k int) ReceiveArgs {
		msgs := batch(k)
		return ReceiveArgs{Batch: c.packed.pack(msgs), N: len(msgs), Limit: limit, Mode: modeReceive}
	}, fn)
}

// FeedAll implements Receiver as ReceiveAll does.
func (c *Remote) FeedAll(n int, batch func(k int) [][]byte, limit uint64) error {
	return c.pipeline(n, func(k int) ReceiveArgs {
		mode := modeFeed
		if k == n-1 {
			mode = modeFeedDrain
		}
		return ReceiveArgs{Batch: c.packed.pack(batch(k)), Limit: limit, Mode: mode}
	}, func(int, []byte) error { return nil })
}

// pipeline runs n batches through Exchange, one queued ahead, collecting each in order.
func (c *Remote) pipeline(n int, args func(k int) ReceiveArgs, fn func(k int, data []byte) error) error {
	if err := c.check(); err != nil || n == 0 {
		return err
	}
	// Batch k is job base+k+1 (0 names no job).
	base := c.jobs
	c.jobs += uint64(n)
	exchange := func(submit, collect int) ([]byte, error) {
		a := ExchangeArgs{}
		r := plugin.Record{Call: "Exchange"}
		var sub, col uint64
		if submit < n {
			a.ReceiveArgs = args(submit)
			a.Pending, a.Submit = c.take(), base+uint64(submit)+1
			sub, r.Posted = a.Submit, len(a.Pending)
		}
		if collect >= 0 {
			a.Collect = base + uint64(collect) + 1
			col = a.Collect
		}
		r.Desc = fmt.Sprintf("Exchange(submit batch %d, collect batch %d)", sub, col)
		var rep BlockReply
		err := c.call(r, &a, &rep.Status, &rep)
		return rep.Data, err
	}
	if _, err := exchange(0, -1); err != nil {
		return err
	}
	for k := range n {
		data, err := exchange(k+1, k)
		if ferr := fn(k, data); ferr != nil {
			err = ferr
		}
		if err != nil {
			if k+1 < n && c.conn.Err() == nil {
				exchange(n, k+1) // nothing may stay queued in the plugin
			}
			return err
		}
	}
	return nil
}

// CPU is the CPU time the plugin process has used so far (user and system, all threads).
func (c *Remote) CPU() (time.Duration, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	p := c.take()
	var rep StatsReply
	err := c.call(plugin.Record{Call: "Stats", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	return rep.CPU, err
}

// Reopen closes the device and builds a fresh one from the same Config in the same plugin
// process: a new device (cycle 0, empty memory) without a new process. It returns what
// closing found, or what opening did.
func (c *Remote) Reopen() error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	closeErr := c.call(plugin.Record{Call: "Close", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	if c.conn.Err() != nil {
		return c.dead(c.conn.Err())
	}
	var orep Reply
	err := c.call(plugin.Record{Call: "Open"}, &OpenArgs{Config: c.cfg}, &orep.Status, &orep)
	c.conn.ResetCycle()
	if err == nil && len(c.watchers) > 0 {
		c.post(Op{Kind: opWatch}, false) // the new device reports its events too
	}
	if closeErr != nil {
		return closeErr
	}
	return err
}

// Close frees the device, reports what closing found (a lockstep disagreement, or the crash
// that ended the process) and ends the plugin process.
func (c *Remote) Close() error {
	if c.closed {
		return nil
	}
	err := c.check()
	if err == nil {
		p := c.take()
		var rep Reply
		err = c.call(plugin.Record{Call: "Close", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	}
	c.closed = true
	c.conn.Close()
	return err
}
