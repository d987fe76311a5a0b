package testbench

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/nic"
	"github.com/stretchr/testify/require"
)

// model is the device under test: LHSIM_MODEL=rtl|go|lockstep (default lockstep: the RTL
// drives the board and the golden model must agree with it on every port, every cycle).
func model() string {
	if m := os.Getenv("LHSIM_MODEL"); m != "" {
		return m
	}
	return "lockstep"
}

// dut is a device with its host driver, checked for lockstep agreement when the test ends.
type dut struct {
	dev  drivers.Device
	host *drivers.Host
}

func newDUT(t testing.TB, board gosim.BoardConfig, cfg drivers.Config) *dut {
	t.Helper()
	w := startWaves(t) // nil unless WAVES=1 or a failed seed's re-run
	dev, err := nic.OpenBoard(nic.Config{Model: model(), Board: board, Trace: w.trace()})
	require.NoError(t, err)
	d := &dut{dev: dev}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Errorf("closing the device (RTL and golden model compared every cycle): %v", err)
		}
		w.finish(t)
	})
	d.host, err = drivers.NewHost(dev, cfg)
	require.NoError(t, err)
	w.watch(dev, d.host.Config())
	return d
}

func (d *dut) reg(t testing.TB, addr uint32) uint32 {
	t.Helper()
	v, err := d.dev.ReadReg(addr)
	require.NoError(t, err)
	return v
}

func (d *dut) write(t testing.TB, addr, val uint32) {
	t.Helper()
	require.NoError(t, d.dev.WriteReg(addr, val))
}

// seeds returns the seeds a randomized test runs: SEED=n replays one, otherwise a fixed set.
func seeds(n int) []uint64 {
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err == nil {
			return []uint64{v}
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return append(out, regressionSeeds...)
}

// regressionSeeds once found a bug (make regress); they stay in every run. 69 and 99: a
// message dropped whole with LHS off finishing between the driver's reads of MSG_COUNT and
// DROP_COUNT.
var regressionSeeds = []uint64{69, 99}

// replay tells how to run one seed again.
func replay(t testing.TB, seed uint64) string {
	return fmt.Sprintf("seed %d: replay with SEED=%d LHSIM_MODEL=%s go test ./testbench -run '%s'", seed, seed, model(), t.Name())
}
