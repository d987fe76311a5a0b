package plugin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// WorkloadConfig is one run of the reading-host workload: the benchmark messages through
// LHS on, the host reading every entry by PIO (and checking it against its message) and
// releasing it with its tail space. BenchWorkload runs the benchmark's own host instead,
// which releases entries without reading them.
type WorkloadConfig struct {
	Messages int    // how many
	Seed     uint64 // the generator's seed
	// Batch is how many messages go to the device per Receive call: 1 is one call per
	// message. 0 uses no Receive at all: the host driver's calls (Inject, RunUntilIdle,
	// ReadEntry, Consume: several per message), as the drivers and the testbench use a
	// Device.
	Batch int
	// Stream sends the batches with ReceiveAll (one batch queued ahead in the plugin)
	// instead of one Receive call at a time. It changes the wall time only: cycles and
	// bytes are the same.
	Stream bool
}

// WorkloadResult is what a run measured. Cycles, Bytes and Digest depend only on the
// configuration (and the board's seed), never on the bridge.
type WorkloadResult struct {
	Messages uint64
	Cycles   uint64        // device cycles the run took
	Bytes    uint64        // message bytes received and checked
	Digest   uint64        // FNV-1a of every entry the host read, in order
	Elapsed  time.Duration // wall time of the run (device start and set-up excluded)
	Batches  uint64        // batches received (0 for Batch 0)
}

// MsgsPerS is messages per second of wall time.
func (r WorkloadResult) MsgsPerS() float64 { return float64(r.Messages) / r.Elapsed.Seconds() }

// CyclesPerS is simulated cycles per second of wall time.
func (r WorkloadResult) CyclesPerS() float64 { return float64(r.Cycles) / r.Elapsed.Seconds() }

// RunWorkload programs dev for LHS (default registers) and runs the workload on it,
// checking every entry against its message. dev is a *gosim.Board (the cgo bridge, from
// nic.Open), a *Client (the plugin bridge) or any Receiver; it should be fresh from reset.
func RunWorkload(dev drivers.Device, cfg WorkloadConfig) (WorkloadResult, error) {
	var res WorkloadResult
	h, err := drivers.NewHost(dev, drivers.Config{LHS: true})
	if err != nil {
		return res, err
	}
	msgs := gosim.WorkloadMessages(cfg.Messages, cfg.Seed)
	sum := fnv.New64a()
	check := func(i int, e []byte) error {
		m := msgs[i]
		if got := int(binary.LittleEndian.Uint16(e[hw.EntryLenOffset:])); got != len(m) {
			return fmt.Errorf("plugin: workload message %d: entry len %d, sent %d bytes", i, got, len(m))
		}
		head := m[:min(len(m), hw.InlineMax)]
		if len(m) > hw.InlineMax {
			head = m[:h.Config().SplitPos]
		}
		if !bytes.Equal(e[:len(head)], head) {
			return fmt.Errorf("plugin: workload message %d: entry head % x, sent % x", i, e[:len(head)], head)
		}
		sum.Write(e)
		res.Bytes += uint64(len(m))
		return nil
	}
	start, t0 := dev.Cycle(), time.Now()
	if cfg.Batch <= 0 {
		err = runByCalls(dev, h, msgs, check)
	} else {
		err = runBatched(dev, msgs, cfg, check, &res.Batches)
	}
	res.Elapsed = time.Since(t0)
	res.Cycles = dev.Cycle() - start
	res.Messages = uint64(len(msgs))
	res.Digest = sum.Sum64()
	return res, err
}

// receiveLimit bounds one batch: far beyond what any batch of the workload needs.
const receiveLimit = 10_000_000

func runBatched(dev drivers.Device, msgs [][]byte, cfg WorkloadConfig, check func(int, []byte) error, batches *uint64) error {
	rx, ok := dev.(Receiver)
	if !ok {
		b, isBoard := dev.(*gosim.Board)
		if !isBoard {
			return fmt.Errorf("plugin: %T can neither Receive nor be wrapped (want a *gosim.Board or a Receiver)", dev)
		}
		rx = NewLocal(b)
	}
	var split [][][]byte
	for i := 0; i < len(msgs); i += cfg.Batch {
		split = append(split, msgs[i:min(i+cfg.Batch, len(msgs))])
	}
	take := func(k int, entries []byte) error {
		*batches++
		for i := 0; i*hw.EntryBytes < len(entries); i++ {
			if err := check(k*cfg.Batch+i, entries[i*hw.EntryBytes:(i+1)*hw.EntryBytes]); err != nil {
				return err
			}
		}
		return nil
	}
	if cfg.Stream {
		return rx.ReceiveAll(len(split), func(k int) [][]byte { return split[k] }, receiveLimit, take)
	}
	for k, chunk := range split {
		entries, err := rx.Receive(chunk, len(chunk), receiveLimit)
		if cerr := take(k, entries); cerr != nil {
			return cerr
		}
		if err != nil {
			return fmt.Errorf("plugin: workload batch at message %d: %w", k*cfg.Batch, err)
		}
	}
	return nil
}

func runByCalls(dev drivers.Device, h *drivers.Host, msgs [][]byte, check func(int, []byte) error) error {
	first, err := h.Produced()
	if err != nil {
		return err
	}
	for i, m := range msgs {
		if err := dev.Inject(m); err != nil {
			return err
		}
		if err := dev.RunUntilIdle(receiveLimit); err != nil {
			return err
		}
		seq := first + uint32(i)
		e, err := h.ReadEntry(seq)
		if err != nil {
			return err
		}
		if err := check(i, e.Raw[:]); err != nil {
			return err
		}
		if err := h.Consume(seq); err != nil {
			return err
		}
	}
	return nil
}
