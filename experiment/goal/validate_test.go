package goal

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
)

// Every knob lhsim goal takes is used by the network it runs on, or refused by the config
// with the reason (issue 37, class 4): before, the LogGP flags on the packet network and the
// topology on --network loggp were ignored without a word, and a node named twice was
// taken.
func TestGoalConfigRefusesKnobsItDoesNotUse(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Config)
		says string // "" : valid
	}{
		{"packet default", func(*Config) {}, ""},
		{"packet S", func(c *Config) { c.LogGP.S = 100 }, ""},
		{"packet L", func(c *Config) { c.LogGP.L = 5_000_000 }, "the LogGOPS model's parameters (L, o, g, G, O) apply to --network loggp"},
		{"packet G", func(c *Config) { c.LogGP.PerByteG = 1 }, "apply to --network loggp"},
		{"packet stdsort", func(c *Config) { c.StdSort = true }, "--stdsort orders the LogGOPS model's operations"},
		{"packet rtl twice", func(c *Config) { c.RTLNodes = []int{1, 2, 1} }, "RTL nodes: 1 is named twice"},
		{"packet matcher rtl twice", func(c *Config) { c.Matcher, c.MatcherRTLNodes = "alpu:64", []int{0, 0} }, "matcher RTL nodes: 0 is named twice"},
		{"loggp default", func(c *Config) { c.Network = "loggp" }, ""},
		{"loggp L", func(c *Config) { c.Network, c.LogGP.L = "loggp", 5_000_000 }, ""},
		{"loggp topology", func(c *Config) { c.Network, c.Topology = "loggp", "torus:4x4" }, "a topology applies to the packet network"},
		{"loggp node latency", func(c *Config) { c.Network, c.Cluster.NodeLatency = "loggp", 2*netsim.Microsecond }, "a node latency applies to the packet network"},
		{"loggp rtl", func(c *Config) { c.Network, c.RTLNodes = "loggp", []int{1} }, "RTL nodes applies to the packet network"},
		{"loggp matcher", func(c *Config) { c.Network, c.Matcher = "loggp", "list" }, "a matcher applies to the packet network"},
		{"other network", func(c *Config) { c.Network = "ethernet" }, `network "ethernet": want loggp or packet`},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := cfg.Validate()
		if c.says == "" {
			require.NoError(t, err, c.name)
		} else {
			require.ErrorContains(t, err, c.says, c.name)
		}
	}
}

// The matchers study refuses a matcher, workload or RTL node named twice (list,list ran
// the list matcher twice; bins:064 is bins:64).
func TestMatchersConfigRefusesRepeats(t *testing.T) {
	for _, c := range []struct {
		cfg  MatchersConfig
		says string
	}{
		{MatchersConfig{Matchers: []string{"list", "list"}}, "matchers: list is named twice"},
		{MatchersConfig{Matchers: []string{"bins:64", "bins:064"}}, "matchers: bins:64 is named twice"},
		{MatchersConfig{Matchers: []string{"list"}, Workloads: []string{"incast", "incast"}}, "workloads: incast is named twice"},
		{MatchersConfig{Matchers: []string{"lhs"}, RTLNodes: []int{3, 3}}, "RTL nodes: 3 is named twice"},
	} {
		require.ErrorContains(t, c.cfg.Validate(), c.says)
		_, err := c.cfg.Prepare()
		require.ErrorContains(t, err, c.says, "Prepare validates")
	}
	require.NoError(t, MatchersConfig{Matchers: []string{"list", "bins:64", "lhs"}, Workloads: []string{"incast"}, RTLNodes: []int{0, 1}}.Validate())
}
