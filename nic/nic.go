// Package nic opens a NIC device for the host side: the receive path as RTL (Verilated,
// through cgo) or as the Go golden model, on a board with the SO-DIMM and network models.
package nic

import (
	"fmt"
	"os"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/verilator"
)

// Config chooses the device.
type Config struct {
	// Model is "rtl" (the Verilated RTL), "go" (the golden model) or "lockstep" (both, compared
	// every cycle; the RTL drives the board). Empty means the LHSIM_MODEL environment
	// variable, or "rtl".
	Model string
	// Entries is the LH buffer size; 0 means the default build's 1024. The RTL library is built
	// for one size, so "rtl" and "lockstep" accept only that.
	Entries int
	// Trace names an FST waveform file for the RTL ("" for none).
	Trace string
	// Board is the world around the NIC.
	Board gosim.BoardConfig
	// Bridge is "cgo" (the model in this process) or "plugin" (in a plugin process, see
	// docs/plugin.md); empty means the LHSIM_BRIDGE environment variable, or "cgo".
	Bridge string
}

// Open builds the device the host drives. Closing it reports a lockstep disagreement, if
// there was one.
func Open(cfg Config) (drivers.Device, error) {
	switch b, err := bridge(cfg); {
	case err != nil:
		return nil, err
	case b == "plugin":
		return openPlugin(cfg)
	}
	return OpenBoard(cfg)
}

// OpenBoard builds the device in this process and returns the board itself, for callers that
// step it cycle by cycle.
func OpenBoard(cfg Config) (*gosim.Board, error) {
	model := cfg.Model
	if model == "" {
		model = os.Getenv("LHSIM_MODEL")
	}
	if model == "" {
		model = "rtl"
	}
	p := gosim.DefaultParams
	if cfg.Entries != 0 {
		p.Entries = cfg.Entries
	}
	if model != "go" && p != gosim.DefaultParams {
		return nil, fmt.Errorf("nic: the RTL library is built with %d entries; %d needs --model go", gosim.DefaultParams.Entries, p.Entries)
	}
	var core gosim.Core
	switch model {
	case "go":
		m, err := gosim.NewModel(p)
		if err != nil {
			return nil, err
		}
		core = m
	case "rtl", "lockstep":
		r, err := verilator.New(cfg.Trace)
		if err != nil {
			return nil, err
		}
		core = r
		if model == "lockstep" {
			m, _ := gosim.NewModel(p)
			core = &gosim.Lockstep{A: r, B: m}
		}
	default:
		return nil, fmt.Errorf("nic: unknown model %q (want rtl, go or lockstep)", model)
	}
	return gosim.NewBoard(core, cfg.Board), nil
}
