package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment/net"
)

// lhsim bench-net measures every router, topology, packet size and load asked for, one row
// each, with the counts the rates are made of; a bad router or topology is a usage error.
func TestBenchNet(t *testing.T) {
	code, out, stderr := run(t, nil, "bench-net", "--topologies", "torus:4x4,fattree:2x3", "--loads", "0.1,1",
		"--packet-flits", "1,4", "--warmup", "200", "--measure", "500", "--json")
	require.Equal(t, 0, code, stderr)
	var res net.BenchNetResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, 1, res.Jobs, "--jobs 1 unless asked")
	rows := res.Rows
	require.Len(t, rows, 2*2*2*2)
	for _, r := range rows {
		require.Positive(t, r.Events, "%+v", r)
		require.Positive(t, r.FlitHops, "%+v", r)
		require.Equal(t, int64(500), r.Cycles)
		if r.Load == 0.1 {
			require.InDelta(t, 0.1, r.Accepted, 0.03, "%+v", r)
		}
		require.Equal(t, "process", r.CPUCounted)
		require.Positive(t, r.BytesPerNode)
		require.Positive(t, r.WallSeconds)
		require.Positive(t, r.ThreadCPUSeconds)
		require.LessOrEqual(t, r.ThreadCPUSeconds, r.CPUSeconds+0.002, "%+v: a thread's CPU is part of the process's", r)
	}
	require.GreaterOrEqual(t, res.WallSeconds, rows[0].WallSeconds)
	// Rows measured at once: the same rows in the same order, each counting the same events,
	// its rates per CPU second of its own thread, no heap.
	code, out, stderr = run(t, nil, "bench-net", "--topologies", "torus:4x4,fattree:2x3", "--loads", "0.1,1",
		"--packet-flits", "1,4", "--warmup", "200", "--measure", "500", "--json", "--jobs", "3")
	require.Equal(t, 0, code, stderr)
	var at net.BenchNetResult
	require.NoError(t, json.Unmarshal([]byte(out), &at))
	require.Equal(t, 3, at.Jobs)
	require.Len(t, at.Rows, len(rows))
	for i, r := range at.Rows {
		one := rows[i]
		require.Equal(t, [6]any{one.Topology, one.Router, one.Load, one.PacketFlits, one.Events, one.FlitHops},
			[6]any{r.Topology, r.Router, r.Load, r.PacketFlits, r.Events, r.FlitHops}, "row %d", i)
		require.Equal(t, one.Accepted, r.Accepted)
		require.Equal(t, "thread", r.CPUCounted)
		require.Equal(t, r.ThreadCPUSeconds, r.CPUSeconds)
		require.Zero(t, r.BytesPerNode)
		require.InDelta(t, float64(r.Events)/r.CPUSeconds, r.EventsPerCPUS, 1e-6*r.EventsPerCPUS)
	}
	require.NotContains(t, out, "bytes_per_node")
	code, out, _ = run(t, nil, "bench-net", "--topologies", "torus:4x4", "--routers", "nsim", "--loads", "0.1", "--packet-flits", "1", "--measure", "300")
	require.Equal(t, 0, code)
	require.Contains(t, out, "│ torus:4x4 │ nsim")
	require.Contains(t, out, "│ wall s │ KB / node │")
	require.Regexp(t, `\n1 rows in [0-9.]+ s wall, --jobs 1 `, out)
	code, out, _ = run(t, nil, "bench-net", "--topologies", "torus:4x4", "--routers", "nsim", "--loads", "0.1,0.2", "--packet-flits", "1", "--measure", "300", "--jobs", "2")
	require.Equal(t, 0, code)
	require.Contains(t, out, "rates per CPU second of the row's own thread")
	require.Regexp(t, `│ [0-9.]+ +│ - +│\n`, out, "no heap per node")
	for _, bad := range [][]string{{"--routers", "omnet"}, {"--topologies", "ring:5"}} {
		code, _, stderr := run(t, nil, append([]string{"bench-net"}, bad...)...)
		require.Equal(t, 2, code, "%v", bad)
		require.True(t, strings.HasPrefix(stderr, "lhsim bench-net: "), stderr)
	}
}
