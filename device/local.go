package device

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/verilator"
)

// Local is the device in this process (the cgo bridge): a gosim.Board with the RTL, the Go
// model or both in lockstep on it. Callers that step the clock one cycle at a time (waves,
// session, the benchmark) use the Board directly.
type Local struct {
	*gosim.Board
	rx   consumer
	step *stepper // Steps, once called
}

// OpenLocal builds the device in this process, whatever cfg.Bridge says: the plugin process
// builds its device with it too.
func OpenLocal(cfg Config) (*Local, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var core gosim.Core
	switch cfg.Model {
	case Go:
		m, err := gosim.NewModel(cfg.Params())
		if err != nil {
			return nil, err
		}
		core = m
	case RTL, Lockstep:
		r, err := verilator.New(cfg.Trace)
		if err != nil {
			return nil, err
		}
		core = r
		if cfg.Model == Lockstep {
			m, err := gosim.NewModel(cfg.Params())
			if err != nil {
				r.Close()
				return nil, err
			}
			core = &gosim.Lockstep{A: r, B: m}
		}
	}
	b := gosim.NewBoard(core, cfg.Board)
	return &Local{Board: b, rx: consumer{b: b}}, nil
}

// Watch implements drivers.Watcher from the board's ports.
func (l *Local) Watch(f func(cycle uint64, ev drivers.Events)) {
	l.Board.OnEvent(func(cycle uint64, ev uint8) { f(cycle, drivers.Events(ev)) })
}

// pinEvents are a cycle's event outputs.
func pinEvents(p *gosim.Pins) drivers.Events {
	return drivers.Events(p.EvCommit) | drivers.Events(p.EvMsgDone)<<1 | drivers.Events(p.EvVecDone)<<2
}

// Receive implements Receiver.
func (l *Local) Receive(msgs [][]byte, n int, limit uint64) ([]byte, error) {
	return l.rx.receive(msgs, n, limit)
}

