package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/stretchr/testify/require"
)

func openRaw(t *testing.T) *dut {
	t.Helper()
	dev, err := device.Open(config(t, gosim.BoardConfig{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, dev.Close()) })
	return &dut{dev: dev}
}

// The register map after reset, as docs/design.md gives it.
func TestRegisterDefaults(t *testing.T) {
	d := openRaw(t)
	want := map[uint32]uint32{
		gosim.RegID:           gosim.ID,
		gosim.RegCtrl:         gosim.CtrlLHSOn,
		gosim.RegSizePos:      12,
		gosim.RegSplitPos:     48,
		gosim.RegMaxMsg:       65535,
		gosim.RegTailBase:     0,
		gosim.RegTailSize:     1 << 20,
		gosim.RegParams:       256<<16 | 10,
		gosim.RegLHProd:       0,
		gosim.RegErr:          0,
		gosim.RegMsgCount:     0,
		0x74:                  0, // unmapped
		0xFC:                  0,
		0x100:                 0,
		gosim.WriteWindowBase: 0, // write-only
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
		{gosim.RegSizePos, 0, true}, {gosim.RegSizePos, 4, true}, {gosim.RegSizePos, 3, false}, {gosim.RegSizePos, 16, false},
		{gosim.RegSplitPos, 16, true}, {gosim.RegSplitPos, 32, true}, {gosim.RegSplitPos, 0, false},
		{gosim.RegSplitPos, 40, false}, {gosim.RegSplitPos, 64, false},
		{gosim.RegMaxMsg, 100, true}, {gosim.RegMaxMsg, 65536, false},
		{gosim.RegTailSize, 16, true}, {gosim.RegTailSize, 8, false}, {gosim.RegTailSize, 0x0800_0010, false},
		{gosim.RegTailBase, gosim.MemBytes - 16, true}, {gosim.RegTailBase, gosim.MemBytes, false}, {gosim.RegTailBase, 8, false},
	}
	for _, c := range cases {
		before := d.reg(t, c.addr)
		d.write(t, gosim.RegErr, 0x3f)
		d.write(t, c.addr, c.val)
		if c.ok {
			require.Equal(t, c.val, d.reg(t, c.addr), "register %#x value %#x", c.addr, c.val)
			require.Zero(t, d.reg(t, gosim.RegErr))
		} else {
			require.Equal(t, before, d.reg(t, c.addr), "register %#x value %#x must be refused", c.addr, c.val)
			require.Equal(t, uint32(gosim.ErrCfgValue), d.reg(t, gosim.RegErr))
		}
	}
}

// Configuration written while a message is in flight or the rings hold data is ignored and
// flagged; ENABLE may change at any time; ERR bits clear by writing ones.
func TestRegisterWrittenWhileBusy(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 1}, drivers.Config{LHS: true})
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(2), 100, 100, 12)))
	require.NoError(t, d.dev.RunUntilIdle(10_000))
	for _, w := range [][2]uint32{{gosim.RegSplitPos, 16}, {gosim.RegTailSize, 4096}, {gosim.RegCtrl, gosim.CtrlEnable}} {
		d.write(t, gosim.RegErr, 0x3f)
		d.write(t, w[0], w[1])
		require.Equal(t, uint32(gosim.ErrCfgBusy), d.reg(t, gosim.RegErr), "write %#x to %#x", w[1], w[0])
	}
	require.EqualValues(t, 48, d.reg(t, gosim.RegSplitPos))
	require.EqualValues(t, 1<<20, d.reg(t, gosim.RegTailSize))
	require.EqualValues(t, gosim.CtrlEnable|gosim.CtrlLHSOn, d.reg(t, gosim.RegCtrl), "ENABLE taken, LHS_ON kept")
	// Disabled: messages wait at the input.
	d.write(t, gosim.RegCtrl, gosim.CtrlLHSOn)
	require.NoError(t, d.dev.Inject(message(gosim.NewRand(3), 20, 20, 12)))
	require.ErrorIs(t, d.dev.RunUntilIdle(1000), gosim.ErrNotIdle)
	require.EqualValues(t, 1, d.reg(t, gosim.RegLHProd))
	d.write(t, gosim.RegCtrl, gosim.CtrlLHSOn|gosim.CtrlEnable)
	require.NoError(t, d.dev.RunUntilIdle(1000))
	require.EqualValues(t, 2, d.reg(t, gosim.RegLHProd))
	// Once the rings are empty, configuration is taken again.
	require.NoError(t, d.host.Consume(0))
	require.NoError(t, d.host.Consume(1))
	d.write(t, gosim.RegErr, 0x3f)
	d.write(t, gosim.RegSplitPos, 16)
	require.EqualValues(t, 16, d.reg(t, gosim.RegSplitPos))
	require.Zero(t, d.reg(t, gosim.RegErr))
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
