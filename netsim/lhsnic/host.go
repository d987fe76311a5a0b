package lhsnic

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
)

// Program is the software on a node's host, run from the time the node is made: a driver
// and an MPI library (drivers, drivers/mpi) written against drivers.Bus, which the bus
// is. It programs the NIC itself, as a driver does when it loads; the node does not.
type Program func(bus *HostBus) error

// HostBus is a node's host bus as its Program sees it: a drivers.Bus (and
// drivers.Watcher) whose every access happens on the device at the host's own time.
//
// The host's time is its CPU model's clock (hostcpu, charged by the driver and the MPI
// library as on a single node), laid on the engine's: engine time = the node's start + CPU
// time. The program runs as a coroutine of the engine. At each access it waits until the
// engine reaches its time, and the access goes on the device's host bus at the first device
// cycle that starts after it, in cycle order with everything the network brings. A write is
// posted (the program goes on); a read waits for its answer (host_rvalid, two cycles after
// the request), and the program resumes at the end of the cycle that brought it. The CPU
// model's charge for the access overlaps the device's: the host is at the later of the two,
// never behind the engine. Waiting for the network (WaitCommit) resumes the program at the
// end of the cycle that committed the next entry, as a host polling LH_PROD in a tight loop
// sees it, without simulating every poll.
type HostBus struct {
	n      *Node
	CPU    *hostcpu.CPU
	origin netsim.Time // engine time of CPU time 0

	p *netsim.Proc // the program, a coroutine on the node's machine

	want     int      // reads outstanding
	answers  []uint32 // their answers so far
	commits  uint32   // entries the node has committed (as LH_PROD counts them; MSG_COUNT with LHS off)
	seen     uint32   // the count the host last read from that register
	watching bool     // the program waits for a commit
	watchers []func(cycle uint64, ev drivers.Events)
}

func startHost(n *Node, cpu *hostcpu.CPU, prog Program) *HostBus {
	b := &HostBus{n: n, CPU: cpu, origin: n.eng.Now(), p: n.m.NewProc("the host")}
	b.p.FailFormat = "lhsnic: host program: %w"
	if n.cfg.Keys != nil {
		b.p.SetKeys(n.cfg.Keys)
	}
	b.p.Start(n.eng.Now(), func(*netsim.Proc) error { return prog(b) })
	return b
}

// resumeAt schedules the program's resumption at t, replacing any earlier plan.
func (b *HostBus) resumeAt(t netsim.Time) { b.p.WakeAt(t) }

// block suspends the program until a resume event it scheduled (or the node scheduled for
// it) fires.
func (b *HostBus) block(why netsim.Why) { b.p.Suspend(why) }

// Done reports whether the program has returned (or was ended by Close); Err is its error.
func (b *HostBus) Done() bool { return b.p.State() != netsim.Waiting }

// Err is the error the program returned, if any.
func (b *HostBus) Err() error { return b.p.Err() }

// Waiting says what an unfinished program waits for ("" once it is done).
func (b *HostBus) Waiting() string { return b.p.Waiting() }

// close ends a program left waiting when the run ended.
func (b *HostBus) close() { b.p.Abandon() }

// Now is the host's time on the engine's clock.
func (b *HostBus) Now() netsim.Time { return b.origin + netsim.Time(b.CPU.Now()) }

// sync brings the engine to the host's time: the program waits until the engine gets
// there, or, when the engine is ahead (the device's answer came later than the CPU model
// charged), the host's clock moves up to it.
func (b *HostBus) sync() netsim.Time {
	now := b.n.eng.Now()
	switch t := b.Now(); {
	case t < now:
		b.CPU.Advance(int64(now - t))
	case t > now:
		b.resumeAt(t)
		b.block(netsim.Because("its own clock"))
	}
	return b.n.eng.Now()
}

// Sleep lets d pass on the host's clock (the host waits, doing nothing).
func (b *HostBus) Sleep(d netsim.Time) {
	b.CPU.Advance(int64(d))
	b.sync()
}

// post puts the host's accesses on the bus at its time; reads ones are the reads among them.
func (b *HostBus) post(reads int, what netsim.Why, ops func(p receivePath, cycle uint64) error) ([]uint32, error) {
	now := b.sync()
	b.want, b.answers = reads, b.answers[:0]
	if err := b.n.hostAccess(now, ops); err != nil {
		return nil, err
	}
	if reads == 0 {
		return nil, nil
	}
	b.block(what)
	if err := b.n.m.Err(); err != nil {
		return nil, err
	}
	return b.answers, nil
}

