package rx

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// WorkloadConfig is one run of the reading-host workload: the benchmark messages through
// LHS on, the host reading every entry by PIO (and checking it against its message) and
// releasing it with its tail space. The benchmark (Workload, BenchDevice) runs a host that
// releases entries without reading them instead.
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
// checking every entry against its message. dev should be fresh from reset.
func RunWorkload(dev device.Device, cfg WorkloadConfig) (WorkloadResult, error) {
	var res WorkloadResult
	h, err := drivers.NewHost(dev, drivers.Config{LHS: true})
	if err != nil {
		return res, err
	}
	msgs := WorkloadMessages(cfg.Messages, cfg.Seed)
	sum := fnv.New64a()
	check := func(i int, e []byte) error {
		m := msgs[i]
		if got := int(binary.LittleEndian.Uint16(e[hw.EntryLenOffset:])); got != len(m) {
			return fmt.Errorf("workload: message %d: entry len %d, sent %d bytes", i, got, len(m))
		}
		head := m[:min(len(m), hw.InlineMax)]
		if len(m) > hw.InlineMax {
			head = m[:h.Config().SplitPos]
		}
		if !bytes.Equal(e[:len(head)], head) {
			return fmt.Errorf("workload: message %d: entry head % x, sent % x", i, e[:len(head)], head)
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

func runBatched(rx device.Receiver, msgs [][]byte, cfg WorkloadConfig, check func(int, []byte) error, batches *uint64) error {
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
			return fmt.Errorf("workload: batch at message %d: %w", k*cfg.Batch, err)
		}
	}
	return nil
}

func runByCalls(dev device.Device, h *drivers.Host, msgs [][]byte, check func(int, []byte) error) error {
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

// WorkloadMessage is message i of the benchmark workload: a 16-byte envelope {source i%64,
// tag i, communicator 0, size} and payload bytes (i + j) & 0xff, its size 16..256 drawn from
// rng. verilator/lhs_top_bridge.cpp builds the same messages for the native C++ loop.
func WorkloadMessage(i uint64, rng *gosim.Rand) []byte {
	size := 16 + uint32(rng.Uint64()%241)
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b[0:], uint32(i%64))
	binary.LittleEndian.PutUint32(b[4:], uint32(i))
	binary.LittleEndian.PutUint32(b[12:], size)
	for j := uint32(16); j < size; j++ {
		b[j] = byte(uint64(j) + i)
	}
	return b
}

// WorkloadMessages returns the first n messages of the workload for seed.
func WorkloadMessages(n int, seed uint64) [][]byte {
	rng := gosim.NewRand(seed)
	out := make([][]byte, n)
	for i := range out {
		out[i] = WorkloadMessage(uint64(i), rng)
	}
	return out
}
