package goal

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	goalsim "github.com/lhsim/lhsim/netsim/goal"
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
		{"loggp topology", func(c *Config) { c.Network, c.Topology = "loggp", experiment.MustTopology("torus:4x4") }, "a topology applies to the packet network"},
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

// A send larger than the LHS receive path takes (1 MiB) to one of --rtl-nodes is refused
// before the run, as input; one of 1 MiB runs (it failed halfway: "message longer than 1
// MiB").
func TestRTLNodesRefuseMessagesPastOneMiB(t *testing.T) {
	sched := func(size int) *goalsim.Schedule {
		s, err := goalsim.Parse(strings.NewReader(fmt.Sprintf("num_ranks 2\nrank 0 {\n  l1: send %db to 1 tag 1\n}\nrank 1 {\n  l1: recv %db from 0 tag 1\n}\n", size, size)))
		require.NoError(t, err)
		return s
	}
	cfg := DefaultConfig()
	cfg.Topology, cfg.RTLNodes = experiment.MustTopology("crossbar:2"), []int{1}
	_, err := RunSchedule(cfg, sched(1<<20+1))
	var ie *experiment.InputError
	require.ErrorAs(t, err, &ie)
	require.ErrorContains(t, err, "rank 0 line 3: a send of 1048577 bytes to node 1, whose receive path is the LHS RTL (--rtl-nodes): it takes messages of at most 1048576 bytes (1 MiB)")
	cfg.RTLNodes = nil
	_, err = RunSchedule(cfg, sched(1<<20+1))
	require.NoError(t, err, "the DMA receive path takes any size")
}

// A run's memory estimate is the network's and, when the matcher knows it, its share
// (MemoryUser); the refusal lists both (the API a matcher's tables join).
func TestPacketEstimateTakesTheMatchersShare(t *testing.T) {
	old := debug.SetMemoryLimit(64 << 20)
	defer debug.SetMemoryLimit(old)
	topo, err := fabric.ParseTopology("crossbar:4")
	require.NoError(t, err)
	cfg := DefaultConfig()
	require.NoError(t, packetFits(topo, cfg, 4), "a small network fits in 64 MiB")
	var u MemoryUser = tables{}
	b, what := u.Memory(1024)
	est := fabric.Estimate(topo, cfg.Fabric)
	est.Add(what, b)
	err = est.Check(memlimit.Current())
	require.ErrorIs(t, err, memlimit.ErrTooBig)
	require.ErrorContains(t, err, "its 4 nodes, 4 router ports and 2 VCs per port")
	require.ErrorContains(t, err, "+ 1024 ranks' bins (14.0 GiB)")
	require.ErrorContains(t, err, "and the limit is 0.1 GiB (GOMEMLIMIT)")
}

// tables is a matcher's share as a MemoryUser reports it: 14 MiB a rank.
type tables struct{}

func (tables) Memory(ranks int) (int64, string) {
	return int64(ranks) * 14 << 20, fmt.Sprintf("%d ranks' bins", ranks)
}
