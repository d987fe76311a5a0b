package nic

import (
	"fmt"
	"os"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/plugin"
)

// bridge resolves Config.Bridge: the field, else $LHSIM_BRIDGE, else "cgo".
func bridge(cfg Config) (string, error) {
	b := cfg.Bridge
	if b == "" {
		b = os.Getenv("LHSIM_BRIDGE")
	}
	switch b {
	case "", "cgo":
		return "cgo", nil
	case "plugin":
		return b, nil
	}
	return "", fmt.Errorf("nic: unknown bridge %q (want cgo or plugin)", b)
}

// openPlugin builds the device in a plugin process (docs/plugin.md).
func openPlugin(cfg Config) (drivers.Device, error) {
	c, err := plugin.Open(plugin.Spec{Model: cfg.Model, Entries: cfg.Entries, Trace: cfg.Trace, Board: cfg.Board},
		plugin.Options{})
	if err != nil {
		return nil, err // not a nil *plugin.Client in a non-nil interface
	}
	return c, nil
}
