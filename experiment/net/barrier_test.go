package net

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
)

func smallBarrier() BarrierConfig {
	cfg := DefaultBarrier()
	cfg.Topologies = experiment.MustTopologies("crossbar:16,fattree:2x3,torus:4x4x2")
	cfg.NodeLatency = []netsim.Time{0, netsim.Microsecond}
	return cfg
}

// The sweep's rows carry the keys users script against, and show the seed's findings:
// recursive doubling beats ring beyond two processes; with recursive doubling a power of two
// beats the count just above it; the simulation never beats its contention-free model and
// stays within 10 % of it.
func TestBarrierSweep(t *testing.T) {
	r, err := RunBarrier(smallBarrier())
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r))
	var decoded struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &decoded))
	require.Len(t, decoded.Rows, len(r.Rows))
	for _, k := range []string{"topology", "algorithm", "processes", "node_latency_us", "simulated_us", "model_us"} {
		require.Contains(t, decoded.Rows[0], k)
	}

	at := map[[4]any]float64{}
	for _, row := range r.Rows {
		at[[4]any{row.Topology, row.Algorithm, row.Processes, row.NodeLatencyUs}] = row.SimulatedUs
		require.GreaterOrEqual(t, row.SimulatedUs, row.ModelUs-1e-9, "%+v", row)
		require.InEpsilon(t, row.ModelUs, row.SimulatedUs, 0.10, "%+v", row)
	}
	for _, topo := range []string{"crossbar:16", "fattree:2x3", "torus:4x4x2"} {
		for _, p := range []int{4, 8, 16} {
			rd, ok := at[[4]any{topo, "recursive_doubling", p, 1.0}]
			if !ok {
				continue // more processes than the topology's nodes
			}
			require.Less(t, rd, at[[4]any{topo, "ring", p, 1.0}], "%s, %d", topo, p)
			if next, ok := at[[4]any{topo, "recursive_doubling", p + 1, 1.0}]; ok {
				require.Less(t, rd, next, "%s: %d against %d", topo, p, p+1)
			}
		}
	}
	require.NotEmpty(t, r.PutLatency)
	for _, p := range r.PutLatency {
		require.Equal(t, p.LandedModelNs, p.LandedNs, "a lone put lands as the closed form says: %+v", p)
		require.Equal(t, p.DoneModelNs, p.DoneNs, "and completes as it says: %+v", p)
	}
	var table bytes.Buffer
	require.NoError(t, r.WriteTable(&table))
	require.Contains(t, table.String(), "torus:4x4x2, node latency 1.0 µs")
	require.NoError(t, r.WritePlot(t.TempDir()+"/b.svg"))
}

// Same configuration, same numbers, bit for bit.
func TestBarrierDeterministic(t *testing.T) {
	cfg := smallBarrier()
	cfg.Topologies = cfg.Topologies[2:]
	a, err := RunBarrier(cfg)
	require.NoError(t, err)
	b, err := RunBarrier(cfg)
	require.NoError(t, err)
	require.Equal(t, a.Rows, b.Rows)
}

func TestBarrierBadInput(t *testing.T) {
	cfg := smallBarrier()
	cfg.Processes = []int{40}
	_, err := RunBarrier(cfg)
	require.ErrorContains(t, err, "40 processes on crossbar:16 (16 nodes)")
	cfg = smallBarrier()
	cfg.Topologies = experiment.MustTopologies("crossbar:1")
	_, err = RunBarrier(cfg)
	require.ErrorContains(t, err, "crossbar:1 has 1 node; a barrier needs 2 processes")
}
