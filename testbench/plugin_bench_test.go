package testbench

import (
	"fmt"
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// openRTL opens the Verilated RTL on one bridge, closed when the benchmark ends.
func openRTL(b *testing.B, bridge device.Bridge) device.Device {
	b.Helper()
	dev, err := device.Open(device.Config{Model: device.RTL, Bridge: bridge, Board: gosim.BoardConfig{Seed: 1}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := dev.Close(); err != nil {
			b.Error(err)
		}
	})
	return dev
}

// BenchmarkPluginRoundTrip is the cost of one call: a register read (three bus cycles) on
// each bridge, a call with nothing to do on the plugin's call channel, and one on go-plugin's
// own net/rpc connection (the build check), which the channel replaces for device calls.
func BenchmarkPluginRoundTrip(b *testing.B) {
	for _, bridge := range []device.Bridge{device.Cgo, device.Plugin} {
		b.Run(string(bridge)+"/ReadReg", func(b *testing.B) {
			dev := openRTL(b, bridge)
			for b.Loop() {
				if _, err := dev.ReadReg(hw.RegID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("plugin/empty", func(b *testing.B) {
		dev := openRTL(b, device.Plugin).(*device.Remote)
		for b.Loop() {
			if err := dev.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plugin/go-plugin-netrpc", func(b *testing.B) {
		dev := openRTL(b, device.Plugin).(*device.Remote)
		for b.Loop() {
			if err := dev.Conn().CheckBuild(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPluginVsCgo runs the benchmark workload (20,000 messages of 16..256 bytes, LHS
// on, the host releasing every entry; rx.Workload) on the cgo bridge and on the
// plugin bridge in the same iteration, each the fastest of three runs on fresh devices (the
// plugin's in one process, as the cgo bridge's share the harness), and reports both rates per
// CPU second (the plugin's counts both processes) and the plugin's share of the cgo
// bridge's. Sub-benchmarks vary the messages per call; batch1 is one call per message.
func BenchmarkPluginVsCgo(b *testing.B) {
	const msgs, seed, repeats = 20000, 1, 3
	for _, batch := range []int{rx.DefaultBatch, 256, 16, 1} {
		b.Run(fmt.Sprint("batch", batch), func(b *testing.B) {
			var cgo, plug rx.Speed
			for b.Loop() {
				var c rx.Speed
				for r := 0; r < repeats; r++ {
					s, err := rx.BenchDevice(device.Config{Model: device.RTL}, msgs, seed, 1, msgs)
					if err != nil {
						b.Fatal(err)
					}
					if r == 0 || s.Seconds < c.Seconds {
						c = s
					}
				}
				p, err := rx.BenchDevice(device.Config{Model: device.RTL, Bridge: device.Plugin}, msgs, seed, repeats, batch)
				if err != nil {
					b.Fatal(err)
				}
				if p.Cycles != c.Cycles {
					b.Fatalf("plugin took %d cycles, cgo %d", p.Cycles, c.Cycles)
				}
				cgo.Cycles += c.Cycles
				cgo.Seconds += c.Seconds
				cgo.WallSeconds += c.WallSeconds
				plug.Cycles += p.Cycles
				plug.Seconds += p.Seconds
				plug.WallSeconds += p.WallSeconds
			}
			n := float64(msgs * b.N)
			b.ReportMetric(n/cgo.Seconds, "cgo-msgs/cpu-s")
			b.ReportMetric(n/plug.Seconds, "plugin-msgs/cpu-s")
			b.ReportMetric(float64(cgo.Cycles)/cgo.Seconds, "cgo-cycles/cpu-s")
			b.ReportMetric(float64(plug.Cycles)/plug.Seconds, "plugin-cycles/cpu-s")
			b.ReportMetric(cgo.Seconds/plug.Seconds, "plugin/cgo-cpu")
			b.ReportMetric(cgo.WallSeconds/plug.WallSeconds, "plugin/cgo-wall")
		})
	}
}

// BenchmarkPluginReadingHost runs b.N messages of the workload with a host that reads every
// entry by PIO and checks it (rx.RunWorkload) on both bridges: through the host driver's
// own calls (several per message), one Receive call per message, and batches of 256 with one
// queued ahead. Rates are per second of wall time.
func BenchmarkPluginReadingHost(b *testing.B) {
	for _, mode := range []struct {
		name string
		cfg  rx.WorkloadConfig
	}{
		{"calls", rx.WorkloadConfig{Batch: 0}},
		{"batch1", rx.WorkloadConfig{Batch: 1}},
		{"stream256", rx.WorkloadConfig{Batch: 256, Stream: true}},
	} {
		for _, bridge := range []device.Bridge{device.Cgo, device.Plugin} {
			b.Run(mode.name+"/"+string(bridge), func(b *testing.B) {
				dev := openRTL(b, bridge)
				cfg := mode.cfg
				cfg.Messages, cfg.Seed = b.N, 1
				b.ResetTimer()
				res, err := rx.RunWorkload(dev, cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(res.MsgsPerS(), "msgs/s")
				b.ReportMetric(res.CyclesPerS(), "cycles/s")
			})
		}
	}
}
