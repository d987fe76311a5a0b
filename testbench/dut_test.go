package testbench

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/stretchr/testify/require"
)

// deviceConfig is the device under test: LHSIM_MODEL=rtl|go|lockstep (default lockstep: the
// RTL drives the board and the golden model must agree with it on every port, every cycle)
// and LHSIM_BRIDGE=cgo|plugin (default cgo), read once by device.FromEnv.
var deviceConfig = sync.OnceValues(func() (device.Config, error) {
	cfg, err := device.FromEnv(device.Config{})
	if cfg.Model == "" {
		cfg.Model = device.Lockstep
	}
	return cfg, err
})

// config is deviceConfig for a test, with the board it asks for.
func config(t testing.TB, board gosim.BoardConfig) device.Config {
	t.Helper()
	cfg, err := deviceConfig()
	require.NoError(t, err)
	cfg.Board = board
	return cfg
}

// model is the model under test, for replay lines.
func model() device.Model {
	cfg, _ := deviceConfig()
	return cfg.Model
}

// dut is a device with its host driver, checked for lockstep agreement when the test ends.
type dut struct {
	dev  device.Device
	host *drivers.Host
}

func newDUT(t testing.TB, board gosim.BoardConfig, host drivers.Config) *dut {
	t.Helper()
	w := startWaves(t) // nil unless WAVES=1 or a failed seed's re-run
	cfg := config(t, board)
	if w != nil && cfg.Bridge == device.Plugin {
		// The save file's markers come from every cycle's ports, which only the in-process
		// board shows: a recorded run is a cgo run.
		t.Log("waves: recording on the cgo bridge (markers need the in-process board)")
		cfg.Bridge = device.Cgo
	}
	cfg.Trace = w.trace()
	dev, err := device.Open(cfg) // on the bridge LHSIM_BRIDGE names
	require.NoError(t, err)
	d := &dut{dev: dev}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Errorf("closing the device (RTL and golden model compared every cycle): %v", err)
		}
		w.finish(t)
	})
	d.host, err = drivers.NewHost(dev, host)
	require.NoError(t, err)
	if l, ok := dev.(*device.Local); ok {
		w.watch(l.Board, d.host.Config()) // markers need every cycle's ports: in process only
	}
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
