package plugin

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Receiver is a device that takes a batch of messages in one call and runs until they are
// in: the transactions the plugin protocol is built around, so that a message costs a
// fraction of a round trip rather than several. The plugin client implements it with calls;
// Local implements it in this process, for the cgo bridge and inside the plugin.
//
// Both kinds of call keep their own consumer position, starting at LH_CONS on the first call:
// do not mix them with another consumer (drivers.Host.Consume) on the same device.
type Receiver interface {
	drivers.Device
	// Receive queues msgs at the network input, then runs until n more LH entries have been
	// committed, reading each by PIO over the host bus (16 word reads) and releasing it, with
	// its tail space, as the host would; limit bounds the cycles. It returns the n entries,
	// 64 bytes each, oldest first, or the ones it got and an error.
	Receive(msgs [][]byte, n int, limit uint64) ([]byte, error)
	// ReceiveAll receives n batches one after another (batch(k) gives batch k; each message
	// makes one entry) and hands each batch's entries to fn in order. The device ends in the
	// same state, cycle for cycle, as after one Receive per batch; the plugin client keeps
	// the next batch queued in the plugin while fn looks at the last, so that the RTL never
	// waits for a round trip. It stops at the first error, fn's or the device's; when fn
	// fails, the batch after the one fn was given has run too.
	ReceiveAll(n int, batch func(k int) [][]byte, limit uint64, fn func(k int, entries []byte) error) error
	// Feed queues msgs and runs, releasing every LH entry (unread) the cycle after it
	// commits, until the input has taken every message; with drain, until every message fed
	// so far has committed too. This is the host of the benchmark workload
	// (experiment.Workload): split into any batches, the cycles are those of feeding every
	// message at once.
	Feed(msgs [][]byte, drain bool, limit uint64) error
	// FeedAll feeds n batches, draining after the last, with the next batch queued ahead in
	// the plugin as ReceiveAll does.
	FeedAll(n int, batch func(k int) [][]byte, limit uint64) error
}

// Local is a Board in this process with Receiver's calls: the cgo bridge's side.
type Local struct {
	*gosim.Board
	rx consumer
}

// NewLocal wraps b.
func NewLocal(b *gosim.Board) *Local { return &Local{Board: b, rx: consumer{b: b}} }

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
	next              uint32 // next entry to take (free-running, like LH_CONS)
	buf               [hw.EntryBytes]byte
}

// start learns the configuration. Afterwards entries committed is LH_PROD: the board counts
// every ev_commit pulse since reset, so the consumer never has to poll the register.
func (c *consumer) start() error {
	if c.ready {
		return nil
	}
	regs := []uint32{hw.RegParams, hw.RegSizePos, hw.RegSplitPos, hw.RegLHCons}
	vals := make([]uint32, len(regs))
	for i, r := range regs {
		v, err := c.b.ReadReg(r)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	c.entries = 1 << (vals[0] >> hw.ParamsLog2EntriesShift & hw.ParamsLog2EntriesMask)
	c.sizePos, c.splitPos, c.next = vals[1], vals[2], vals[3]
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
				return out, fmt.Errorf("plugin: %d of %d entries after %d cycles (%d messages still queued at the input)",
					got, n, limit, b.Pending())
			}
			b.Step()
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

// feed is Receiver.Feed on the board: experiment.Workload's loop, cut where the input runs
// dry. Nothing outside the board happens at a cut, so the cycles are those of one loop.
func (c *consumer) feed(msgs [][]byte, drain bool, limit uint64) error {
	b := c.b
	if err := c.start(); err != nil {
		return err
	}
	if err := c.inject(msgs); err != nil {
		return err
	}
	c.next += uint32(len(msgs)) // where LH_CONS will be once all of them are released
	start := b.Cycle()
	for b.Pending() > 0 || (drain && uint32(b.Count.Commits) != c.next) {
		if b.Cycle()-start >= limit {
			return fmt.Errorf("plugin: fed messages not in after %d cycles (%d still queued at the input, %d entries to commit)",
				limit, b.Pending(), c.next-uint32(b.Count.Commits))
		}
		before := b.Count.Commits
		b.Step()
		for k := before; k < b.Count.Commits; k++ {
			b.Post(hw.RegLHRelease, 1)
		}
	}
	return nil
}