// answered takes the answers of a step that ran until at.
func (b *HostBus) answered(vals []uint32, at netsim.Time) {
	b.answers = append(b.answers, vals...)
	if b.want > 0 && len(b.answers) >= b.want {
		b.want = 0
		b.resumeAt(at)
	}
}

// committed tells the program the node committed an entry, seen at at.
func (b *HostBus) committed(at netsim.Time) {
	b.commits++
	if b.watching {
		b.watching = false
		b.resumeAt(at)
	}
}

// event reports a device cycle's event pulses to the program's watchers.
func (b *HostBus) event(cycle uint64, ev drivers.Events) {
	for _, f := range b.watchers {
		f(cycle, ev)
	}
}

// ErrNoCommit is what WaitCommit returns when its limit passes first.
var ErrNoCommit = errors.New("lhsnic: no entry committed")

// WaitCommit is a host polling LH_PROD (MSG_COUNT with LHS off) until it moves past the
// value the host last read there, without simulating every poll: it returns at once if the
// node has committed an entry since, else at the end of the cycle that commits the next
// one, or, after limit, with an error wrapping ErrNoCommit that says how long it waited.
func (b *HostBus) WaitCommit(limit netsim.Time) error {
	start := b.sync()
	if b.commits != b.seen {
		return nil
	}
	b.watching = true
	b.resumeAt(start + limit)
	b.block(netsim.Because("an entry committed after %v (the count it last read: %d)", int64(start), int64(b.seen)).Time(0))
	b.watching = false
	if b.commits == b.seen {
		return fmt.Errorf("%w in %v (from %v; the count stays at %d)", ErrNoCommit, limit, start, b.seen)
	}
	return nil
}

// ReadReg implements drivers.Bus: one read on the host bus.
func (b *HostBus) ReadReg(addr uint32) (uint32, error) {
	v, err := b.post(1, netsim.Because("the answer to a read of %#x", int64(addr)), func(p receivePath, c uint64) error {
		return p.PostRead(c, addr)
	})
	if err != nil {
		return 0, err
	}
	if addr == hw.RegLHProd && b.n.cfg.LHS || addr == hw.RegMsgCount && !b.n.cfg.LHS {
		b.seen = v[0]
	}
	return v[0], nil
}

// WriteReg implements drivers.Bus: a posted write.
func (b *HostBus) WriteReg(addr, val uint32) error {
	_, err := b.post(0, netsim.Why{}, func(p receivePath, c uint64) error {
		if addr == hw.RegLHRelease && b.n.OnEvent != nil { // the program has read them
			for range val {
				b.n.tell(RxReleased, c, b.n.ran)
			}
		}
		return p.PostWrite(c, addr, val)
	})
	return err
}

// ReadBlock implements drivers.Bus: consecutive reads, one a cycle.
func (b *HostBus) ReadBlock(addr uint32, dst []byte) error {
	if len(dst)%4 != 0 {
		return fmt.Errorf("lhsnic: block of %d bytes is not whole words", len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	v, err := b.post(len(dst)/4, netsim.Because("the answers to a %d-byte read at %#x", int64(len(dst)), int64(addr)), func(p receivePath, c uint64) error {
		for i := 0; i < len(dst); i += 4 {
			if err := p.PostRead(c, addr+uint32(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, w := range v {
		binary.LittleEndian.PutUint32(dst[4*i:], w)
	}
	return nil
}

// WriteBlock implements drivers.Bus: consecutive posted writes.
func (b *HostBus) WriteBlock(addr uint32, src []byte) error {
	if len(src)%4 != 0 {
		return fmt.Errorf("lhsnic: block of %d bytes is not whole words", len(src))
	}
	_, err := b.post(0, netsim.Why{}, func(p receivePath, c uint64) error {
		for i := 0; i < len(src); i += 4 {
			if err := p.PostWrite(c, addr+uint32(i), binary.LittleEndian.Uint32(src[i:])); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// Cycle implements drivers.Bus: the device cycle an access made now goes out in (the
// first that starts after the host's time).
func (b *HostBus) Cycle() uint64 { return b.n.cycleAfter(b.n.eng.Now()) }

// Watch implements drivers.Watcher: f sees every event pulse of the device, in cycle order.
func (b *HostBus) Watch(f func(cycle uint64, ev drivers.Events)) {
	b.watchers = append(b.watchers, f)
}
