package ib

import (
	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/ib"
)

// ParseChipset reads a chipset's name: gc-le or e7501.
func ParseChipset(name string) (ib.Params, error) {
	p, err := ib.ParseChipset(name)
	if err != nil {
		return p, experiment.Refuse("--chipset: %w", err)
	}
	return p, nil
}

// ParseChipsets reads chipsets' names (ParseChipset).
func ParseChipsets(names []string) ([]ib.Params, error) {
	out := make([]ib.Params, 0, len(names))
	for _, name := range names {
		p, err := ParseChipset(name)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Validate refuses no chipset.
func (cfg BandwidthConfig) Validate() error {
	if len(cfg.Chipsets) == 0 {
		return experiment.Refuse("--chipset: want gc-le, e7501 or both")
	}
	return nil
}

// Choose sets the run's receive buffers (srq or rc) and chipset by name.
func (cfg *RunConfig) Choose(receive, chipset string) error {
	cfg.Machine.Receive = ib.ReceiveMode(receive)
	p, err := ParseChipset(chipset)
	cfg.Machine.Params = p
	return err
}

// Validate refuses, before any work, what the run cannot do (an experiment.InputError).
func (cfg RunConfig) Validate() error {
	if cfg.Checkpoint != "" && cfg.CheckpointAt == 0 {
		return experiment.Refuse("--checkpoint needs --checkpoint-at")
	}
	return experiment.Input(cfg.Machine.Validate())
}

// IsCheckpointFile reports whether file is an InfiniBand run's checkpoint (lhsim ib run's).
func IsCheckpointFile(file string) bool {
	f, err := checkpoint.Read(file)
	return err == nil && ib.IsCheckpoint(f)
}
