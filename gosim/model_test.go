package gosim_test

import (
	"testing"

	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// recordWorkload runs msgs messages of the benchmark workload on a board with the golden model,
// the host releasing each entry as it commits and now and then writing a read-only register, and returns
// the model's inputs on every cycle after reset.
func recordWorkload(tb testing.TB, msgs uint64) []gosim.Pins {
	tb.Helper()
	m, err := gosim.NewModel(gosim.DefaultParams)
	if err != nil {
		tb.Fatal(err)
	}
	b := gosim.NewBoard(m, gosim.BoardConfig{Seed: 1})
	var in []gosim.Pins
	b.OnCycle(func(_ uint64, p *gosim.Pins) {
		q := *p
		q.MemWData, q.MemAddr, q.HostRData = [2]uint64{}, 0, 0
		q.MsgReady, q.MemValid, q.MemWrite, q.HostRValid, q.EvCommit, q.EvMsgDone, q.EvVecDone = 0, 0, 0, 0, 0, 0, 0
		in = append(in, q)
	})
	for _, w := range [][2]uint32{{hw.RegTailSize, hw.TailSizeMax}, {hw.RegCtrl, hw.CtrlEnable | hw.CtrlLHSOn}} {
		if err := b.WriteReg(w[0], w[1]); err != nil {
			tb.Fatal(err)
		}
	}
	rng := gosim.NewRand(1)
	for i := uint64(0); i < msgs; i++ {
		if err := b.Inject(rx.WorkloadMessage(i, rng)); err != nil {
			tb.Fatal(err)
		}
	}
	for b.Count.Commits < msgs {
		before := b.Count.Commits
		b.Step()
		for k := before; k < b.Count.Commits; k++ {
			b.Post(hw.RegLHRelease, 1)
		}
		if b.Cycle()%97 == 0 {
			b.Post(hw.RegMsgCount, 0) // a write to a read-only register: decoded, ignored
		}
	}
	return in
}

// BenchmarkModelCycle replays the workload's inputs into the golden model alone: the cost of
// Model.Cycle without the board around it.
func BenchmarkModelCycle(b *testing.B) {
	in := recordWorkload(b, 5000)
	m, err := gosim.NewModel(gosim.DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cycles := 0
	for i := 0; i < b.N; i++ {
		m.Reset()
		for k := range in {
			p := in[k]
			m.Cycle(&p)
		}
		cycles += len(in)
	}
	b.ReportMetric(float64(cycles)/b.Elapsed().Seconds(), "cycles/s")
}
