package plugin

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/lhsim/lhsim/gosim"
)

// WatchdogEnv overrides the default watchdog (a Go duration, e.g. "2m").
const WatchdogEnv = "LHSIM_PLUGIN_WATCHDOG"

// DefaultWatchdog is how long a call may go without a single cycle of progress before the
// harness calls the plugin hung and kills it. A cycle takes microseconds, so this is only
// ever reached by a process that is stuck.
const DefaultWatchdog = 30 * time.Second

// Options are the harness's choices for one plugin device.
type Options struct {
	// Path is the plugin binary; "" finds or builds it (Locate).
	Path string
	// Label names the device in error reports, e.g. the test's name.
	Label string
	// Watchdog: a call that makes no cycle of progress for this long is a hang. 0 means
	// $LHSIM_PLUGIN_WATCHDOG, or DefaultWatchdog.
	Watchdog time.Duration
	// Env is added to the plugin process's environment (tests put FaultEnv here).
	Env []string
	// History is how many recent calls a crash report lists; 0 means 16.
	History int
}

// Client is a receive path in a plugin process, seen as a drivers.Device (and a Receiver).
// Inject, WriteReg and WriteBlock are posted: they travel with the next call that needs an
// answer and run in order before it, so the device behaves cycle for cycle as it would in
// process; only an error of theirs that the harness could not check beforehand (a broken
// core, a crash) surfaces at that later call. Like the cgo bridge, a Client is for one
// goroutine at a time.
type Client struct {
	opts   Options
	spec   Spec
	gp     *goplugin.Client
	cmd    *exec.Cmd
	rpc    *rpc.Client // go-plugin's connection: the build check
	ch     *os.File    // the call channel
	w      *bufio.Writer
	enc    *gob.Encoder
	dec    *gob.Decoder
	page   *statusPage
	pid    int
	build  string
	stderr *tail
	limit  time.Duration

	packed       Batch // storage for the batch being sent
	pending      []Op
	pendingBytes int
	postedCycles bool // some posted op takes cycles (a host-bus write)
	postedErr    error

	cycle    uint64
	seq      uint64
	watchers []func(cycle uint64, p *gosim.Pins)
	jobs     uint64 // batches submitted
	hist     []Record
	dead     error
	closed   bool

	inflight atomic.Uint64 // seq of the call waiting for its reply, 0 when none
	hung     atomic.Bool
	wdStop   chan struct{}
	wdDone   chan struct{}
}

// posting limits: past these the posted ops go out on their own.
const (
	maxPending      = 4096
	maxPendingBytes = 1 << 20
)

// ErrCrashed is wrapped by every error that reports a dead plugin process; ErrHung by those
// where the watchdog killed it.
var (
	ErrCrashed = errors.New("plugin process died")
	ErrHung    = errors.New("plugin process hung")
)

