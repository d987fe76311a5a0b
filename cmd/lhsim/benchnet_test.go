package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lhsim bench-net measures every router, topology, packet size and load asked for, one row
// each, with the counts the rates are made of; a bad router or topology is a usage error.
func TestBenchNet(t *testing.T) {
	code, out, stderr := run(t, nil, "bench-net", "--topologies", "torus:4x4,fattree:2x3", "--loads", "0.1,1",
		"--packet-flits", "1,4", "--warmup", "200", "--measure", "500", "--json")
	require.Equal(t, 0, code, stderr)
	var rows []benchNetRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 2*2*2*2)
	for _, r := range rows {
		require.Positive(t, r.Events, "%+v", r)
		require.Positive(t, r.FlitHops, "%+v", r)
		require.Equal(t, int64(500), r.Cycles)
		if r.Load == 0.1 {
			require.InDelta(t, 0.1, r.Accepted, 0.03, "%+v", r)
		}
	}
	code, out, _ = run(t, nil, "bench-net", "--topologies", "torus:4x4", "--routers", "nsim", "--loads", "0.1", "--packet-flits", "1", "--measure", "300")
	require.Equal(t, 0, code)
	require.Contains(t, out, "│ torus:4x4 │ nsim")
	for _, bad := range [][]string{{"--routers", "omnet"}, {"--topologies", "ring:5"}} {
		code, _, stderr := run(t, nil, append([]string{"bench-net"}, bad...)...)
		require.Equal(t, 2, code, "%v", bad)
		require.True(t, strings.HasPrefix(stderr, "lhsim bench-net: "), stderr)
	}
}
