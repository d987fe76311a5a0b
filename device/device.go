// Package device is lhsim's one device layer: the NIC's receive path, in this process or a plugin process.
package device

// device is lhsim's one device layer: the NIC's receive path as the host and the
// network see it, built from a Config. The receive path is the Verilated RTL, the Go golden
// model, or both compared every cycle (Config.Model); it runs on a board with the SO-DIMM and
// network-source models either in this process (the cgo bridge: Local) or in a child process
// (the plugin bridge: Remote, over package plugin's transport). Both implement Device, so
// every driver, test and experiment runs on either.
//
//	Open(cfg) ── cfg.Bridge == cgo ──▶ OpenLocal(cfg) ─▶ *Local (gosim.Board + RTL or model)
//	          └─ cfg.Bridge == plugin ▶ OpenRemote(cfg) ─▶ *Remote ══ socket ══▶ cmd/lhsim-plugin:
//	                                                       Serve() ─▶ OpenLocal(cfg) there

import (
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/plugin"
)

// Device is a receive path the host drives: the host bus (drivers.Bus), the network input,
// the clock, the large memory by backdoor, event pulses (drivers.Watcher) and the batch calls
// of Receiver.
type Device interface {
	drivers.Bus
	// Inject queues a message at the network input; it enters the NIC as the clock runs.
	Inject(msg []byte) error
	// Run advances the clock by n cycles.
	Run(n uint64) error
	// RunUntilIdle runs until every injected message has been taken by the NIC and the NIC is
	// quiet, or until limit cycles have passed (an error).
	RunUntilIdle(limit uint64) error
	// MemRead and MemWrite reach the large memory by backdoor, in zero time (for scoreboards
	// and experiment set-up; the host itself can only use VL and VS).
	MemRead(addr uint64, dst []byte) error
	MemWrite(addr uint64, src []byte) error
	// Close frees the device.
	Close() error
	drivers.Watcher
	Receiver
}

// Receiver takes a batch of messages in one call and runs until they are in: the
// transactions the plugin protocol is built around, so that a message costs a fraction of a
// round trip rather than several. Local runs them in this process; Remote sends each as one
// call.
//
// Both kinds of call keep their own consumer position, starting at LH_CONS on the first call:
// do not mix them with another consumer (drivers.Host.Consume) on the same device.
type Receiver interface {
	// Receive queues msgs at the network input, then runs until n more LH entries have been
	// committed, reading each by PIO over the host bus (16 word reads) and releasing it, with
	// its tail space, as the host would; limit bounds the cycles. It returns the n entries,
	// 64 bytes each, oldest first, or the ones it got and an error.
	Receive(msgs [][]byte, n int, limit uint64) ([]byte, error)
	// ReceiveAll receives n batches one after another (batch(k) gives batch k; each message
	// makes one entry) and hands each batch's entries to fn in order. The device ends in the
	// same state, cycle for cycle, as after one Receive per batch; Remote keeps the next
	// batch queued in the plugin while fn looks at the last, so that the RTL never waits for
	// a round trip. It stops at the first error, fn's or the device's; when fn fails, the
	// batch after the one fn was given has run too.
	ReceiveAll(n int, batch func(k int) [][]byte, limit uint64, fn func(k int, entries []byte) error) error
	// Feed queues msgs and runs, releasing every LH entry (unread) the cycle after it
	// commits and, with the next host write, a split message's tail units (from its size
	// field), until the input has taken every message; with drain, until every message fed
	// so far has committed too. This is the host of the benchmark workload: split into any
	// batches, the cycles are those of feeding every message at once.
	Feed(msgs [][]byte, drain bool, limit uint64) error
	// FeedAll feeds n batches, draining after the last, with the next batch queued ahead in
	// the plugin as ReceiveAll does.
	FeedAll(n int, batch func(k int) [][]byte, limit uint64) error
}

// Open builds the device cfg describes on the bridge it names. Closing it reports a lockstep
// disagreement or a crash, if there was one.
func Open(cfg Config) (Device, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Bridge == Plugin {
		r, err := OpenRemote(cfg, plugin.Options{})
		if err != nil {
			return nil, err // not a nil *Remote in a non-nil interface
		}
		return r, nil
	}
	l, err := OpenLocal(cfg)
	if err != nil {
		return nil, err
	}
	return l, nil
}
