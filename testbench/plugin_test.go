package testbench

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// bridgeRun is what one bridge produced for the same work: every byte the host saw and the
// cycle at every step, so that two runs compare bit for bit.
type bridgeRun struct {
	cycles []uint64
	digest uint64
	bytes  int
	work   rx.WorkloadResult
}

// runOnBridge drives the same work through the host driver (random sizes with tails in large
// memory, VL fetches, out-of-order consumption, random idle input) and then the batched
// reading-host workload, on one bridge.
func runOnBridge(t *testing.T, bridge device.Bridge) bridgeRun {
	t.Helper()
	board := gosim.BoardConfig{Seed: 7, IdlePercent: 20}
	cfg := config(t, board)
	cfg.Bridge = bridge
	dev, err := device.Open(cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, dev.Close(), "closing the %s device", bridge) }()
	h, err := drivers.NewHost(dev, drivers.Config{LHS: true, SplitPos: 32, TailSize: 1 << 16})
	require.NoError(t, err)

	var r bridgeRun
	sum := fnv.New64a()
	rng := gosim.NewRand(11)
	msgs := randomMessages(rng, 120, 12, 3000)
	for _, m := range msgs {
		require.NoError(t, dev.Inject(m))
	}
	var held []uint32
	for next := uint32(0); next < uint32(len(msgs)) || len(held) > 0; {
		require.NoError(t, dev.Run(uint64(rng.Intn(40))))
		r.cycles = append(r.cycles, dev.Cycle())
		prod, err := h.Produced()
		require.NoError(t, err)
		for ; next < prod; next++ {
			e, err := h.ReadEntry(next)
			require.NoError(t, err)
			sum.Write(e.Raw[:])
			if e.Flags&hw.FlagTooLong == 0 {
				m, err := h.Message(e)
				require.NoError(t, err)
				sum.Write(m)
				r.bytes += len(m)
			}
			held = append(held, next)
			r.cycles = append(r.cycles, dev.Cycle())
		}
		// Consume in a shuffled order: the driver releases the oldest run.
		for len(held) > 0 && rng.Intn(3) > 0 {
			i := rng.Intn(len(held))
			require.NoError(t, h.Consume(held[i]))
			held = append(held[:i], held[i+1:]...)
		}
		require.Less(t, dev.Cycle(), uint64(5_000_000), "no progress")
	}
	var tail [8]byte
	binary.LittleEndian.PutUint64(tail[:], dev.Cycle())
	sum.Write(tail[:])
	r.digest = sum.Sum64()

	r.work, err = rx.RunWorkload(dev, rx.WorkloadConfig{Messages: 3000, Seed: 3, Batch: 64, Stream: true})
	require.NoError(t, err)
	r.work.Elapsed = 0
	return r
}

// TestBridgesBitIdentical runs the same work on the cgo bridge and on the plugin bridge and
// requires the same bytes at the same cycles: the bridge changes where the RTL runs, never
// what it does.
func TestBridgesBitIdentical(t *testing.T) {
	cgo := runOnBridge(t, device.Cgo)
	plug := runOnBridge(t, device.Plugin)
	require.Equal(t, cgo.cycles, plug.cycles, "cycle at every step")
	require.Equal(t, cgo.bytes, plug.bytes)
	require.Equal(t, cgo.digest, plug.digest, "every entry and message byte, and the final cycle")
	require.Equal(t, cgo.work, plug.work, "the batched workload: cycles, bytes and entry digest")
	require.Equal(t, uint64(3000), plug.work.Messages)
	t.Logf("%d steps, %d message bytes, final cycle %d; workload %d cycles, digest %#x",
		len(cgo.cycles), cgo.bytes, cgo.cycles[len(cgo.cycles)-1], cgo.work.Cycles, cgo.work.Digest)
}

// TestPluginBenchWorkloadCycles: the plugin's benchmark run, cut into batches and sent over
// RPC, takes exactly the cycles of the cgo board's uncut loop (rx.Workload), for
// every batch size, on a first device and on a second one in the same process.
func TestPluginBenchWorkloadCycles(t *testing.T) {
	const msgs, seed = 3000, 5
	want, err := rx.BenchDevice(device.Config{Model: device.RTL}, msgs, seed, 1, msgs)
	require.NoError(t, err)
	for _, batch := range []int{1, 7, 256, msgs} {
		t.Run(fmt.Sprint("batch", batch), func(t *testing.T) {
			if batch == 1 && testing.Short() {
				t.Skip("one call per message is slow")
			}
			got, err := rx.BenchDevice(device.Config{Model: device.RTL, Bridge: device.Plugin}, msgs, seed, 2, batch)
			require.NoError(t, err)
			require.Equal(t, want.Cycles, got.Cycles)
		})
	}
}

