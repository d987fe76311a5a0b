package experiment

// The sweeps of lhsim ib cut into parts that build their own machines and may run at once
// (--jobs), and merged back into what the whole sweep gives, row for row.

import (
	"errors"
	"fmt"
	"maps"

	"github.com/lhsim/lhsim/netsim/ib"
)

// ibThreeStages names RunRTT's what-if part: E7501 through three stages of 8-port switches.
const ibThreeStages = "three-stages"

// smallPartMemory is what one part of lhsim mbcf or ib may take: two to eight nodes, a switch
// or a hub, a few MiB (the commands' resident sizes are the process's own,
// docs/performance.md).
const smallPartMemory = 8 << 20

// Parts are the round trips by chipset, and the three-stage what-if.
func (cfg IBRTTConfig) Parts() []Part[IBRTTConfig] {
	var out []Part[IBRTTConfig]
	for _, p := range []string{ib.GCLE().Chipset, ib.E7501().Chipset, ibThreeStages} {
		c := cfg
		c.part = p
		out = append(out, Part[IBRTTConfig]{Label: p, Config: c})
	}
	return out
}

// MergeIBRTT puts the parts' results (in Parts order) together.
func MergeIBRTT(parts []*IBRTTResult) (*IBRTTResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("ib rtt: no parts to merge")
	}
	res := &IBRTTResult{Size: parts[0].Size}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
		if p.ThreeStages != [2]float64{} {
			res.ThreeStages = p.ThreeStages
		}
	}
	return res, nil
}

// JobMemory is what one part may take.
func (IBRTTConfig) JobMemory() int64 { return smallPartMemory }

// Parts are the bandwidth curves by chipset.
func (cfg IBBandwidthConfig) Parts() []Part[IBBandwidthConfig] {
	var out []Part[IBBandwidthConfig]
	for _, ch := range cfg.Chipsets {
		c := cfg
		c.Chipsets = []string{ch}
		out = append(out, Part[IBBandwidthConfig]{Label: ch, Config: c})
	}
	return out
}

// MergeIBBandwidth puts the parts' results (in Parts order) together.
func MergeIBBandwidth(parts []*IBBandwidthResult) (*IBBandwidthResult, error) {
	res := &IBBandwidthResult{Peak: map[string]map[string]float64{}}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
		maps.Copy(res.Peak, p.Peak)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (IBBandwidthConfig) JobMemory() int64 { return smallPartMemory }

// Parts are the run-dry study by queue depth (each part works out the memory table too: it
// is arithmetic).
func (cfg IBBuffersConfig) Parts() []Part[IBBuffersConfig] {
	var out []Part[IBBuffersConfig]
	for _, d := range cfg.Depths {
		c := cfg
		c.Depths = []int{d}
		out = append(out, Part[IBBuffersConfig]{Label: fmt.Sprintf("depth %d", d), Config: c})
	}
	return out
}

// MergeIBBuffers puts the parts' results (in Parts order) together.
func MergeIBBuffers(parts []*IBBuffersResult) (*IBBuffersResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("ib buffers: no parts to merge")
	}
	res := &IBBuffersResult{Rows: parts[0].Rows, Senders: parts[0].Senders, Size: parts[0].Size}
	for _, p := range parts {
		res.Dry = append(res.Dry, p.Dry...)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (IBBuffersConfig) JobMemory() int64 { return smallPartMemory }

// Parts are the checkpoint costs by QP count.
func (cfg IBCPRConfig) Parts() []Part[IBCPRConfig] {
	var out []Part[IBCPRConfig]
	for _, n := range cfg.QPs {
		c := cfg
		c.QPs = []int{n}
		out = append(out, Part[IBCPRConfig]{Label: fmt.Sprintf("%d QPs", n), Config: c})
	}
	return out
}

// MergeIBCPR puts the parts' results (in Parts order) together.
func MergeIBCPR(parts []*IBCPRResult) (*IBCPRResult, error) {
	res := &IBCPRResult{}
	for _, p := range parts {
		res.Rows = append(res.Rows, p.Rows...)
	}
	return res, nil
}

// JobMemory is what one part may take.
func (IBCPRConfig) JobMemory() int64 { return smallPartMemory }
