package rx

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
)

// The three paths run the same workload to the same cycle, and the JSON has the keys users
// script against.
func TestBenchJSON(t *testing.T) {
	r, err := Bench(2000, 7, 1)
	require.NoError(t, err)
	require.Equal(t, r.Native.Cycles, r.Cgo.Cycles)
	require.Equal(t, r.Cgo.Cycles, r.GoModel.Cycles)
	require.Greater(t, r.Cgo.Cycles, uint64(2000*2), "at least two cycles a message")
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &top))
	require.Equal(t, r.Cgo.Cycles, r.Plugin.Cycles)
	for _, k := range []string{"native", "cgo", "gomodel", "plugin"} {
		require.Contains(t, top, k)
		var path map[string]float64
		require.NoError(t, json.Unmarshal(top[k], &path))
		require.Greater(t, path["cycles_per_s"], 0.0, k)
		require.Greater(t, path["msgs_per_s"], 0.0, k)
	}
}

// The demo stores every message where the LHS rule says, and the host reads each back intact.
func TestDemo(t *testing.T) {
	for _, lhs := range []bool{true, false} {
		r, err := Demo(DemoConfig{Device: device.Config{Model: device.Lockstep, Board: gosim.BoardConfig{Seed: 3}}, Driver: drivers.Config{LHS: lhs}})
		require.NoError(t, err)
		require.Len(t, r.Messages, len(demoSizes))
		for i, m := range r.Messages {
			require.Equal(t, i, m.Seq)
			if demoSizes[i].field > 65535 && !lhs {
				require.Equal(t, "-", m.Check)
				continue
			}
			require.Equal(t, "ok", m.Check, "message %d", i)
		}
		require.Equal(t, 10, r.Counters["MSG_COUNT"])
		require.Equal(t, 2, r.Counters["MISMATCH_COUNT"])
		if lhs {
			require.Equal(t, "SPLIT", r.Messages[3].Flags, "57 bytes is past the 56-byte entry")
			require.Equal(t, "", r.Messages[2].Flags, "56 bytes fits")
		} else {
			require.Equal(t, 1, r.Counters["DROP_COUNT"])
		}
	}
}
