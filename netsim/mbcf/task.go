package mbcf

import (
	"errors"
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/netsim"
)

// Program is what a task runs: a plain function, run as a coroutine of the engine (a call that
// waits suspends it until the event it waits for). Its error ends the task and is reported by
// System.Run.
type Program func(t *Task) error

// Remote names a destination: a task by its logical task number (the kernel looks up its
// node, task ID and Ethernet address, §3) and the access key the user holds for its space.
type Remote struct {
	Task int
	Key  uint32
}

// Fault is a failure the kernel told a task of: a command of its that failed at the target
// (a failure status or a NOTICE came back), or failed because its channel gave up.
type Fault struct {
	At     netsim.Time
	Reason Reason
	Op     Opcode // from a NOTICE or a local failure; 0 when a status word told it
	Seq    uint8  // the request packet's sequence number (NOTICE, local)
	Index  int    // the command's place in that packet
	Node   uint32 // the node it was sent to
	Flag   uint32 // the flag that was told, if any
}

// Errors of a task's calls. Each is returned, with what was wrong, before anything is sent.
var (
	ErrBadCall     = errors.New("mbcf: bad call")
	ErrUnreachable = errors.New("mbcf: destination node unreachable (its channel gave up)")
	ErrWaitLimit   = errors.New("mbcf: wait limit passed")
)

// Task is a user task: its ID, the key of its space, the space, and the program it runs.
// Call its methods only from its own program.
type Task struct {
	n     *Node
	id    uint32
	key   uint32
	space *Space
	num   int

	p *netsim.Proc // its program, a coroutine held while the node's kernel is busy

	computeLeft netsim.Time
	faults      []Fault
}

// Num is the task's logical task number; ID its task ID on its node; Key its space's key.
func (t *Task) Num() int       { return t.num }
func (t *Task) ID() uint32     { return t.id }
func (t *Task) Key() uint32    { return t.key }
func (t *Task) Node() *Node    { return t.n }
func (t *Task) Space() *Space  { return t.space }
func (t *Task) Remote() Remote { return Remote{Task: t.num, Key: t.key} }

// Now is the simulated time.
func (t *Task) Now() netsim.Time { return t.n.s.eng.Now() }

// Faults are the failures the kernel has told this task of, oldest first.
func (t *Task) Faults() []Fault { return slices.Clone(t.faults) }

func (t *Task) start(prog Program) {
	t.p.Start(t.n.s.eng.Now(), func(*netsim.Proc) error { return prog(t) })
}

// wake schedules the program's resumption at now if it can go on.
func (t *Task) wake(now netsim.Time) { t.p.Wake(now) }

// block suspends the program until ready() holds and the kernel is idle; with limited, for
// at most the wait limit, after which it returns an error naming what it waited for.
func (t *Task) block(why netsim.Why, limited bool, ready func() bool) error {
	if !limited {
		t.p.Wait(why, ready)
		return nil
	}
	limit := t.n.s.cfg.Protocol.WaitLimit
	if !t.p.WaitLimit(limit, why, ready) {
		return fmt.Errorf("%w: task %d (node %d) waited %v for %v", ErrWaitLimit, t.num, t.n.id, limit, why)
	}
	return nil
}

func (t *Task) bad(format string, a ...any) error {
	return fmt.Errorf("%w: task %d: "+format, append([]any{ErrBadCall, t.num}, a...)...)
}

// Write is MBCF_WRITE: data into r's space at addr. With flag != 0 (a word of this task's
// space) it is MBCF_WRITE_STAT: the flag is cleared, and set to StatusDone, or to a failure
// status, when the target's answer comes back. It returns when the send system call does.
func (t *Task) Write(r Remote, addr uint32, data []byte, flag uint32) error {
	return t.one(r, Command{Op: OpWrite, Addr: addr, Length: uint32(len(data)), Data: slices.Clone(data)}, flag)
}

// Read is MBCF_READ: n bytes of r's space at addr come back into this task's space at into.
// With flag != 0 the flag is set once they are there (or to a failure status).
func (t *Task) Read(r Remote, addr uint32, n int, into, flag uint32) error {
	if n < 0 {
		return t.bad("READ of %d bytes", n)
	}
	return t.one(r, Command{Op: OpRead, Addr: addr, Length: uint32(n), Reply: into}, flag)
}

// Swap is MBCF_SWAP: atomically at the target, the words at addr are read and replaced by
// data; the old ones come back into this task's space at into, then the flag, if any.
func (t *Task) Swap(r Remote, addr uint32, data []byte, into, flag uint32) error {
	return t.one(r, Command{Op: OpSwap, Addr: addr, Length: uint32(len(data)), Data: slices.Clone(data), Reply: into}, flag)
}

// FIFOWrite appends data as one record to the Memory-Based FIFO at queue in r's space (whole,
// or not at all: a full queue fails the command).
func (t *Task) FIFOWrite(r Remote, queue uint32, data []byte, flag uint32) error {
	return t.one(r, Command{Op: OpFIFO, Addr: queue, Length: uint32(len(data)), Data: slices.Clone(data)}, flag)
}

func (t *Task) one(r Remote, c Command, flag uint32) error {
	c.Key = r.Key
	if flag != 0 {
		c.Opts, c.Flag = OptStat, flag
	}
	return t.Send(r.Task, []Command{c})
}