// Open starts a plugin process and builds the device spec describes in it.
func Open(spec Spec, opts Options) (*Client, error) {
	path := opts.Path
	if path == "" {
		var err error
		if path, err = Locate(); err != nil {
			return nil, err
		}
	}
	if opts.History <= 0 {
		opts.History = 16
	}
	limit := opts.Watchdog
	if limit <= 0 {
		limit = DefaultWatchdog
		if s := os.Getenv(WatchdogEnv); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("plugin: %s=%q is not a positive duration", WatchdogEnv, s)
			}
			limit = d
		}
	}
	page, err := newStatusFile()
	if err != nil {
		return nil, err
	}
	// The call channel: one end for us, one for the plugin as its file descriptor 3.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		page.close(true)
		return nil, fmt.Errorf("plugin: call channel: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "lhsim call channel"), os.NewFile(uintptr(fds[1]), "lhsim call channel (plugin)")
	cmd := exec.Command(path)
	cmd.Env = append(append(os.Environ(), opts.Env...), StatusEnv+"="+page.path, ChannelEnv+"=3")
	cmd.ExtraFiles = []*os.File{theirs}
	logger := hclog.NewNullLogger()
	if os.Getenv("LHSIM_PLUGIN_LOG") != "" {
		logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Debug, Output: os.Stderr})
	}
	c := &Client{opts: opts, cmd: cmd, page: page, stderr: newTail(64 << 10), limit: limit,
		hist: make([]Record, 0, opts.History), wdStop: make(chan struct{}), wdDone: make(chan struct{})}
	c.gp = goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          goplugin.PluginSet{pluginName: &rpcPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env has it, with ours after it so that ours win
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolNetRPC},
		Logger:           logger,
		Stderr:           c.stderr,
		StartTimeout:     time.Minute,
	})
	fail := func(err error) (*Client, error) {
		c.gp.Kill()
		theirs.Close()
		ours.Close()
		page.close(true)
		return nil, err
	}
	proto, err := c.gp.Client()
	theirs.Close() // the plugin has its copy: when it dies, our reads see the end
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "incompatible api version") {
			return fail(fmt.Errorf("plugin: %s speaks another protocol version (%v): harness and plugin come from different builds; rebuild the plugin with `make plugin`", path, err))
		}
		return fail(fmt.Errorf("plugin: starting %s: %v%s", path, err, c.stderr.report("plugin stderr")))
	}
	raw, err := proto.Dispense(pluginName)
	if err != nil {
		return fail(fmt.Errorf("plugin: %s: %v", path, err))
	}
	c.rpc = raw.(*rpc.Client)
	var hello HelloReply
	if err := c.rpc.Call("Plugin.Hello", BuildID(), &hello); err != nil {
		return fail(fmt.Errorf("plugin: %s: build check: %v", path, err))
	}
	c.build = hello.Build
	if hello.Build != BuildID() {
		return fail(fmt.Errorf("plugin: harness and plugin come from different builds: harness %s, plugin %s (%s); rebuild the plugin with `make plugin`",
			BuildID(), hello.Build, path))
	}
	c.pid = hello.Pid
	c.ch = ours
	c.w = bufio.NewWriterSize(ours, 64<<10)
	c.enc, c.dec = gob.NewEncoder(c.w), gob.NewDecoder(bufio.NewReaderSize(ours, 64<<10))
	go c.watchdog()
	c.spec = spec
	var rep Reply
	if err := c.call(Record{Call: "Open"}, &OpenArgs{Spec: spec}, &rep.Status, &rep); err != nil {
		c.shutdown()
		return nil, err
	}
	return c, nil
}

// CheckBuild asks the plugin, over go-plugin's net/rpc connection, which build it is, and
// fails if it is not the harness's. Open has done it once; it is also the cost of one
// go-plugin round trip, which the call channel exists to avoid.
func (c *Client) CheckBuild() error {
	if err := c.check(); err != nil {
		return err
	}
	var hello HelloReply
	if err := c.rpc.Call("Plugin.Hello", BuildID(), &hello); err != nil {
		return fmt.Errorf("plugin: build check: %w", err)
	}
	if hello.Build != BuildID() {
		return fmt.Errorf("plugin: harness build %s, plugin build %s", BuildID(), hello.Build)
	}
	return nil
}

// Pid is the plugin process's id.
func (c *Client) Pid() int { return c.pid }

// Build is the plugin's build identity (BuildID in the plugin process).
func (c *Client) Build() string { return c.build }

// Record is one call in the crash report's list of recent calls.
type Record struct {
	Seq      uint64
	Call     string    // the method
	Args     [2]uint64 // its arguments, as Call uses them
	Posted   int       // posted ops it carried
	From, To uint64    // board cycles before and after
	Took     time.Duration
	Err      string // "" when it worked; "no reply" when the process died under it
}

