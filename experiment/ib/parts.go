package ib

// The sweeps of lhsim ib cut into parts that build their own machines and may run at once
// (--jobs), and merged back into what the whole sweep gives, row for row.

import (
	"errors"
	"fmt"
	"maps"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/ib"
)

// threeStages names RunRTT's what-if part: E7501 through three stages of 8-port switches.
const threeStages = "three-stages"

// partMemory is what one part may take: a few nodes and a switch, a few MiB (the commands'
// resident sizes are the process's own, docs/performance.md).
const partMemory = 8 << 20

// Parts are the round trips by chipset, and the three-stage what-if.
func (cfg RTTConfig) Parts() []experiment.Part[RTTConfig] {
	return experiment.Split(cfg, []string{ib.GCLE().Chipset, ib.E7501().Chipset, threeStages},
		func(p string) string { return p }, func(c *RTTConfig, p string) { c.part = p })
}

// Merge puts the parts' results (in Parts order) together.
func (cfg RTTConfig) Merge(parts []*RTTResult) (*RTTResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("ib rtt: no parts to merge")
	}
	res := &RTTResult{Size: parts[0].Size}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
		if p.ThreeStages != [2]float64{} {
			res.ThreeStages = p.ThreeStages
		}
	}
	return res, nil
}

// JobMemory is what one part may take.
func (RTTConfig) JobMemory() int64 { return partMemory }

// Parts are the bandwidth curves by chipset.
func (cfg BandwidthConfig) Parts() []experiment.Part[BandwidthConfig] {
	return experiment.Split(cfg, cfg.Chipsets,
		func(p ib.Params) string { return p.Chipset }, func(c *BandwidthConfig, p ib.Params) { c.Chipsets = []ib.Params{p} })
}

// Merge puts the parts' results (in Parts order) together.
func (cfg BandwidthConfig) Merge(parts []*BandwidthResult) (*BandwidthResult, error) {
	res := &BandwidthResult{Peak: map[string]map[string]float64{}}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
		maps.Copy(res.Peak, p.Peak)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (BandwidthConfig) JobMemory() int64 { return partMemory }

// Parts are the run-dry study by queue depth (each part works out the memory table too: it
// is arithmetic).
func (cfg BuffersConfig) Parts() []experiment.Part[BuffersConfig] {
	return experiment.Split(cfg, cfg.Depths,
		func(d int) string { return fmt.Sprintf("depth %d", d) }, func(c *BuffersConfig, d int) { c.Depths = []int{d} })
}

// Merge puts the parts' results (in Parts order) together.
func (cfg BuffersConfig) Merge(parts []*BuffersResult) (*BuffersResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("ib buffers: no parts to merge")
	}
	res := &BuffersResult{Rows: parts[0].Rows, Senders: parts[0].Senders, Size: parts[0].Size}
	for _, p := range parts {
		res.Dry = append(res.Dry, p.Dry...)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (BuffersConfig) JobMemory() int64 { return partMemory }

// Parts are the checkpoint costs by QP count.
func (cfg CPRConfig) Parts() []experiment.Part[CPRConfig] {
	return experiment.Split(cfg, cfg.QPs,
		func(n int) string { return fmt.Sprintf("%d QPs", n) }, func(c *CPRConfig, n int) { c.QPs = []int{n} })
}

// Merge puts the parts' results (in Parts order) together.
func (cfg CPRConfig) Merge(parts []*CPRResult) (*CPRResult, error) {
	res := &CPRResult{}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (CPRConfig) JobMemory() int64 { return partMemory }
