package testbench

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
)

// suiteOnBridge are tests of every kind in the suite (directed per block, randomized with a
// scoreboard), each of which opens its devices through newDUT or config.
var suiteOnBridge = []string{"TestSmoke", "TestRegisterDefaults", "TestSplitterBoundarySizes",
	"TestLHBufferFullForALongTime", "TestVectorRoundTrip", "TestScoreboardRandom"}

// TestSuiteRunsOnTheSelectedBridge: with LHSIM_BRIDGE=plugin the suite's devices really are
// in plugin processes. Run with a plugin that exits after 40 cycles, every one of these tests
// must fail, each with the plugin's crash report; a test still on the cgo bridge would pass.
func TestSuiteRunsOnTheSelectedBridge(t *testing.T) {
	if os.Getenv("LHSIM_SUITE_CHILD") != "" {
		t.Skip("inside the run this test makes")
	}
	run := "^("
	for i, name := range suiteOnBridge {
		if i > 0 {
			run += "|"
		}
		run += name
	}
	cmd := exec.Command(os.Args[0], "-test.run", run+")$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), device.BridgeEnv+"=plugin", "LHSIM_PLUGIN_FAULT=exit@40",
		"LHSIM_SUITE_CHILD=1", "SEED=1", "WAVES=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the suite passed with a plugin that dies at cycle 40:\n%s", out)
	for _, name := range suiteOnBridge {
		require.Contains(t, string(out), "--- FAIL: "+name+" ", "%s did not fail: it is not on the plugin bridge", name)
	}
	require.Contains(t, string(out), "died at cycle 40")
}

// The device newDUT opens is on the bridge the environment names.
func TestDUTOnSelectedBridge(t *testing.T) {
	d := newDUT(t, gosim.BoardConfig{Seed: 1}, drivers.Config{LHS: true})
	cfg, err := deviceConfig()
	require.NoError(t, err)
	switch cfg.WithDefaults().Bridge {
	case device.Plugin:
		require.IsType(t, &device.Remote{}, d.dev)
	default:
		require.IsType(t, &device.Local{}, d.dev)
	}
}