func (r Record) String() string {
	s := fmt.Sprintf("#%d %s", r.Seq, r.call())
	if r.Posted > 0 {
		s += fmt.Sprintf(" after %d posted ops", r.Posted)
	}
	switch {
	case r.Err == "no reply":
		return s + fmt.Sprintf(" from cycle %d: no reply", r.From)
	case r.Err != "":
		s += " failed: " + r.Err
	}
	return s + fmt.Sprintf(", cycles %d..%d, %v", r.From, r.To, r.Took.Round(time.Microsecond))
}

// call is the call with its arguments.
func (r Record) call() string {
	var call string
	switch r.Call {
	case "ReadReg":
		call = fmt.Sprintf("ReadReg(%#x)", r.Args[0])
	case "ReadBlock":
		call = fmt.Sprintf("ReadBlock(%#x, %d bytes)", r.Args[0], r.Args[1])
	case "MemRead", "MemWrite":
		call = fmt.Sprintf("%s(%#x, %d bytes)", r.Call, r.Args[0], r.Args[1])
	case "Run", "RunUntilIdle":
		call = fmt.Sprintf("%s(%d)", r.Call, r.Args[0])
	case "Receive":
		call = fmt.Sprintf("Receive(%d messages, %d entries)", r.Args[0], r.Args[1])
	case "Feed":
		call = fmt.Sprintf("Feed(%d messages, drain %v)", r.Args[0], r.Args[1] == uint64(modeFeedDrain))
	case "Exchange":
		call = fmt.Sprintf("Exchange(submit batch %d, collect batch %d)", r.Args[0], r.Args[1])
	default:
		call = r.Call + "()"
	}
	return call
}

// History returns the recent calls, oldest first.
func (c *Client) History() []Record {
	n := len(c.hist)
	out := make([]Record, 0, n)
	for i := range n {
		if c.seq <= uint64(n) {
			out = append(out, c.hist[i])
		} else {
			out = append(out, c.hist[(int(c.seq)+i)%n])
		}
	}
	return out
}

func (c *Client) record(r Record) {
	if len(c.hist) < cap(c.hist) {
		c.hist = append(c.hist, r)
		return
	}
	c.hist[int(r.Seq-1)%len(c.hist)] = r
}

