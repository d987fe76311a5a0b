package mbcf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
	"github.com/lhsim/lhsim/netsim/mbcf"
)

func smallMBCF() Config {
	cfg := Default()
	cfg.Iterations, cfg.Writes = 2, 64
	return cfg
}

// The JSON is the shape exactly: rtt_us by network, command and size (as strings),
// send_overhead_us by size, peak_mb_s by network and size; round trips are the closed form
// plus the timer's 1.2 µs.
func TestMBCFJSON(t *testing.T) {
	r, err := Run(smallMBCF())
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r))
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(buf.Bytes(), &top))
	require.Len(t, top, 3)
	var got struct {
		RTT  map[string]map[string]map[string]float64 `json:"rtt_us"`
		Send map[string]float64                       `json:"send_overhead_us"`
		Peak map[string]map[string]float64            `json:"peak_mb_s"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	sizes := []string{"4", "16", "64", "256", "1024"}
	for _, nw := range []string{"100basetx", "10baset"} {
		m, err := mbcf.ForNetwork(nw)
		require.NoError(t, err)
		require.Len(t, got.RTT[nw], 3)
		for _, o := range mbcfOps {
			require.Len(t, got.RTT[nw][o.name], len(sizes))
			for _, s := range sizes {
				n, _ := strconv.Atoi(s)
				require.InDelta(t, mbcf.Model(m, o.op, n).Microseconds()+1.2, got.RTT[nw][o.name][s], 1e-9, "%s %s %s", nw, o.name, s)
			}
		}
		require.Len(t, got.Peak[nw], 6)
		prev := 0.0
		for _, s := range []string{"4", "16", "64", "256", "1024", "1408"} {
			v := got.Peak[nw][s]
			require.Greater(t, v, prev, "%s: bandwidth grows with size", nw)
			require.Less(t, v, m.Medium.RawRate()/1e6, "%s: under the raw rate", nw)
			prev = v
		}
		require.Greater(t, prev, 0.8*m.Medium.RawRate()/1e6, "%s: large writes nearly fill the wire, as the seed found", nw)
	}
	require.Len(t, got.Send, len(sizes))
	h := mbcf.DefaultHost()
	for _, s := range sizes {
		n, _ := strconv.Atoi(s)
		require.InDelta(t, (h.SendBase+netsim.Time(n)*h.CopyByte).Microseconds()+1.2, got.Send[s], 1e-9)
	}
}

// The table puts every figure beside the paper's, marks the three calibration cells, and
// counts what is within ±15 %.
func TestMBCFTable(t *testing.T) {
	r, err := Run(smallMBCF())
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, r.WriteTable(&buf))
	out := buf.String()
	for _, s := range []string{"Table 1: round trip over 100BASE-TX", "Table 2: round trip over 10BASE-T", "Table 3: send system call",
		"Table 4: peak bandwidth", "51.20 / 51 (+0.4%) *", "213.00 / 213 (+0.0%) *", "/ 1930 (", "/ 11.24 (", "within ±15 %", "(calibrated: inputs)"} {
		require.Contains(t, out, s)
	}
	require.Equal(t, 3, strings.Count(out, ") *"), "the calibration cells, and only they, are marked")
	require.NotContains(t, out, "bandwidth runs:", "no protocol counters on a clean link without collisions")

	dir := t.TempDir()
	for _, f := range []string{"mbcf.svg", "mbcf.png"} {
		p := filepath.Join(dir, f)
		require.NoError(t, r.WritePlot(p))
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000))
	}
	require.Error(t, r.WritePlot(filepath.Join(dir, "mbcf.txt")))
}

// On a lossy link every figure still comes out (the protocol recovers), the table says what
// it did, and a bad configuration is refused.
func TestMBCFLossy(t *testing.T) {
	cfg := smallMBCF()
	cfg.Networks = []string{"100basetx"}
	cfg.Faults = ether.Faults{Drop: 0.05, Reorder: 0.05, Seed: 2}
	r, err := Run(cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, r.WriteTable(&buf))
	require.Contains(t, buf.String(), "100basetx bandwidth runs: 384 commands applied")
	require.Contains(t, buf.String(), "lossy link")

	for _, bad := range []func(*Config){
		func(c *Config) { c.Iterations = 0 },
		func(c *Config) { c.Writes = 30 },
		func(c *Config) { c.GroupsInFlight = 0 },
		func(c *Config) { c.Networks = []string{"token-ring"} },
		func(c *Config) { c.Faults.Drop = 1 },
	} {
		c := smallMBCF()
		bad(&c)
		_, err := Run(c)
		require.Error(t, err)
	}
}
