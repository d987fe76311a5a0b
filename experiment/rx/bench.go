// Package rx holds the single-node experiments on the receive path: demo, bench and search.
package rx

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/tlm"
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

// workloadSetup programs dev for the benchmark: LHS on and the largest tail ring (128 MiB),
// whose space the host releases after each split message's entry (device.Receiver.Feed), so
// a run of any length fits. The Feed of nothing runs the set-up and lets the device's
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
// cycle after it commits and a split message's tail units with its next write, and returns the cycles from the first message to the last commit.
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
	TLM      Speed  `json:"tlm"`     // transaction-level model (gosim/tlm); its clock stops while messages are built
	// CgoVsNative is cgo cycles/s over native cycles/s; GoModelVsCgo, PluginVsCgo and
	// TLMVsCgo are messages/s over cgo's.
	CgoVsNative  float64 `json:"cgo_vs_native"`
	GoModelVsCgo float64 `json:"gomodel_vs_cgo"`
	PluginVsCgo  float64 `json:"plugin_vs_cgo"`
	TLMVsCgo     float64 `json:"tlm_vs_cgo"`
}

// tlmBatch is how many messages BenchTLM builds at a time: enough that the model's clock
// starts and stops a dozen times a run, few enough that they stay in cache, as the device
// paths' batches of DefaultBatch do.
const tlmBatch = 8192

// BenchTLM times the workload on the transaction-level model (docs/tlm.md), repeats times on
// a fresh model each, keeping the fastest. Its clock runs only while the model takes
// messages: they are built tlmBatch at a time between, since building one takes several
// times longer than the model takes to receive it. The cycles are the device paths'
// (tlm.NIC.Feed is the same host as device.Receiver.Feed).
func BenchTLM(msgs, seed uint64, repeats int) (Speed, error) {
	cfg := tlm.DefaultConfig()
	cfg.TailSize = 0x0800_0000 // as workloadSetup programs the device
	return fastest(repeats, func() (Speed, error) {
		n, err := tlm.New(cfg)
		if err != nil {
			return Speed{}, err
		}
		// No collection while the clock runs: the garbage is the message builder's, not the
		// model's (a run makes 15 MB of it).
		runtime.GC()
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		rng := gosim.NewRand(seed)
		batch := make([][]byte, 0, tlmBatch)
		var cycles uint64
		var cpuT, wallT time.Duration
		for i := uint64(0); i < msgs; {
			batch = batch[:0]
			for ; i < msgs && len(batch) < tlmBatch; i++ {
				batch = append(batch, WorkloadMessage(i, rng))
			}
			cpu0, err := cputime.Process()
			if err != nil {
				return Speed{}, err
			}
			wall := time.Now()
			if cycles, err = n.Feed(0, batch); err != nil {
				return Speed{}, fmt.Errorf("bench: tlm: %w", err)
			}
			wallT += time.Since(wall)
			cpu1, err := cputime.Process()
			if err != nil {
				return Speed{}, err
			}
			cpuT += cpu1 - cpu0
		}
		s := max(cpuT.Seconds(), 1e-6) // rusage counts in microseconds
		return Speed{Cycles: cycles, Seconds: s, WallSeconds: wallT.Seconds(),
			CyclesPerS: float64(cycles) / s, MessagesPer: float64(msgs) / s}, nil
	})
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

// Bench runs the workload natively, through cgo, on the Go model, through the plugin bridge
// and on the transaction-level model, each repeats times (keeping the fastest), and checks
// that all took the same cycles.
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
	if r.TLM, err = BenchTLM(msgs, seed, repeats); err != nil {
		return r, err
	}
	if r.Native.Cycles != r.Cgo.Cycles || r.Cgo.Cycles != r.GoModel.Cycles || r.Cgo.Cycles != r.Plugin.Cycles ||
		r.Cgo.Cycles != r.TLM.Cycles {
		return r, fmt.Errorf("bench: cycle counts differ: native %d, cgo %d, Go model %d, plugin %d, tlm %d",
			r.Native.Cycles, r.Cgo.Cycles, r.GoModel.Cycles, r.Plugin.Cycles, r.TLM.Cycles)
	}
	r.CgoVsNative = r.Cgo.CyclesPerS / r.Native.CyclesPerS
	r.GoModelVsCgo = r.GoModel.MessagesPer / r.Cgo.MessagesPer
	r.PluginVsCgo = r.Plugin.MessagesPer / r.Cgo.MessagesPer
	r.TLMVsCgo = r.TLM.MessagesPer / r.Cgo.MessagesPer
	return r, nil
}
