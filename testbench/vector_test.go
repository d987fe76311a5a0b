package testbench

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// VS then VL moves bytes through both windows and large memory unchanged.
func TestVectorRoundTrip(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 3, Memory: gosim.SODIMMParams{ReadLatency: 7, MaxOutstanding: 4, BusyPercent: 30}}, drivers.Config{LHS: true})
	rng := gosim.NewRand(4)
	for _, n := range []int{16, 17, 100, 1000, 4096, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint64())
			}
			addr := uint32(0x100000 + 16*rng.Intn(1000))
			require.NoError(t, d.host.Store(addr, data))
			back := make([]byte, n)
			require.NoError(t, d.dev.MemRead(uint64(addr), back))
			require.Equal(t, data, back, "VS wrote large memory")
			got, err := d.host.Fetch(addr, n)
			require.NoError(t, err)
			require.Equal(t, data, got, "VL read it back")
		})
	}
}

// A command naming an out-of-range or misaligned span is refused at once and touches nothing.
func TestVectorRefused(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 3}, drivers.Config{LHS: true})
	cases := []struct {
		name              string
		op, mem, win, len uint32
		cause             uint32
	}{
		{"zero length", hw.VecOpVL, 0, 0, 0, hw.CauseLen},
		{"window range", hw.VecOpVL, 0, 4080, 32, hw.CauseWindow},
		{"window offset past the end", hw.VecOpVS, 0, 8192, 16, hw.CauseWindow},
		{"memory range", hw.VecOpVL, hw.MemBytes - 16, 0, 32, hw.CauseMemory},
		{"memory address past the end", hw.VecOpVS, 0xfffffff0, 0, 16, hw.CauseMemory},
		{"misaligned address", hw.VecOpVL, 8, 0, 16, hw.CauseAlign},
		{"misaligned window", hw.VecOpVS, 0, 4, 16, hw.CauseAlign},
		{"unknown opcode", 3, 0, 0, 16, hw.CauseOpcode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			marker := []byte("large memory must not change....")
			require.NoError(t, d.dev.MemWrite(0, marker))
			d.write(t, hw.RegVecMemAddr, c.mem)
			d.write(t, hw.RegVecWinOff, c.win)
			d.write(t, hw.RegVecLen, c.len)
			d.write(t, hw.RegVecCmd, c.op)
			st := d.reg(t, hw.RegVecStatus)
			require.Equal(t, uint32(hw.VecDone|hw.VecError)|c.cause<<8, st)
			back := make([]byte, len(marker))
			require.NoError(t, d.dev.MemRead(0, back))
			require.Equal(t, marker, back)
			var ve *drivers.VecError
			err := d.host.VL(c.mem, c.win, c.len)
			if c.op == hw.VecOpVS {
				err = d.host.VS(c.mem, c.win, c.len)
			}
			if c.op == hw.VecOpVL || c.op == hw.VecOpVS {
				require.True(t, errors.As(err, &ve), "driver reports the refusal: %v", err)
				require.Equal(t, c.cause, ve.Cause)
				require.ErrorIs(t, err, drivers.ErrHardware)
			}
		})
	}
	// A good command after the refusals clears the error.
	require.NoError(t, d.host.VL(0, 0, 16))
	require.Equal(t, uint32(hw.VecDone), d.reg(t, hw.RegVecStatus))
}

// Writing a vector register while a command runs is ignored and flagged.
func TestVectorRegisterWrittenWhileBusy(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 3}, drivers.Config{LHS: true})
	d.write(t, hw.RegVecMemAddr, 0x1000)
	d.write(t, hw.RegVecWinOff, 0)
	d.write(t, hw.RegVecLen, 4096)
	d.write(t, hw.RegVecCmd, hw.VecOpVL)
	require.Equal(t, uint32(hw.VecBusy), d.reg(t, hw.RegVecStatus)&hw.VecBusy)
	d.write(t, hw.RegVecLen, 16)
	d.write(t, hw.RegVecCmd, hw.VecOpVS)
	require.Equal(t, uint32(hw.ErrVecBusy), d.reg(t, hw.RegErr))
	require.EqualValues(t, 4096, d.reg(t, hw.RegVecLen), "the write was ignored")
	for d.reg(t, hw.RegVecStatus)&hw.VecBusy != 0 {
	}
	require.Equal(t, uint32(hw.VecDone), d.reg(t, hw.RegVecStatus), "the first command finished as a VL")
}

// A 16-byte VL takes 35 device cycles (350 ns at 100 MHz) with the default SO-DIMM, from the
// cycle the VEC_CMD write is on the host bus to the first cycle in which a VEC_STATUS read
// sees DONE: the figure the host model counts (mpi.HostModel.VL) and the docs quote; the host
// sees 566 ns, against the paper's "about 600". Longer VLs stream a beat per cycle. Status
// reads are started at every cycle around that point, so the figure is exact, not a poll's
// granularity; the engine's done pulse (ev_vec_done) is in the cycle before.
func TestVectorLoadLatency(t *testing.T) {
	for _, c := range []struct{ bytes, cycles uint64 }{{16, 35}, {64, 38}, {4096, 290}} {
		t.Run(fmt.Sprint(c.bytes), func(t *testing.T) {
			d := newDUT(t, gosim.BoardConfig{Seed: 1}, drivers.Config{LHS: true})
			var pulse uint64
			if board, ok := d.dev.(*device.Local); ok {
				board.OnCycle(func(cycle uint64, p *gosim.Pins) {
					if p.EvVecDone != 0 {
						pulse = cycle
					}
				})
			}
			d.write(t, hw.RegVecMemAddr, 0)
			d.write(t, hw.RegVecWinOff, 0)
			d.write(t, hw.RegVecLen, uint32(c.bytes))
			for at := c.cycles - 2; at <= c.cycles+1; at++ {
				d.write(t, hw.RegVecCmd, hw.VecOpVL)
				cmd := d.dev.Cycle() - 1 // the write was on the bus in the cycle just run
				require.NoError(t, d.dev.Run(cmd+at-d.dev.Cycle()))
				require.Equal(t, cmd+at, d.dev.Cycle())
				st := d.reg(t, hw.RegVecStatus) // sampled in cycle cmd+at
				require.Equal(t, at >= c.cycles, st&hw.VecDone != 0, "VEC_STATUS %#x read %d cycles after the command", st, at)
				for d.reg(t, hw.RegVecStatus)&hw.VecBusy != 0 {
				}
				if pulse != 0 {
					require.Equal(t, c.cycles-1, pulse-cmd, "the done pulse, a cycle before DONE is readable")
				}
			}
		})
	}
}
