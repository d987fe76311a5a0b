package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/slurm"
)

// A topology is read at its flag, once; what does not parse is refused there with the one
// form a refused value takes (exit 2, one line, the usage), word for word what lhsim said when
// the experiments read the text themselves (docs/bad-input.md).
func TestTopologyFlagsRefuseAsBefore(t *testing.T) {
	goal := "../../netsim/goal/testdata/pingpong.goal"
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"traffic", "--topology", "torus:0"}, `lhsim traffic: --topology: topology "torus:0": size 0 must be at least 1`},
		{[]string{"traffic", "--topology", ""}, `lhsim traffic: --topology: topology "": want crossbar:N, fattree:KxN or torus:XxYxZ`},
		{[]string{"barrier", "--topology", "crossbar:4,ring:8"}, `lhsim barrier: --topology: topology "ring:8": unknown kind "ring" (want crossbar, fattree or torus)`},
		{[]string{"barrier", "--topology", "crossbar:1"}, "lhsim barrier: --topology crossbar:1: 1 node; want at least 2"},
		{[]string{"barrier", "--topology", " , "}, "lhsim barrier: --topology: name at least one topology"},
		{[]string{"alltoall", "--torus", "4y4"}, `lhsim alltoall: --torus: topology "torus:4y4": size "4y4" is not a number`},
		{[]string{"alltoall", "--torus", "torus:4y4"}, `lhsim alltoall: --torus: topology "torus:4y4": size "4y4" is not a number`},
		{[]string{"goal", "--schedule", goal, "--topology", "foo"}, `lhsim goal: --topology: topology "foo": want crossbar:N, fattree:KxN or torus:XxYxZ`},
		{[]string{"incast", "--topology", "torus:x"}, `lhsim incast: --topology: topology "torus:x": size "" is not a number`},
		{[]string{"incast", "--topology", "crossbar:2", "--receivers", "2"}, "lhsim incast: --receivers 2: crossbar:2 has 2 nodes, and at least one must send: want 1 to 1"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		require.Equal(t, 2, code, "lhsim %q: %s", c.args, stderr)
		first, rest, _ := strings.Cut(stderr, "\n")
		require.Equal(t, c.says, first, "lhsim %q", c.args)
		require.True(t, strings.HasPrefix(rest, "usage: lhsim "+c.args[0]), "lhsim %q: %s", c.args, rest)
	}
	// goal's empty --topology is none: the machine sized to the schedule, as without the flag.
	code, out, stderr := run(t, nil, "goal", "--schedule", goal, "--topology", "", "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"params": "crossbar:3, node latency 1.000 µs`)
}

// A topology flag gives back the text it read, so that --slurm's array tasks (slurm.Args)
// run with the same topology, as the user wrote it; a flag left alone is not passed on.
func TestTopologyFlagsRoundTrip(t *testing.T) {
	parse := func(args ...string) (experiment.Topology, experiment.Topologies, *flag.FlagSet) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		one, list := experiment.MustTopology("crossbar:16"), experiment.MustTopologies("crossbar:64,fattree:4x3")
		fa, fb := topologyVar(fs, &one, "topology", false, ""), topologiesVar(fs, &list, "topologies", "")
		require.NoError(t, fs.Parse(args))
		require.NoError(t, fa.err)
		require.NoError(t, fb.err)
		return one, list, fs
	}
	one, list, fs := parse("--topology", "Torus:4x4", "--topologies", "crossbar:4, fattree:2x2")
	require.Equal(t, "Torus:4x4", one.String())
	require.Equal(t, 16, one.Nodes())
	require.Equal(t, "crossbar:4,fattree:2x2", list.String())
	args := slurm.Args(fs)
	require.Equal(t, []string{"-topologies=crossbar:4, fattree:2x2", "-topology=Torus:4x4"}, args)
	again, listAgain, _ := parse(args...)
	require.Equal(t, one, again)
	require.Equal(t, list, listAgain)

	_, _, fs = parse("--topology", "crossbar:16")
	require.Empty(t, slurm.Args(fs), "the default, given or not, is not passed on")

	var topo experiment.Topology
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	f := topologyVar(fs, &topo, "topology", true, "")
	require.NoError(t, fs.Parse([]string{"--topology", ""}))
	require.NoError(t, f.err, "optional: the empty text is none")
	require.True(t, topo.IsZero())
	require.NoError(t, fs.Parse([]string{"--topology", "ring:8"}))
	require.EqualError(t, f.err, `topology "ring:8": unknown kind "ring" (want crossbar, fattree or torus)`, "kept for the command to refuse")
}
