package testbench

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

func openRaw(t *testing.T) *dut { return openModel(t, model()) }

// openModel opens a device of the given model without a host driver: registers as reset left
// them.
func openModel(t *testing.T, m device.Model) *dut {
	t.Helper()
	cfg := config(t, gosim.BoardConfig{}) // on the bridge the environment names
	cfg.Model = m
	dev, err := device.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, dev.Close()) })
	return &dut{dev: dev}
}

// resetValue is what register r reads after reset on a device built with p.
func resetValue(r hw.Register, p gosim.ModelParams) uint32 {
	if r.Params {
		return uint32(bits.TrailingZeros(uint(p.Entries)))<<hw.ParamsLog2EntriesShift |
			uint32(p.WinBytes/16)<<hw.ParamsWinUnitsShift
	}
	return r.Reset
}

// Every register of the map (hw.Registers, from hw/contract.json) reads its reset value, on the
// RTL and on the golden model; every other word of the register region, the write-only
// registers and the write window read 0.
func TestRegisterDefaults(t *testing.T) {
	for _, m := range []device.Model{device.RTL, device.Go} {
		t.Run(string(m), func(t *testing.T) {
			d := openModel(t, m)
			mapped := map[uint32]bool{}
			for _, r := range hw.Registers {
				mapped[r.Offset] = true
				require.Equal(t, resetValue(r, gosim.DefaultParams), d.reg(t, hw.RegistersBase+r.Offset),
					"%s (%#x, %s) after reset", r.Name, r.Offset, r.Access)
			}
			for off := uint32(0); off < 0x100; off += 4 {
				if !mapped[off] {
					require.Zero(t, d.reg(t, hw.RegistersBase+off), "unmapped register %#x", off)
				}
			}
			require.Zero(t, d.reg(t, hw.RegistersBase+0x100), "past the register region")
			require.Zero(t, d.reg(t, hw.WriteWindowBase), "write window")
		})
	}
}

// The driver's configuration defaults are the registers' reset values: a host that asks for
// nothing leaves every configuration register as reset left it, and only enables the splitter.
func TestRegisterDriverDefaults(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 1}, drivers.Config{LHS: true})
	for _, r := range hw.Registers {
		want := resetValue(r, gosim.DefaultParams)
		if r.Offset == hw.RegCtrl {
			want |= hw.CtrlEnable
		}
		require.Equal(t, want, d.reg(t, r.Offset), "%s (%#x) after drivers.NewHost", r.Name, r.Offset)
	}
}

// Configuration values out of range are refused; legal ones read back.
func TestRegisterConfigValues(t *testing.T) {
	d := openRaw(t)
	cases := []struct {
		addr, val uint32
		ok        bool
	}{
		{hw.RegSizePos, 0, true}, {hw.RegSizePos, 4, true}, {hw.RegSizePos, 3, false}, {hw.RegSizePos, 16, false},
		{hw.RegSplitPos, 16, true}, {hw.RegSplitPos, 32, true}, {hw.RegSplitPos, 0, false},
		{hw.RegSplitPos, 40, false}, {hw.RegSplitPos, 64, false},
		{hw.RegMaxMsg, 100, true}, {hw.RegMaxMsg, 65536, false},
		{hw.RegTailSize, 16, true}, {hw.RegTailSize, 8, false}, {hw.RegTailSize, 0x0800_0010, false},
		{hw.RegTailBase, hw.MemBytes - 16, true}, {hw.RegTailBase, hw.MemBytes, false}, {hw.RegTailBase, 8, false},
	}
	for _, c := range cases {
		before := d.reg(t, c.addr)
		d.write(t, hw.RegErr, hw.ErrAll)
		d.write(t, c.addr, c.val)
		if c.ok {
			require.Equal(t, c.val, d.reg(t, c.addr), "register %#x value %#x", c.addr, c.val)
			require.Zero(t, d.reg(t, hw.RegErr))
		} else {
			require.Equal(t, before, d.reg(t, c.addr), "register %#x value %#x must be refused", c.addr, c.val)
			require.Equal(t, uint32(hw.ErrCfgValue), d.reg(t, hw.RegErr))
		}
	}
}

// Configuration written while a message is in flight or the rings hold data is ignored and
// flagged; ENABLE may change at any time; ERR bits clear by writing ones.
func TestRegisterWrittenWhileBusy(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 1}, drivers.Config{LHS: true})
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(2), 100, 100, 12)))
	require.NoError(t, d.dev.RunUntilIdle(10_000))
	for _, w := range [][2]uint32{{hw.RegSplitPos, 16}, {hw.RegTailSize, 4096}, {hw.RegCtrl, hw.CtrlEnable}} {
		d.write(t, hw.RegErr, hw.ErrAll)
		d.write(t, w[0], w[1])
		require.Equal(t, uint32(hw.ErrCfgBusy), d.reg(t, hw.RegErr), "write %#x to %#x", w[1], w[0])
	}
	require.EqualValues(t, hw.SplitPosReset, d.reg(t, hw.RegSplitPos))
	require.EqualValues(t, hw.TailSizeReset, d.reg(t, hw.RegTailSize))
	require.EqualValues(t, hw.CtrlEnable|hw.CtrlLHSOn, d.reg(t, hw.RegCtrl), "ENABLE taken, LHS_ON kept")
	// Disabled: messages wait at the input.
	d.write(t, hw.RegCtrl, hw.CtrlLHSOn)
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(3), 20, 20, 12)))
	require.ErrorIs(t, d.dev.RunUntilIdle(1000), gosim.ErrNotIdle)
	require.EqualValues(t, 1, d.reg(t, hw.RegLHProd))
	d.write(t, hw.RegCtrl, hw.CtrlLHSOn|hw.CtrlEnable)
	require.NoError(t, d.dev.RunUntilIdle(1000))
	require.EqualValues(t, 2, d.reg(t, hw.RegLHProd))
	// Once the rings are empty, configuration is taken again.
	require.NoError(t, d.host.Consume(0))
	require.NoError(t, d.host.Consume(1))
	d.write(t, hw.RegErr, hw.ErrAll)
	d.write(t, hw.RegSplitPos, 16)
	require.EqualValues(t, 16, d.reg(t, hw.RegSplitPos))
	require.Zero(t, d.reg(t, hw.RegErr))
}

// Host accesses the bus cannot carry are rejected by the board before they reach the NIC.
func TestHostAccessChecked(t *testing.T) {
	d := openRaw(t)
	_, err := d.dev.ReadReg(2)
	require.Error(t, err)
	require.Error(t, d.dev.WriteReg(1<<20, 0))
	require.Error(t, d.dev.ReadBlock(0, make([]byte, 3)))
	require.Error(t, d.dev.Inject(nil))
}
