package experiment_test

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// A topology is read once: the text as written (which reports print) and the network
// fabric.ParseTopology builds from it; what does not parse is refused with fabric's own
// message, the one users see after "--topology: ".
func TestTopologyParsedOnce(t *testing.T) {
	for _, s := range []string{"torus:4x4", "Torus:4X4", " crossbar:8", "xbar:8", "fattree:2x3"} {
		got, err := experiment.ParseTopology(s)
		require.NoError(t, err, s)
		want, err := fabric.ParseTopology(s)
		require.NoError(t, err, s)
		require.Equal(t, s, got.String(), "the text as written")
		require.Equal(t, want.String(), got.Fabric().String(), s)
		require.Equal(t, want.Nodes(), got.Nodes(), s)
		require.False(t, got.IsZero(), s)
	}
	for _, s := range []string{"", "ring:8", "torus:0", "torus:4y4", "crossbar:1x2"} {
		_, err := experiment.ParseTopology(s)
		_, want := fabric.ParseTopology(s)
		require.EqualError(t, err, want.Error(), "%q", s)
	}
	var none experiment.Topology
	require.True(t, none.IsZero())
	require.Zero(t, none.Nodes())
	require.Nil(t, none.Fabric())
}

// JSON and flag.TextVar carry a topology as its text and read it back to the same network;
// the empty text is none, as the zero Topology marshals.
func TestTopologyAsText(t *testing.T) {
	type config struct {
		Topology experiment.Topology
		List     experiment.Topologies
	}
	in := config{experiment.MustTopology("Torus:4x4"), experiment.MustTopologies("crossbar:4, fattree:2x2")}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	require.JSONEq(t, `{"Topology": "Torus:4x4", "List": "crossbar:4,fattree:2x2"}`, string(b))
	var out config
	require.NoError(t, json.Unmarshal(b, &out))
	require.Equal(t, "torus:4x4", out.Topology.Fabric().String())
	require.Equal(t, in.Topology.String(), out.Topology.String())
	require.Equal(t, "crossbar:4,fattree:2x2", out.List.String())
	require.Equal(t, 4, out.List[1].Nodes())

	b, err = json.Marshal(config{})
	require.NoError(t, err)
	out = config{Topology: in.Topology}
	require.NoError(t, json.Unmarshal(b, &out))
	require.True(t, out.Topology.IsZero(), "none marshals as \"\" and reads back as none")
	require.Empty(t, out.List)
	require.ErrorContains(t, json.Unmarshal([]byte(`{"Topology": "ring:8"}`), &out), `unknown kind "ring"`)
	require.ErrorContains(t, json.Unmarshal([]byte(`{"List": "crossbar:4,ring:8"}`), &out), `topology "ring:8"`)

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var topo experiment.Topology
	fs.TextVar(&topo, "topology", experiment.MustTopology("crossbar:16"), "")
	require.Equal(t, "crossbar:16", fs.Lookup("topology").DefValue)
	require.NoError(t, fs.Parse([]string{"-topology", "torus:2x2x2"}))
	require.Equal(t, 8, topo.Nodes())
	require.Equal(t, "torus:2x2x2", fs.Lookup("topology").Value.String())
}

// A list drops blanks and empty items, as the command lines' lists do, and names the first
// item that does not parse.
func TestTopologiesList(t *testing.T) {
	ts, err := experiment.ParseTopologies(" crossbar:64,, fattree:4x3 ,torus:16x16x16")
	require.NoError(t, err)
	require.Equal(t, "crossbar:64,fattree:4x3,torus:16x16x16", ts.String())
	require.Equal(t, []int{64, 64, 4096}, []int{ts[0].Nodes(), ts[1].Nodes(), ts[2].Nodes()})
	ts, err = experiment.ParseTopologies("")
	require.NoError(t, err)
	require.Empty(t, ts)
	_, err = experiment.ParseTopologies("crossbar:4,ring:8,torus:0")
	require.EqualError(t, err, `topology "ring:8": unknown kind "ring" (want crossbar, fattree or torus)`)
}

// CheckTopology sizes a parsed topology without reading it again: none, too few nodes and too
// much memory are refused with the flag's name.
func TestCheckTopology(t *testing.T) {
	fc := fabric.DefaultConfig()
	_, err := experiment.CheckTopology("topology", experiment.Topology{}, fc, 1)
	require.EqualError(t, err, "--topology: no topology")
	_, err = experiment.CheckTopology("topology", experiment.MustTopology("crossbar:1"), fc, 2)
	require.EqualError(t, err, "--topology crossbar:1: 1 node; want at least 2")
	require.True(t, experiment.IsInput(err))
	topo, err := experiment.CheckTopology("torus", experiment.MustTopology("torus:4x4"), fc, 2)
	require.NoError(t, err)
	require.Equal(t, "torus:4x4", topo.String())
}
