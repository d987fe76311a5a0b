// Package experiment holds lhsim's experiments: each runs the receive path (RTL or Go model)
// on a documented workload and returns figures that the CLI prints as a table, JSON or plot.
package experiment

import (
	"fmt"
	"syscall"
	"time"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/nic"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/verilator"
)

// Workload runs the benchmark workload on a board: msgs messages back to back with LHS on, the
// host releasing each LH entry the cycle after it commits (the tail ring is large enough never
// to need releasing). It returns the cycles from the first message to the last commit. The
// native C++ loop runs the same cycles; a different count means the two disagree.
func Workload(b *gosim.Board, msgs, seed uint64) (uint64, error) {
	if err := b.WriteReg(hw.RegTailSize, hw.TailSizeMax); err != nil {
		return 0, err
	}
	if err := b.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn); err != nil {
		return 0, err
	}
	rng := gosim.NewRand(seed)
	for i := uint64(0); i < msgs; i++ {
		if err := b.Inject(gosim.WorkloadMessage(i, rng)); err != nil {
			return 0, err
		}
	}
	start := b.Cycle()
	commits := b.Count.Commits
	limit := start + 1000*msgs + 1000
	for b.Count.Commits-commits < msgs {
		if b.Cycle() > limit {
			return 0, fmt.Errorf("bench: %d of %d entries after %d cycles", b.Count.Commits-commits, msgs, b.Cycle()-start)
		}
		before := b.Count.Commits
		b.Step()
		for k := before; k < b.Count.Commits; k++ {
			b.Post(hw.RegLHRelease, 1)
		}
	}
	return b.Cycle() - start, nil
}

// Speed is one way of running the workload.
type Speed = gosim.Speed

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stopwatch starts timing; calling the result ends it.
func stopwatch() func(cycles, msgs uint64) Speed {
	wall, cpu := time.Now(), cpuTime()
	return func(cycles, msgs uint64) Speed {
		s := (cpuTime() - cpu).Seconds()
		return Speed{Cycles: cycles, Seconds: s, WallSeconds: time.Since(wall).Seconds(),
			CyclesPerS: float64(cycles) / s, MessagesPer: float64(msgs) / s}
	}
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
	stop := stopwatch()
	cycles, err := verilator.NativeWorkload(msgs, seed)
	return stop(cycles, msgs), err
}

// BenchBoard times the workload on a board with the given model ("rtl" or "go").
func BenchBoard(model string, msgs, seed uint64) (Speed, error) {
	b, err := nic.OpenBoard(nic.Config{Model: model})
	if err != nil {
		return Speed{}, err
	}
	defer b.Close()
	stop := stopwatch()
	cycles, err := Workload(b, msgs, seed)
	return stop(cycles, msgs), err
}

// fastest runs f repeats times and keeps the fastest run: the first run of a process pays for
// page faults and cold caches that are not the simulator's speed.
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
	if r.Cgo, err = fastest(repeats, func() (Speed, error) { return BenchBoard("rtl", msgs, seed) }); err != nil {
		return r, err
	}
	if r.GoModel, err = fastest(repeats, func() (Speed, error) { return BenchBoard("go", msgs, seed) }); err != nil {
		return r, err
	}
	if r.Plugin, err = plugin.BenchWorkload(msgs, seed, repeats, 0); err != nil {
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