// ReceiveAll implements Receiver: one Receive per batch.
func (l *Local) ReceiveAll(n int, batch func(k int) [][]byte, limit uint64, fn func(k int, entries []byte) error) error {
	for k := range n {
		msgs := batch(k)
		entries, err := l.Receive(msgs, len(msgs), limit)
		if ferr := fn(k, entries); ferr != nil {
			return ferr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Feed implements Receiver.
func (l *Local) Feed(msgs [][]byte, drain bool, limit uint64) error {
	return l.rx.feed(msgs, drain, limit)
}

// FeedAll implements Receiver: one Feed per batch.
func (l *Local) FeedAll(n int, batch func(k int) [][]byte, limit uint64) error {
	for k := range n {
		if err := l.Feed(batch(k), k == n-1, limit); err != nil {
			return err
		}
	}
	return nil
}

// consumer is the host's side of Receive and Feed: where it is in the LH ring and how the
// NIC is programmed, learnt from the registers on the first call.
type consumer struct {
	b                 *gosim.Board
	ready             bool
	entries           uint32
	sizePos, splitPos uint32
	maxMsg, ringUnits uint32 // MAX_MSG, and TAIL_SIZE in 16-byte units
	next              uint32 // next entry to take (free-running, like LH_CONS)
	buf               [hw.EntryBytes]byte
	// fed holds, for feed, the tail units each message fed and not yet committed reserved
	// (0 for an inline or too-long one), oldest first: its release follows its entry's.
	fed     []uint32
	fedHead int
}

// start learns the configuration. Afterwards entries committed is LH_PROD: the board counts
// every ev_commit pulse since reset, so the consumer never has to poll the register.
func (c *consumer) start() error {
	if c.ready {
		return nil
	}
	regs := []uint32{hw.RegParams, hw.RegSizePos, hw.RegSplitPos, hw.RegLHCons, hw.RegMaxMsg, hw.RegTailSize}
	vals := make([]uint32, len(regs))
	for i, r := range regs {
		v, err := c.b.ReadReg(r)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	c.entries = 1 << (vals[0] & 0xffff)
	c.sizePos, c.splitPos, c.next = vals[1], vals[2], vals[3]
	c.maxMsg, c.ringUnits = vals[4], vals[5]/16
	c.ready = true
	return nil
}

func (c *consumer) inject(msgs [][]byte) error {
	for _, m := range msgs {
		if err := c.b.Inject(m); err != nil {
			return err
		}
	}
	return nil
}

// receive is Receiver.Receive on the board.
func (c *consumer) receive(msgs [][]byte, n int, limit uint64) ([]byte, error) {
	b := c.b
	if err := c.inject(msgs); err != nil {
		return nil, err
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, n*hw.EntryBytes)
	start := b.Cycle()
	for got := 0; got < n; {
		if uint32(b.Count.Commits) == c.next {
			if b.Cycle()-start >= limit {
				return out, fmt.Errorf("device: %d of %d entries after %d cycles (%d messages still queued at the input)",
					got, n, limit, b.Pending())
			}
			// Nothing for the host to do until the next commit: run to it in one stretch.
			b.RunWhile(gosim.Until{Max: limit - (b.Cycle() - start), Commits: true, CommitTarget: b.Count.Commits + 1})
			continue
		}
		e := c.buf[:]
		if err := b.ReadBlock(hw.LHBase+hw.EntryBytes*(c.next%c.entries), e); err != nil {
			return out, err
		}
		b.Post(hw.RegLHRelease, 1)
		if e[hw.EntryFlagsOffset]&hw.FlagSplit != 0 {
			size := binary.LittleEndian.Uint32(e[c.sizePos:])
			b.Post(hw.RegTailRelease, hw.TailUnits(size, c.splitPos)*16)
		}
		out = append(out, e...)
		c.next++
		got++
	}
	return out, nil
}

// tailUnits is the tail-ring space, in 16-byte units, that msg reserves with LHS on, from its
// size field (bytes past a short message's end read as 0).
func (c *consumer) tailUnits(msg []byte) uint32 {
	var b0 [16]byte
	copy(b0[:], msg)
	return hw.Reserved(binary.LittleEndian.Uint32(b0[c.sizePos&12:]), true, c.splitPos, c.maxMsg, c.ringUnits)
}

// feed is Receiver.Feed on the board: the benchmark workload's loop, cut where the input runs
// dry. Nothing outside the board happens at a cut, so the cycles are those of one loop. The
// host releases each entry, unread, the cycle after it commits, and a split message's tail
// units with the next write (the board takes posted writes one a cycle, in order).
func (c *consumer) feed(msgs [][]byte, drain bool, limit uint64) error {
	b := c.b
	if err := c.start(); err != nil {
		return err
	}
	if err := c.inject(msgs); err != nil {
		return err
	}
	if c.fedHead > 1024 && 2*c.fedHead >= len(c.fed) {
		c.fed = c.fed[:copy(c.fed, c.fed[c.fedHead:])]
		c.fedHead = 0
	}
	for _, m := range msgs {
		c.fed = append(c.fed, c.tailUnits(m))
	}
	c.next += uint32(len(msgs)) // where LH_CONS will be once all of them are released
	start := b.Cycle()
	for b.Pending() > 0 || (drain && uint32(b.Count.Commits) != c.next) {
		if b.Cycle()-start >= limit {
			return fmt.Errorf("device: fed messages not in after %d cycles (%d still queued at the input, %d entries to commit)",
				limit, b.Pending(), c.next-uint32(b.Count.Commits))
		}
		// The host's releases follow the commits (gosim.Until.Release), so the whole batch
		// is one stretch.
		_, used := b.RunWhile(gosim.Until{Max: limit - (b.Cycle() - start), Input: true, Commits: drain,
			CommitTarget: b.Count.Commits + uint64(c.next-uint32(b.Count.Commits)), Release: true, Units: c.fed[c.fedHead:]})
		c.fedHead += used
	}
	return nil
}
