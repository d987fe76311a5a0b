package net

import (
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// TrafficPresets are the starting points of lhsim traffic's fabric knobs.
var TrafficPresets = []string{"nsim", "seed002", "booksim"}

// Patterns are the traffic patterns by name (fabric.Patterns).
var Patterns = fabric.Patterns

// TrafficKnobs are the fabric's knobs as the user typed them, on top of a preset: a knob
// left zero (or "") keeps the preset's. Fabric reads them once into a fabric.Config.
type TrafficKnobs struct {
	Preset string // nsim, seed002 or booksim
	Clock  string // the router cycle (4ns): the unit of delays given in cycles
	// Delays by flag name: routing-delay, vc-alloc-delay, sw-alloc-delay, switch-latency,
	// cable; each in ns, or cycles with a c (1c).
	Delays       map[string]string
	TorusLatency string // per dimension, comma-separated
	Arbiter      string
	FlitBytes    int
	LinkBW       float64
	SwitchBW     float64
	TorusBW      float64
	VCs          int
	BufferFlits  int
	EjectFlits   int
}

// Apply sets cfg's fabric to the one the knobs give, checked (fabric.Config.Validate), and
// its torus latencies (TrafficConfig.TorusLatency, checked against the topology by the run).
func (k TrafficKnobs) Apply(cfg *TrafficConfig) error {
	c, err := k.fabric()
	cfg.Fabric = c
	if err != nil || k.TorusLatency == "" {
		return err
	}
	cfg.TorusLatency = []netsim.Time{}
	for _, s := range strings.Split(k.TorusLatency, ",") {
		d, err := fabric.ParseDelay(s, c.ClockPeriod)
		if err != nil {
			return experiment.Refuse("--torus-latency: %w", err)
		}
		cfg.TorusLatency = append(cfg.TorusLatency, d)
	}
	return nil
}

// fabric is the fabric configuration the knobs but the torus latencies give.
func (k TrafficKnobs) fabric() (fabric.Config, error) {
	var c fabric.Config
	switch k.Preset {
	case "nsim":
		c = fabric.DefaultConfig()
	case "seed002":
		c = fabric.Seed002Torus()
	case "booksim":
		c = fabric.BookSimConfig(4 * netsim.Nanosecond)
	default:
		return c, experiment.Refuse("--preset %q: want nsim, seed002 or booksim", k.Preset)
	}
	if k.Clock != "" {
		var err error
		if c.ClockPeriod, err = fabric.ParseDelay(k.Clock, 0); err != nil || c.ClockPeriod <= 0 {
			return c, experiment.Refuse("--clock %q: want a positive time such as 4ns", k.Clock)
		}
		if k.Preset == "booksim" { // BookSim's delays are cycles of whatever clock
			c = fabric.BookSimConfig(c.ClockPeriod)
		}
	}
	setInt := func(p *int, v int) {
		if v != 0 {
			*p = v
		}
	}
	setFloat := func(p *float64, v float64) {
		if v != 0 {
			*p = v
		}
	}
	setInt(&c.FlitBytes, k.FlitBytes)
	setFloat(&c.LinkBandwidth, k.LinkBW)
	setFloat(&c.SwitchBandwidth, k.SwitchBW)
	setFloat(&c.TorusLinkBandwidth, k.TorusBW)
	for name, field := range map[string]*netsim.Time{"routing-delay": &c.RoutingDelay, "vc-alloc-delay": &c.VCAllocDelay,
		"sw-alloc-delay": &c.SwitchAllocDelay, "switch-latency": &c.SwitchLatency, "cable": &c.CableLatency} {
		if s, ok := k.Delays[name]; ok {
			d, err := fabric.ParseDelay(s, c.ClockPeriod)
			if err != nil {
				return c, experiment.Refuse("--%s: %w", name, err)
			}
			*field = d
		}
	}
	setInt(&c.VCs, k.VCs)
	setInt(&c.BufferFlits, k.BufferFlits)
	setInt(&c.EjectBufferFlits, k.EjectFlits)
	if k.Arbiter != "" {
		var err error
		if c.Arbiter, err = fabric.ParseArbiter(k.Arbiter); err != nil {
			return c, experiment.Refuse("--arbiter: %w", err)
		}
	}
	return c, experiment.Input(c.Validate())
}

// Validate refuses, before any work, what the sweep cannot run (an experiment.InputError):
// a topology that does not fit in memory, a pattern it cannot take, and all that
// RunTraffic itself refuses before it starts.
func (cfg TrafficConfig) Validate() error {
	if topo := cfg.Topology.Fabric(); topo != nil && cfg.Fabric.Router == fabric.BookSimIQ {
		// The booksim router's own memory, before the event model's (which sizes the probe
		// of bounds and routes, and is under half of it).
		if err := booksim.CheckFits(topo, cfg.Fabric); err != nil {
			return experiment.Refuse("--topology: %w", err)
		}
	}
	topo, err := experiment.CheckTopology("topology", cfg.Topology, cfg.Fabric, 1)
	if err != nil {
		return err
	}
	pat, err := fabric.ParsePatternFor(cfg.Fabric.Router, cfg.Pattern, topo)
	if err == nil {
		err = fabric.CheckPattern(pat, topo)
	}
	if err != nil {
		return experiment.Refuse("--pattern: %w", err)
	}
	_, _, _, err = trafficCheck(&cfg) // the rest RunTraffic refuses: a deadlock, loads, the window
	return experiment.Input(err)
}
