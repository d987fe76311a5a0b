package plugin

import (
	"fmt"
	"syscall"
	"time"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Speed is how fast one run of the workload went.
type Speed = gosim.Speed

// DefaultBatch is how many messages BenchWorkload sends per call: one LH buffer's worth.
const DefaultBatch = 1024

// BenchWorkload times the benchmark workload (experiment.Workload: msgs messages back to
// back, LHS on, the host releasing each entry the cycle after it commits) on the Verilated
// RTL in a plugin process, repeats times on a fresh device each (Client.Reopen: the same,
// warm, process, as the cgo bridge's runs share the harness's) and keeps the fastest, as
// experiment.Bench does. The harness makes the messages and sends them batch at a time (0:
// DefaultBatch), one batch queued ahead (FeedAll); the cycles are the cgo bridge's and the
// native loop's. CPU seconds are the harness's and the plugin process's together, for the
// run only (start-up excluded), so that the rates compare with experiment.BenchBoard's.
func BenchWorkload(msgs, seed uint64, repeats, batch int) (Speed, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	c, err := Open(Spec{Model: "rtl"}, Options{Label: "bench"})
	if err != nil {
		return Speed{}, err
	}
	var best Speed
	for r := 0; r < max(1, repeats) && err == nil; r++ {
		if r > 0 {
			if err = c.Reopen(); err != nil {
				break
			}
		}
		var s Speed
		if s, err = benchOn(c, msgs, seed, batch); err == nil && (r == 0 || s.Seconds < best.Seconds) {
			best = s
		}
	}
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return best, err
}

func benchOn(c *Client, msgs, seed uint64, batch int) (Speed, error) {
	if err := c.WriteReg(hw.RegTailSize, hw.TailSizeMax); err != nil {
		return Speed{}, err
	}
	if err := c.WriteReg(hw.RegCtrl, hw.CtrlEnable|hw.CtrlLHSOn); err != nil {
		return Speed{}, err
	}
	// Run the set-up, and let the consumer read the registers it needs, before the clock
	// starts.
	if err := c.Feed(nil, false, 1); err != nil {
		return Speed{}, err
	}
	plugin0, err := c.CPU()
	if err != nil {
		return Speed{}, err
	}
	start, wall, self0 := c.Cycle(), time.Now(), selfCPU()
	rng := gosim.NewRand(seed)
	var i uint64
	n := int((msgs + uint64(batch) - 1) / uint64(batch))
	err = c.FeedAll(n, func(int) [][]byte {
		out := make([][]byte, 0, batch)
		for ; i < msgs && len(out) < batch; i++ {
			out = append(out, gosim.WorkloadMessage(i, rng))
		}
		return out
	}, 1000*uint64(batch)+1000)
	if err != nil {
		return Speed{}, fmt.Errorf("plugin: bench: %w", err)
	}
	wallS, self := time.Since(wall).Seconds(), selfCPU()-self0
	plugin1, err := c.CPU()
	if err != nil {
		return Speed{}, err
	}
	cycles := c.Cycle() - start
	cpu := (self + plugin1 - plugin0).Seconds()
	return Speed{Cycles: cycles, Seconds: cpu, WallSeconds: wallS,
		CyclesPerS: float64(cycles) / cpu, MessagesPer: float64(msgs) / cpu}, nil
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
