// Package experiment holds lhsim's experiments: each runs the receive path (RTL or Go model)
// on a documented workload and returns figures that the CLI prints as a table, JSON or plot.
package experiment

import (
	"fmt"
	"time"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/verilator"
)

// DefaultBatch is how many messages the benchmark hands the device per call: one LH
// buffer's worth.
const DefaultBatch = 1024

// Speed is how fast one run of the workload went. Rates are per CPU second of the processes
// doing the work (user and system time, every thread): unlike wall time, that does not change
// when other programs load the machine.
type Speed struct {
	Cycles      uint64  `json:"cycles"`
	Seconds     float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
	CyclesPerS  float64 `json:"cycles_per_s"`
	MessagesPer float64 `json:"msgs_per_s"`
}

// workloadSetup programs dev for the benchmark: LHS on and a tail ring (128 MiB) large
// enough never to need releasing. The Feed of nothing runs the set-up and lets the device's
// consumer read the registers it needs before the clock starts.
func workloadSetup(dev device.Device) error {
	if err := dev.WriteReg(hw.RegTailSize, 0x0800_0000); err != nil {
		return err
	}
	if err := dev.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn); err != nil {
		return err
	}
	return dev.Feed(nil, false, 1)
}

// workloadRun feeds msgs workload messages in batches, the host releasing each LH entry the
// cycle after it commits, and returns the cycles from the first message to the last commit.
// The native C++ loop runs the same cycles; a different count means the two disagree.
func workloadRun(dev device.Device, msgs, seed uint64, batch int) (uint64, error) {
	start := dev.Cycle()
	rng := gosim.NewRand(seed)
	var i uint64
	n := int((msgs + uint64(batch) - 1) / uint64(batch))
	err := dev.FeedAll(n, func(int) [][]byte {
		out := make([][]byte, 0, batch)
		for ; i < msgs && len(out) < batch; i++ {
			out = append(out, WorkloadMessage(i, rng))
		}
		return out
	}, 1000*uint64(batch)+1000)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	return dev.Cycle() - start, nil
}

// Workload runs the benchmark workload on dev, fresh from reset: msgs messages back to back
// with LHS on, the host releasing each LH entry the cycle after it commits. It returns the
// cycles from the first message to the last commit.
func Workload(dev device.Device, msgs, seed uint64) (uint64, error) {
	if err := workloadSetup(dev); err != nil {
		return 0, err
	}
	return workloadRun(dev, msgs, seed, DefaultBatch)
}

// cpu is the CPU time this process and, for a plugin device, its process have used.
func cpu(dev device.Device) (time.Duration, error) {
	self, err := cputime.Process()
	if err != nil {
		return 0, err
	}
	if r, ok := dev.(*device.Remote); ok {
		peer, err := r.CPU()
		return self + peer, err
	}
	return self, nil
}

// benchOn times one run of the workload on dev: set-up and start-up excluded.
func benchOn(dev device.Device, msgs, seed uint64, batch int) (Speed, error) {
	if err := workloadSetup(dev); err != nil {
		return Speed{}, err
	}
	cpu0, err := cpu(dev)
	if err != nil {
		return Speed{}, err
	}
	wall := time.Now()
	cycles, err := workloadRun(dev, msgs, seed, batch)
	if err != nil {
		return Speed{}, err
	}
	wallS := time.Since(wall).Seconds()
	cpu1, err := cpu(dev)
	if err != nil {
		return Speed{}, err
	}
	s := (cpu1 - cpu0).Seconds()
	return Speed{Cycles: cycles, Seconds: s, WallSeconds: wallS,
		CyclesPerS: float64(cycles) / s, MessagesPer: float64(msgs) / s}, nil
}

// BenchDevice times the workload on the device cfg describes, repeats times on a fresh
// device each (a plugin device is rebuilt in the same, warm, process: Remote.Reopen, as the
// cgo bridge's runs share the harness's), and keeps the fastest: the first run pays for page
// faults and cold caches that are not the simulator's speed. Messages go batch at a time (0:
// DefaultBatch); on the plugin bridge one batch is queued ahead (FeedAll), and the cycles are
// the same on every bridge. CPU seconds count the plugin process's too.
func BenchDevice(cfg device.Config, msgs, seed uint64, repeats, batch int) (Speed, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	dev, err := device.Open(cfg)
	if err != nil {
		return Speed{}, err
	}
	var best Speed
	for r := 0; r < max(1, repeats) && err == nil; r++ {
		if r > 0 {
			if dev, err = reopen(dev, cfg); err != nil {
				return best, err
			}
		}
		var s Speed
		if s, err = benchOn(dev, msgs, seed, batch); err == nil && (r == 0 || s.Seconds < best.Seconds) {
			best = s
		}
	}
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	return best, err
}