// Send is the system call that takes a packet the user assembled (§3, the second kind): the
// commands, all for task dst (each with its own key), combined into one packet. The kernel
// checks them (user commands only, lengths that match their data, one packet's size, reply
// and flag pointers in this task's own space) and refuses a bad one with an error before
// anything is sent; it then clears the flags, copies the data once into the kept copy and
// hands the packet to the adapter. When the channel's window and backlog are full the call
// waits for room (at most the wait limit).
func (t *Task) Send(dst int, cmds []Command) error {
	s := t.n.s
	start := t.Now()
	if dst < 0 || dst >= len(s.tasks) {
		return t.bad("no task %d (%d tasks)", dst, len(s.tasks))
	}
	to := s.tasks[dst]
	if to.n == t.n {
		return t.bad("task %d is on this node: MBCF goes to other nodes", dst)
	}
	if len(cmds) == 0 {
		return t.bad("no commands")
	}
	p := &Packet{Header: Header{SrcTask: t.id, SrcKey: t.key, DstTask: to.id}, Cmds: make([]Command, len(cmds))}
	data := 0
	for i, c := range cmds {
		if !c.Op.User() {
			return t.bad("command %d: %v is the kernel's to send", i, c.Op)
		}
		if c.Op.hasReply() {
			if c.Length > MaxReplyData {
				return t.bad("command %d: %v of %d bytes: its reply must fit one packet (at most %d)", i, c.Op, c.Length, MaxReplyData)
			}
			if _, ok := t.space.find(c.Reply, int(c.Length), 0); !ok {
				return t.bad("command %d: %v's reply buffer %#x+%d is not in the task's space", i, c.Op, c.Reply, c.Length)
			}
		}
		if c.Stat() {
			if _, ok := t.space.find(c.Flag, 4, 0); !ok {
				return t.bad("command %d: flag %#x is not in the task's space", i, c.Flag)
			}
		}
		c.Data = slices.Clone(c.Data)
		p.Cmds[i] = c
		if c.Op.carriesData() {
			data += len(c.Data)
		}
	}
	if err := p.check(); err != nil {
		return t.bad("%v", err)
	}
	ch := t.n.chanTo(to.n.id)
	if ch.dead {
		return fmt.Errorf("%w: task %d to node %d", ErrUnreachable, t.num, to.n.id)
	}
	if err := t.block(netsim.Because("room in the backlog to node %d", int64(to.n.id)), true, func() bool {
		return ch.dead || len(ch.backlog) < s.cfg.Protocol.Backlog
	}); err != nil {
		return err
	}
	if ch.dead {
		return fmt.Errorf("%w: task %d to node %d", ErrUnreachable, t.num, to.n.id)
	}
	for _, c := range p.Cmds {
		if c.Stat() {
			_ = t.space.SetWord(c.Flag, 0)
		}
	}
	h := s.cfg.Host
	done := false
	var flow uint64
	t.n.cpu.submit(t.Now(), job{what: "send system call", run: func(now netsim.Time) (netsim.Time, func(netsim.Time)) {
		o := &outPkt{pkt: p, from: t}
		items := t.n.post(ch, o)
		flow = o.flow
		return h.SendBase + netsim.Time(data)*h.CopyByte, func(now netsim.Time) {
			t.n.handOver(now, items)
			done = true
		}
	}})
	err := t.block(netsim.Because("the send system call"), true, func() bool { return done })
	if tr := s.tr; tr != nil && err == nil {
		ops := ""
		for i, c := range p.Cmds {
			if i > 0 {
				ops += "+"
			}
			ops += c.Op.String()
		}
		tr.Call(int(t.n.id), t.num, "send", ops, start, t.Now(), int(to.n.id), data, flow)
	}
	return err
}

// Await spins on this task's flag word until it is not 0 and returns what it reports:
// ReasonNone for StatusDone, else why the command failed. It waits at most the wait limit.
func (t *Task) Await(flag uint32) (Reason, error) {
	var w uint32
	var werr error
	start := t.Now()
	err := t.block(netsim.Because("the flag at %#x", int64(flag)), true, func() bool {
		w, werr = t.space.Word(flag)
		return werr != nil || w != 0
	})
	if tr := t.n.s.tr; tr != nil && err == nil && werr == nil {
		tr.Call(int(t.n.id), t.num, "await", "", start, t.Now(), -1, 0, 0)
	}
	if werr != nil {
		return ReasonNone, fmt.Errorf("%w: task %d: %v", ErrBadCall, t.num, werr)
	}
	if err != nil {
		return ReasonNone, err
	}
	return StatusReason(w), nil
}

// Spin polls this task's own memory until cond holds (desc says what for), at most the wait
// limit: a user-level spin-wait, which takes no CPU time from the kernel.
func (t *Task) Spin(desc string, cond func() bool) error {
	return t.block(netsim.Because(desc), true, cond)
}

// Compute keeps the task busy computing for d of CPU time; the kernel's work on this node
// (interrupts) preempts it and makes it take longer.
func (t *Task) Compute(d netsim.Time) error {
	if d < 0 {
		return t.bad("Compute(%v): negative", d)
	}
	if d == 0 {
		return nil
	}
	t.computeLeft = d
	start := t.Now()
	t.n.cpu.compute(t.Now(), t)
	err := t.block(netsim.Because("its computation"), false, func() bool { return t.computeLeft == 0 })
	if tr := t.n.s.tr; tr != nil && err == nil {
		tr.Call(int(t.n.id), t.num, "compute", "", start, t.Now(), -1, 0, 0)
	}
	return err
}

// told records a failure of one of this task's commands, and sets its flag if it had one.
func (t *Task) told(now netsim.Time, f Fault, stat bool, flag uint32) {
	t.n.stats.Told++
	if stat {
		f.Flag = flag
		_ = t.space.SetWord(flag, FailStatus(f.Reason))
	}
	t.faults = append(t.faults, f)
}
