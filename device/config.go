package device

import (
	"fmt"
	"os"
	"strings"

	"github.com/lhsim/lhsim/gosim"
)

// Model names what simulates the receive path.
type Model string

// The models.
const (
	RTL      Model = "rtl"      // the Verilated RTL
	Go       Model = "go"       // the Go golden model
	Lockstep Model = "lockstep" // both, compared on every port every cycle; the RTL drives the board
)

// Bridge names where the receive path and its board run.
type Bridge string

// The bridges.
const (
	Cgo    Bridge = "cgo"    // in this process
	Plugin Bridge = "plugin" // in a plugin process (docs/plugin.md)
)

// Config is what the user chose for one device. It travels whole to a plugin process.
type Config struct {
	Model  Model  // "" means RTL
	Bridge Bridge // "" means Cgo
	// Entries is the LH buffer size; 0 means the default build's 1024. The RTL library is
	// built for one size, so RTL and Lockstep accept only that.
	Entries int
	// Trace names an FST waveform file for the RTL ("" for none).
	Trace string
	// Board is the world around the NIC.
	Board gosim.BoardConfig
}

// The environment variables that choose a device where no flag can reach (go test).
const (
	ModelEnv  = "LHSIM_MODEL"
	BridgeEnv = "LHSIM_BRIDGE"
)

// FromEnv fills an empty Model or Bridge from LHSIM_MODEL and LHSIM_BRIDGE. It is the one
// place lhsim reads them; entry points (the CLI, test helpers) call it, and everything below
// them takes the Config it returns.
func FromEnv(cfg Config) (Config, error) {
	if cfg.Model == "" {
		cfg.Model = Model(os.Getenv(ModelEnv))
	}
	if cfg.Bridge == "" {
		cfg.Bridge = Bridge(os.Getenv(BridgeEnv))
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return cfg, fmt.Errorf("%w (from %s=%q, %s=%q)", err, ModelEnv, os.Getenv(ModelEnv), BridgeEnv, os.Getenv(BridgeEnv))
	}
	return cfg, nil
}

// ParseModel checks a model name.
func ParseModel(s string) (Model, error) {
	switch m := Model(s); m {
	case RTL, Go, Lockstep:
		return m, nil
	}
	return "", fmt.Errorf("unknown model %q (want %s)", s, strings.Join([]string{string(RTL), string(Go), string(Lockstep)}, ", "))
}

// ParseBridge checks a bridge name.
func ParseBridge(s string) (Bridge, error) {
	switch b := Bridge(s); b {
	case Cgo, Plugin:
		return b, nil
	}
	return "", fmt.Errorf("unknown bridge %q (want %s or %s)", s, Cgo, Plugin)
}

// WithDefaults fills what is empty with the defaults: the RTL, on the cgo bridge.
func (c Config) WithDefaults() Config {
	if c.Model == "" {
		c.Model = RTL
	}
	if c.Bridge == "" {
		c.Bridge = Cgo
	}
	return c
}

// Validate reports the first choice that cannot be built.
func (c Config) Validate() error {
	c = c.WithDefaults()
	if _, err := ParseModel(string(c.Model)); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	if _, err := ParseBridge(string(c.Bridge)); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	p := c.Params()
	if err := p.Check(); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	if c.Model != Go && p != gosim.DefaultParams {
		return fmt.Errorf("device: the RTL library is built with %d entries; %d needs --model go", gosim.DefaultParams.Entries, p.Entries)
	}
	if c.Trace != "" && c.Model == Go {
		return fmt.Errorf("device: a trace records the Verilated RTL, and model go has none (use --model rtl or lockstep)")
	}
	if i := c.Board.IdlePercent; i < 0 || i > 99 {
		// At 100 the network never presents a beat: every wait for a message would be endless.
		return fmt.Errorf("device: input idle %d%% outside 0..99", i)
	}
	return nil
}

// Params are the golden model's parameters for this Config (the RTL build's are the defaults).
func (c Config) Params() gosim.ModelParams {
	p := gosim.DefaultParams
	if c.Entries != 0 {
		p.Entries = c.Entries
	}
	return p
}