// reopen gives a fresh device in place of dev.
func reopen(dev device.Device, cfg device.Config) (device.Device, error) {
	if r, ok := dev.(*device.Remote); ok {
		return r, r.Reopen()
	}
	if err := dev.Close(); err != nil {
		return nil, err
	}
	return device.Open(cfg)
}

// BenchResult compares the ways of running the same workload.
type BenchResult struct {
	Messages uint64 `json:"messages"`
	Seed     uint64 `json:"seed"`
	Native   Speed  `json:"native"`  // C++ loop over the Verilated model
	Cgo      Speed  `json:"cgo"`     // Go board, Verilated model through cgo
	GoModel  Speed  `json:"gomodel"` // Go board, golden model
	Plugin   Speed  `json:"plugin"`  // board and RTL in the plugin process, batches of 1024 messages a call
	// CgoVsNative is cgo cycles/s over native cycles/s; GoModelVsCgo and PluginVsCgo are
	// messages/s over cgo's.
	CgoVsNative  float64 `json:"cgo_vs_native"`
	GoModelVsCgo float64 `json:"gomodel_vs_cgo"`
	PluginVsCgo  float64 `json:"plugin_vs_cgo"`
}

// BenchNative times the workload in the C++ loop.
func BenchNative(msgs, seed uint64) (Speed, error) {
	cpu0, err := cputime.Process()
	if err != nil {
		return Speed{}, err
	}
	wall := time.Now()
	cycles, err := verilator.NativeWorkload(msgs, seed)
	if err != nil {
		return Speed{}, err
	}
	wallS := time.Since(wall).Seconds()
	cpu1, err := cputime.Process()
	s := (cpu1 - cpu0).Seconds()
	return Speed{Cycles: cycles, Seconds: s, WallSeconds: wallS,
		CyclesPerS: float64(cycles) / s, MessagesPer: float64(msgs) / s}, err
}

// fastest runs f repeats times and keeps the fastest run.
func fastest(repeats int, f func() (Speed, error)) (Speed, error) {
	var best Speed
	for i := 0; i < max(1, repeats); i++ {
		s, err := f()
		if err != nil {
			return s, err
		}
		if i == 0 || s.Seconds < best.Seconds {
			best = s
		}
	}
	return best, nil
}

// Bench runs the workload natively, through cgo, on the Go model and through the plugin
// bridge, each repeats times (keeping the fastest), and checks that all took the same cycles.
func Bench(msgs, seed uint64, repeats int) (BenchResult, error) {
	r := BenchResult{Messages: msgs, Seed: seed}
	var err error
	if r.Native, err = fastest(repeats, func() (Speed, error) { return BenchNative(msgs, seed) }); err != nil {
		return r, err
	}
	if r.Cgo, err = BenchDevice(device.Config{Model: device.RTL, Bridge: device.Cgo}, msgs, seed, repeats, 0); err != nil {
		return r, err
	}
	if r.GoModel, err = BenchDevice(device.Config{Model: device.Go, Bridge: device.Cgo}, msgs, seed, repeats, 0); err != nil {
		return r, err
	}
	if r.Plugin, err = BenchDevice(device.Config{Model: device.RTL, Bridge: device.Plugin}, msgs, seed, repeats, 0); err != nil {
		return r, err
	}
	if r.Native.Cycles != r.Cgo.Cycles || r.Cgo.Cycles != r.GoModel.Cycles || r.Cgo.Cycles != r.Plugin.Cycles {
		return r, fmt.Errorf("bench: cycle counts differ: native %d, cgo %d, Go model %d, plugin %d",
			r.Native.Cycles, r.Cgo.Cycles, r.GoModel.Cycles, r.Plugin.Cycles)
	}
	r.CgoVsNative = r.Cgo.CyclesPerS / r.Native.CyclesPerS
	r.GoModelVsCgo = r.GoModel.MessagesPer / r.Cgo.MessagesPer
	r.PluginVsCgo = r.Plugin.MessagesPer / r.Cgo.MessagesPer
	return r, nil
}
