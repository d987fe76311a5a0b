package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/nic"
	"github.com/stretchr/testify/require"
)

func openRaw(t *testing.T) *dut {
	t.Helper()
	dev, err := nic.Open(nic.Config{Model: model()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, dev.Close()) })
	return &dut{dev: dev}
}

// The register map after reset, as docs/design.md gives it.
func TestRegisterDefaults(t *testing.T) {
	d := openRaw(t)
	want := map[uint32]uint32{
		hw.RegID:           hw.ID,
		hw.RegCtrl:         hw.CtrlLHSOn,
		hw.RegSizePos:      12,
		hw.RegSplitPos:     48,
		hw.RegMaxMsg:       65535,
		hw.RegTailBase:     0,
		hw.RegTailSize:     1 << 20,
		hw.RegParams:       256<<16 | 10,
		hw.RegLHProd:       0,
		hw.RegErr:          0,
		hw.RegMsgCount:     0,
		0x74:               0, // unmapped
		0xFC:               0,
		0x100:              0,
		hw.WriteWindowBase: 0, // write-only
	}
	for addr, v := range want {
		require.Equal(t, v, d.reg(t, addr), "register %#x", addr)
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
		d.write(t, hw.RegErr, 0x3f)
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
		d.write(t, hw.RegErr, 0x3f)
		d.write(t, w[0], w[1])
		require.Equal(t, uint32(hw.ErrCfgBusy), d.reg(t, hw.RegErr), "write %#x to %#x", w[1], w[0])
	}
	require.EqualValues(t, 48, d.reg(t, hw.RegSplitPos))
	require.EqualValues(t, 1<<20, d.reg(t, hw.RegTailSize))
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
	d.write(t, hw.RegErr, 0x3f)
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