// call makes one call on the channel and waits for its answer. args must carry the posted
// ops taken by take(). Anything but an answer (the channel closed, a garbled reply) means
// the process is gone or out of step: the device is dead from then on.
func (c *Client) call(r Record, args any, st *Status, reply any) error {
	if c.dead != nil {
		return c.dead
	}
	if c.closed {
		return errors.New("plugin: the device is closed")
	}
	c.seq++
	r.Seq, r.From = c.seq, c.cycle
	start := time.Now()
	c.inflight.Store(c.seq)
	err := c.enc.Encode(&header{Method: methodCodes[r.Call]})
	if err == nil {
		err = c.enc.Encode(args)
	}
	if err == nil {
		err = c.w.Flush()
	}
	if err == nil {
		err = c.dec.Decode(reply)
	}
	c.inflight.Store(0)
	r.Took = time.Since(start)
	if err != nil {
		r.Err = "no reply"
		c.record(r)
		c.dead = c.crashed(r, err)
		return c.dead
	}
	c.cycle = max(c.cycle, st.Cycle)
	r.To, r.Err = c.cycle, st.Err
	c.record(r)
	for _, e := range st.Events {
		p := gosim.Pins{EvCommit: e.Flags & 1, EvMsgDone: e.Flags >> 1 & 1, EvVecDone: e.Flags >> 2 & 1}
		for _, f := range c.watchers {
			f(e.Cycle, &p)
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

// remoteError is an error the plugin's board returned, with its text unchanged and the
// sentinel it wrapped, if it is one callers test for.
type remoteError struct {
	msg string
	is  error
}

func (e remoteError) Error() string { return e.msg }
func (e remoteError) Unwrap() error { return e.is }

// take hands the posted ops to the call about to go out.
func (c *Client) take() []Op {
	p := c.pending
	c.pending, c.pendingBytes, c.postedCycles = nil, 0, false
	return p
}

// check returns what a call must report before it runs: a dead process, an earlier
// posted op's failure.
func (c *Client) check() error {
	if c.dead != nil {
		return c.dead
	}
	if err := c.postedErr; err != nil {
		c.postedErr = nil
		return err
	}
	return nil
}

func (c *Client) post(op Op, cycles bool) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.closed {
		return errors.New("plugin: the device is closed")
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
func (c *Client) Flush() error {
	if err := c.check(); err != nil {
		return err
	}
	return c.flush()
}

func (c *Client) flush() error {
	p := c.take()
	var rep Reply
	return c.call(Record{Call: "Flush", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
}

// hostAddrOK is the Board's own check of a host address: only an address that passes is
// posted, so that a bad one still gets the Board's error from a call of its own.
func hostAddrOK(addr uint32, n int) bool {
	return addr&3 == 0 && n%4 == 0 && uint64(addr)+uint64(n) <= 1<<20 && addr < 1<<20
}

// ReadReg reads one word over the host bus.
func (c *Client) ReadReg(addr uint32) (uint32, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	p := c.take()
	var rep RegReply
	err := c.call(Record{Call: "ReadReg", Args: [2]uint64{uint64(addr)}, Posted: len(p)},
		&RegArgs{Args: Args{p}, Addr: addr}, &rep.Status, &rep)
	return rep.Val, err
}

// WriteReg posts one word's write over the host bus.
func (c *Client) WriteReg(addr, val uint32) error {
	if !hostAddrOK(addr, 4) {
		return c.sync(Op{Kind: opWriteReg, Addr: addr, Val: val})
	}
	return c.post(Op{Kind: opWriteReg, Addr: addr, Val: val}, true)
}

// WriteBlock posts writes of consecutive words.
func (c *Client) WriteBlock(addr uint32, src []byte) error {
	if !hostAddrOK(addr, len(src)) {
		return c.sync(Op{Kind: opWriteBlock, Addr: addr, Data: src})
	}
	return c.post(Op{Kind: opWriteBlock, Addr: addr, Data: src}, len(src) > 0)
}

// Inject posts a message for the network input.
func (c *Client) Inject(msg []byte) error {
	if len(msg) == 0 || len(msg) > gosim.MaxMessage {
		return c.sync(Op{Kind: opInject, Data: msg})
	}
	return c.post(Op{Kind: opInject, Data: msg}, false)
}

// sync sends op at once, for its error.
func (c *Client) sync(op Op) error {
	if err := c.check(); err != nil {
		return err
	}
	p := append(c.take(), op)
	var rep Reply
	err := c.call(Record{Call: "Flush", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	if rep.Failed == len(p) && rep.Err != "" {
		return remoteError{msg: rep.Err} // the op's own error, as the Board words it
	}
	return err
}

// ReadBlock reads consecutive words over the host bus.
func (c *Client) ReadBlock(addr uint32, dst []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(Record{Call: "ReadBlock", Args: [2]uint64{uint64(addr), uint64(len(dst))}, Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: uint64(addr), N: len(dst)}, &rep.Status, &rep)
	if err == nil {
		copy(dst, rep.Data)
	}
	return err
}

// Run advances the clock by n cycles.
func (c *Client) Run(n uint64) error { return c.run("Run", n) }

// RunUntilIdle runs until the NIC has taken every message and is quiet, within limit cycles.
func (c *Client) RunUntilIdle(limit uint64) error { return c.run("RunUntilIdle", limit) }

func (c *Client) run(method string, n uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	return c.call(Record{Call: method, Args: [2]uint64{n}, Posted: len(p)}, &RunArgs{Args: Args{p}, N: n}, &rep.Status, &rep)
}

// Watch calls f with the cycles in which an event output (ev_commit, ev_msg_done,
// ev_vec_done) pulsed, with those outputs set in p and nothing else: not every cycle with
// every port, as gosim.Board.Watch does, which would cost the round trip the protocol saves.
// A watcher of event pulses (mpi.HostModel's) sees the same on both bridges. The calls come
// when the device call that ran those cycles returns, in cycle order.
func (c *Client) Watch(f func(cycle uint64, p *gosim.Pins)) {
	if len(c.watchers) == 0 {
		c.post(Op{Kind: opWatch}, false)
	}
	c.watchers = append(c.watchers, f)
}

// Cycle is the number of cycles since reset. It costs a call only when posted writes are
// waiting (they take cycles); an error of theirs is returned by the next call.
func (c *Client) Cycle() uint64 {
	if c.postedCycles && c.dead == nil && !c.closed {
		if err := c.flush(); err != nil && c.dead == nil {
			c.postedErr = err
		}
	}
	return c.cycle
}

// MemRead reads the large memory by backdoor.
func (c *Client) MemRead(addr uint64, dst []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(Record{Call: "MemRead", Args: [2]uint64{addr, uint64(len(dst))}, Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: addr, N: len(dst)}, &rep.Status, &rep)
	if err == nil {
		copy(dst, rep.Data)
	}
	return err
}

// MemWrite writes the large memory by backdoor.
func (c *Client) MemWrite(addr uint64, src []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	return c.call(Record{Call: "MemWrite", Args: [2]uint64{addr, uint64(len(src))}, Posted: len(p)},
		&BlockArgs{Args: Args{p}, Addr: addr, Data: src}, &rep.Status, &rep)
}

// Receive implements Receiver in one call: the batch goes over, the entries come back.
func (c *Client) Receive(msgs [][]byte, n int, limit uint64) ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	p := c.take()
	var rep BlockReply
	err := c.call(Record{Call: "Receive", Args: [2]uint64{uint64(len(msgs)), uint64(n)}, Posted: len(p)},
		&ReceiveArgs{Args: Args{p}, Batch: c.packed.pack(msgs), N: n, Limit: limit}, &rep.Status, &rep)
	return rep.Data, err
}

// Feed implements Receiver in one call.
func (c *Client) Feed(msgs [][]byte, drain bool, limit uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	mode := modeFeed
	if drain {
		mode = modeFeedDrain
	}
	var rep Reply
	return c.call(Record{Call: "Feed", Args: [2]uint64{uint64(len(msgs)), uint64(mode)}, Posted: len(p)},
		&ReceiveArgs{Args: Args{p}, Batch: c.packed.pack(msgs), Limit: limit, Mode: mode}, &rep.Status, &rep)
}

// ReceiveAll implements Receiver with one Exchange call per batch (and one more): each
// queues the next batch in the plugin and collects the last, so the plugin runs batch k+1
// while the harness checks k.
func (c *Client) ReceiveAll(n int, batch func(k int) [][]byte, limit uint64, fn func(k int, entries []byte) error) error {
	return c.pipeline(n, func(k int) ReceiveArgs {
		msgs := batch(k)
		return ReceiveArgs{Batch: c.packed.pack(msgs), N: len(msgs), Limit: limit, Mode: modeReceive}
	}, fn)
}

// FeedAll implements Receiver as ReceiveAll does.
func (c *Client) FeedAll(n int, batch func(k int) [][]byte, limit uint64) error {
	return c.pipeline(n, func(k int) ReceiveArgs {
		mode := modeFeed
		if k == n-1 {
			mode = modeFeedDrain
		}
		return ReceiveArgs{Batch: c.packed.pack(batch(k)), Limit: limit, Mode: mode}
	}, func(int, []byte) error { return nil })
}

// pipeline runs n batches through Exchange, one queued ahead, collecting each in order.
func (c *Client) pipeline(n int, args func(k int) ReceiveArgs, fn func(k int, data []byte) error) error {
	if err := c.check(); err != nil || n == 0 {
		return err
	}
	// Batch k is job base+k+1 (0 names no job).
	base := c.jobs
	c.jobs += uint64(n)
	exchange := func(submit, collect int) ([]byte, error) {
		a := ExchangeArgs{}
		r := Record{Call: "Exchange"}
		if submit < n {
			a.ReceiveArgs = args(submit)
			a.Pending, a.Submit = c.take(), base+uint64(submit)+1
			r.Args[0], r.Posted = a.Submit, len(a.Pending)
		}
		if collect >= 0 {
			a.Collect = base + uint64(collect) + 1
			r.Args[1] = a.Collect
		}
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
			if k+1 < n && c.dead == nil {
				exchange(n, k+1) // nothing may stay queued in the plugin
			}
			return err
		}
	}
	return nil
}

// CPU is the CPU time the plugin process has used so far (user and system, all threads).
func (c *Client) CPU() (time.Duration, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	p := c.take()
	var rep StatsReply
	err := c.call(Record{Call: "Stats", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	return rep.CPU, err
}

// Reopen closes the device and builds a fresh one from the same Spec in the same plugin
// process: a new device (cycle 0, empty memory) without a new process. It returns what
// closing found, or what opening did.
func (c *Client) Reopen() error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.take()
	var rep Reply
	closeErr := c.call(Record{Call: "Close", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	if c.dead != nil {
		return c.dead
	}
	var orep Reply
	err := c.call(Record{Call: "Open"}, &OpenArgs{Spec: c.spec}, &orep.Status, &orep)
	c.cycle = 0
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
func (c *Client) Close() error {
	if c.closed {
		return nil
	}
	err := c.check()
	if err == nil {
		p := c.take()
		var rep Reply
		err = c.call(Record{Call: "Close", Posted: len(p)}, &Args{Pending: p}, &rep.Status, &rep)
	}
	c.closed = true
	c.shutdown()
	return err
}

// shutdown ends the process and frees what the client holds.
func (c *Client) shutdown() {
	select {
	case <-c.wdStop:
	default:
		close(c.wdStop)
	}
	if c.ch != nil {
		<-c.wdDone
		// The plugin leaves when its end of the channel closes. Let it go before go-plugin's
		// Kill, whose graceful quit otherwise races the exit and has yamux log broken pipes.
		c.ch.Close()
		for deadline := time.Now().Add(2 * time.Second); !c.gp.Exited() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	c.gp.Kill()
	c.page.close(true)
}

// watchdog kills the process when a call has been waiting with no cycle of progress (and no
// new call started in the plugin) for the limit.
func (c *Client) watchdog() {
	defer close(c.wdDone)
	tick := min(max(c.limit/8, 10*time.Millisecond), time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	var seq, cycle, calls uint64
	var moved time.Time
	for {
		select {
		case <-c.wdStop:
			return
		case now := <-t.C:
			s := c.inflight.Load()
			if s == 0 {
				seq = 0
				continue
			}
			cy, ca := c.page.cycle(), c.page.calls()
			if s != seq || cy != cycle || ca != calls {
				seq, cycle, calls, moved = s, cy, ca, now
				continue
			}
			if now.Sub(moved) >= c.limit {
				// SIGQUIT makes the Go runtime print every goroutine's stack, the board's
				// (in the RTL's C++ or the model's Go) among them, before it exits.
				c.hung.Store(true)
				c.cmd.Process.Signal(syscall.SIGQUIT)
				select {
				case <-c.wdStop:
				case <-time.After(2 * time.Second):
					c.cmd.Process.Kill()
				}
				return
			}
		}
	}
}

// crashed builds the report of a process that stopped answering during call r.
func (c *Client) crashed(r Record, cause error) error {
	deadline := time.Now().Add(5 * time.Second)
	for !c.gp.Exited() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if !c.gp.Exited() { // alive but out of step: it cannot be trusted any more
		c.cmd.Process.Kill()
	}
	e := &CrashError{Label: c.opts.Label, Pid: c.pid, Call: r, Cycle: c.page.cycle(), Hung: c.hung.Load(),
		Watchdog: c.limit, Recent: c.History()}
	if c.gp.Exited() && c.cmd.ProcessState != nil {
		e.Exit = c.cmd.ProcessState.String()
	} else {
		e.Exit = "connection lost: " + cause.Error()
	}
	e.Stderr, e.StderrFile = c.stderr.keep(c.pid)
	return e
}

// CrashError reports a plugin process that died or hung: which device, which call, which
// cycle, how it ended, what it printed and the calls before.
type CrashError struct {
	Label      string        // Options.Label
	Pid        int           // the plugin process
	Call       Record        // the call in flight
	Cycle      uint64        // cycles the board had completed (from the status page)
	Hung       bool          // the watchdog killed it
	Watchdog   time.Duration // the watchdog's limit
	Exit       string        // how the process ended ("exit status 2", "signal: killed")
	Stderr     []string      // the first lines it wrote to stderr (the crash message)
	StderrFile string        // all of its stderr, when there was more than Stderr shows
	Recent     []Record      // recent calls, oldest first, the fatal one last
}

func (e *CrashError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin: RTL process %d", e.Pid)
	if e.Label != "" {
		fmt.Fprintf(&b, " [%s]", e.Label)
	}
	if e.Hung {
		fmt.Fprintf(&b, " hung at cycle %d during %s: no cycle of progress for %v; the watchdog stopped it (SIGQUIT for a stack dump, then SIGKILL): %s",
			e.Cycle, e.Call.call(), e.Watchdog, e.Exit)
	} else {
		fmt.Fprintf(&b, " died at cycle %d during %s: %s", e.Cycle, e.Call.call(), e.Exit)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("\nplugin stderr:")
		for _, l := range e.Stderr {
			b.WriteString("\n    " + l)
		}
		if e.StderrFile != "" {
			b.WriteString("\n    ... (all of it in " + e.StderrFile + ")")
		}
	}
	b.WriteString("\nlast calls, oldest first:")
	for _, r := range e.Recent {
		b.WriteString("\n    " + r.String())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrCrashed) (and ErrHung for a hang) true.
func (e *CrashError) Is(target error) bool {
	return target == ErrCrashed || (e.Hung && target == ErrHung)
}

// tail keeps the start and the last bytes of a stream (the plugin's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut int // bytes dropped from the front
}

func newTail(max int) *tail {
	return &tail{max: max}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut += over
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// stderrLines is about how many lines a report shows.
const stderrLines = 16

// keep picks the lines of the stream a report shows: what comes before the first blank line
// (Verilator's message, the signal or the panic) and, from a Go crash dump, the stack of the
// goroutine locked to its thread, the board's, which says where the RTL stopped. When that
// leaves something out, all of it goes to a file, whose path keep returns too.
func (t *tail) keep(pid int) ([]string, string) {
	s := strings.TrimRight(t.String(), "\n")
	if s == "" {
		return nil, ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) <= stderrLines && t.cut == 0 {
		return lines, ""
	}
	var out []string
	for _, l := range lines {
		if l == "" || len(out) == stderrLines/2 {
			break
		}
		out = append(out, l)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "goroutine ") && strings.Contains(l, "locked to thread") {
			for _, b := range lines[i:] {
				if b == "" || len(out) >= stderrLines+stderrLines/2 {
					break
				}
				out = append(out, b)
			}
			break
		}
	}
	f, err := os.CreateTemp("", fmt.Sprintf("lhsim-plugin-%d-*.stderr", pid))
	if err != nil {
		return out, ""
	}
	defer f.Close()
	io.WriteString(f, s+"\n")
	return out, f.Name()
}

// report formats the stream for an error message ("" when empty).
func (t *tail) report(what string) string {
	s := strings.TrimSpace(t.String())
	if s == "" {
		return ""
	}
	return "\n" + what + ":\n    " + strings.ReplaceAll(s, "\n", "\n    ")
}
