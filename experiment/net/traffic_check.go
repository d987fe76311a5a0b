package net

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// torusLatencies puts the user's TorusLatency into Fabric, or says why topo cannot take it:
// a list of two on a 3-D torus would leave Z to a guess, four would name a dimension it
// does not have.
func (cfg *TrafficConfig) torusLatencies(topo fabric.Topology) error {
	if cfg.TorusLatency == nil {
		return nil
	}
	t, ok := topo.(*fabric.Torus)
	if !ok {
		return fmt.Errorf("torus latencies %s ns: %v has no torus links", latName(cfg.TorusLatency), topo)
	}
	if d := len(t.Radix()); len(cfg.TorusLatency) != 1 && len(cfg.TorusLatency) != d {
		return fmt.Errorf("torus latencies %s ns: %v has %d dimensions; want one latency for all of them, or %d (one per dimension)",
			latName(cfg.TorusLatency), topo, d, d)
	}
	cfg.Fabric.TorusLinkLatency = append([]netsim.Time(nil), cfg.TorusLatency...)
	return nil
}

// checkWindow refuses a measurement window too short to measure anything: shorter than the
// longest zero-load latency L of the pattern's packets (none created in it could arrive in
// it), or so short that the packets still on their way at its start (when the warm-up is
// shorter than L) are 5% of it or more, which the saturation test (accepted under 95% of
// generated) would read as saturation.
func checkWindow(cfg TrafficConfig, probe *fabric.Network, pat fabric.Pattern) error {
	var longest netsim.Time
	bytes := cfg.PacketFlits * probe.Config().FlitBytes
	for s := range probe.Nodes() {
		d := (s + 1) % probe.Nodes()
		if perm, ok := pat.(fabric.Permutation); ok {
			d = perm.Perm(s)
		} else if s > 0 {
			d = s // uniform: node 0 to every other node
			s = 0
		}
		l, err := probe.ZeroLoadLatency(s, d, bytes)
		if err != nil {
			return err
		}
		longest = max(longest, l)
	}
	c := probe.Config().ClockPeriod
	l := int64((longest + c - 1) / c)
	need := max(l, 20*(l-cfg.WarmupCycles))
	if cfg.MeasureCycles < need {
		return fmt.Errorf("a %d-cycle measurement window after %d cycles of warm-up is too short: the pattern's packets take up to %d cycles at zero load; want a window of at least %d cycles (or a longer warm-up)",
			cfg.MeasureCycles, cfg.WarmupCycles, l, need)
	}
	// The last packets of the window need l cycles after it even on an empty network: a
	// shorter drain would call any load saturated.
	if cfg.DrainCycles < l {
		return fmt.Errorf("a %d-cycle drain is too short: the pattern's packets take up to %d cycles at zero load, so the window's last ones could not arrive in it at any load; want a drain of at least %d cycles",
			cfg.DrainCycles, l, l)
	}
	return nil
}