// TestPluginErrorsMatchCgo: a call the board refuses is refused the same way on both
// bridges, word for word, whether the client would have posted it or not (and one the board
// takes is taken on both); a sentinel error (gosim.ErrNotIdle) stays testable with errors.Is
// across the process boundary.
func TestPluginErrorsMatchCgo(t *testing.T) {
	calls := []struct {
		name string
		do   func(dev device.Device) error
	}{
		{"WriteReg unaligned", func(d device.Device) error { return d.WriteReg(0x06, 1) }},
		{"WriteReg out of range", func(d device.Device) error { return d.WriteReg(0x100000, 1) }},
		{"WriteBlock not words", func(d device.Device) error { return d.WriteBlock(hw.WriteWindowBase, make([]byte, 6)) }},
		{"WriteBlock past the end", func(d device.Device) error { return d.WriteBlock(0xffffc, make([]byte, 8)) }},
		{"ReadBlock not words", func(d device.Device) error { return d.ReadBlock(hw.LHBase, make([]byte, 3)) }},
		{"ReadReg unaligned", func(d device.Device) error { _, err := d.ReadReg(0x02); return err }},
		{"Inject empty", func(d device.Device) error { return d.Inject(nil) }},
		{"MemRead past the end", func(d device.Device) error { return d.MemRead(hw.MemBytes-8, make([]byte, 16)) }},
		{"RunUntilIdle disabled", func(d device.Device) error {
			if err := d.Inject(make([]byte, 100)); err != nil { // the receive path is not enabled
				return err
			}
			return d.RunUntilIdle(500)
		}},
	}
	got := map[string][]string{}
	for _, bridge := range []device.Bridge{device.Cgo, device.Plugin} {
		dev, err := device.Open(device.Config{Model: device.RTL, Bridge: bridge})
		require.NoError(t, err)
		for _, c := range calls {
			err := c.do(dev)
			got[c.name] = append(got[c.name], fmt.Sprint(err))
			if c.name == "RunUntilIdle disabled" {
				require.ErrorIs(t, err, gosim.ErrNotIdle, string(bridge))
			}
		}
		require.NoError(t, dev.Close())
	}
	refused := 0
	for _, c := range calls {
		require.Equal(t, got[c.name][0], got[c.name][1], c.name)
		if got[c.name][0] != "<nil>" {
			refused++
		}
	}
	require.GreaterOrEqual(t, refused, len(calls)-1, "the board takes a block write that runs past the end: %v", got)
}

// TestPluginWatchSeesEvents: the plugin device's Watch reports the cycles of every event
// pulse, as the in-process board's ports show them, so that event watchers (mpi.HostModel)
// time the same on both bridges.
func TestPluginWatchSeesEvents(t *testing.T) {
	type pulse struct {
		cycle                    uint64
		commit, msgDone, vecDone uint8
	}
	record := func(bridge device.Bridge) []pulse {
		dev, err := device.Open(device.Config{Model: device.RTL, Bridge: bridge, Board: gosim.BoardConfig{Seed: 2}})
		require.NoError(t, err)
		defer func() { require.NoError(t, dev.Close()) }()
		var got []pulse
		if l, ok := dev.(*device.Local); ok { // the ports themselves
			l.OnCycle(func(c uint64, p *gosim.Pins) {
				if p.EvCommit|p.EvMsgDone|p.EvVecDone != 0 {
					got = append(got, pulse{c, p.EvCommit, p.EvMsgDone, p.EvVecDone})
				}
			})
		} else {
			dev.Watch(func(c uint64, ev drivers.Events) {
				bit := func(e drivers.Events) uint8 {
					if ev&e != 0 {
						return 1
					}
					return 0
				}
				got = append(got, pulse{c, bit(drivers.EvCommit), bit(drivers.EvMsgDone), bit(drivers.EvVecDone)})
			})
		}
		h, err := drivers.NewHost(dev, drivers.Config{LHS: true})
		require.NoError(t, err)
		for i, m := range rx.WorkloadMessages(40, 9) {
			require.NoError(t, dev.Inject(m))
			if i%8 == 7 {
				require.NoError(t, dev.Run(30))
			}
		}
		require.NoError(t, dev.RunUntilIdle(100_000))
		for seq := uint32(0); seq < 40; seq += 5 {
			e, err := h.ReadEntry(seq)
			require.NoError(t, err)
			_, err = h.Message(e) // a VL for split ones: ev_vec_done
			require.NoError(t, err)
		}
		return got
	}
	cgo, plug := record(device.Cgo), record(device.Plugin)
	require.Equal(t, cgo, plug)
	var commits, vecs int
	for _, p := range cgo {
		commits += int(p.commit)
		vecs += int(p.vecDone)
	}
	require.Equal(t, 40, commits)
	require.Positive(t, vecs)
}
