package net

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lhsim/lhsim/experiment"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// quickTraffic is a sweep small enough for a test: short windows, every load run.
func quickTraffic(topo, pattern string, loads ...float64) TrafficConfig {
	cfg := DefaultTraffic()
	cfg.Topology, cfg.Pattern, cfg.Loads = experiment.MustTopology(topo), pattern, loads
	cfg.WarmupCycles, cfg.MeasureCycles, cfg.DrainCycles = 1000, 4000, 6000
	cfg.AllLoads = true
	return cfg
}

// The numbers make physical sense: nothing is accepted beyond what was offered or beyond
// the bounds; latency starts at the closed-form zero-load latency and grows with load; a
// load past the bound saturates.
func TestTrafficPhysics(t *testing.T) {
	cases := []struct {
		topo, pattern string
		loads         []float64
		saturates     bool // the last load is past what the fabric sustains
	}{
		{"torus:4x4", "uniform", []float64{0.05, 0.3, 0.6, 0.9}, false},
		{"torus:8", "tornado", []float64{0.05, 0.2, 0.5}, true}, // bound 1/3: each link carries 3 flows
		{"fattree:2x3", "uniform", []float64{0.05, 0.4, 0.95}, true},
		{"crossbar:8", "uniform", []float64{0.05, 0.3, 0.95}, true}, // head-of-line blocking: well below 1
	}
	for _, c := range cases {
		t.Run(c.topo+"/"+c.pattern, func(t *testing.T) {
			res, err := RunTraffic(quickTraffic(c.topo, c.pattern, c.loads...))
			require.NoError(t, err)
			require.Len(t, res.Rows, len(c.loads))
			require.True(t, res.ZeroLoadExact, "every lone packet took the closed form")
			require.InDelta(t, res.ZeroLoadNs, res.ZeroLoadSimNs, 1e-9)
			pairs := 0
			for i, z := range res.ZeroLoadByRouters {
				require.True(t, z.Exact)
				require.Equal(t, z.ClosedNs, z.SimNs)
				if i > 0 {
					require.Greater(t, z.Routers, res.ZeroLoadByRouters[i-1].Routers)
					require.Greater(t, z.ClosedNs, res.ZeroLoadByRouters[i-1].ClosedNs, "more routers, longer")
				}
				pairs += z.Pairs
			}
			require.Equal(t, res.ZeroLoadPairs, pairs)
			require.Positive(t, res.Bound)
			for i, row := range res.Rows {
				require.Equal(t, c.topo, row.Topology)
				require.Equal(t, c.pattern, row.Pattern)
				require.Equal(t, 4, row.PacketFlits)
				require.LessOrEqual(t, row.Accepted, row.Offered*1.05, "load %v: accepted above offered", row.Offered)
				require.LessOrEqual(t, row.Accepted, row.Generated*1.02+0.005, "load %v: accepted above generated", row.Offered)
				require.LessOrEqual(t, row.Accepted, res.Bound*1.02, "load %v: accepted above the bound %v", row.Offered, res.Bound)
				require.InDelta(t, row.LatencyNs, row.Latency*res.ClockNs, 1e-6)
				require.InDelta(t, row.AcceptedGBps, row.Accepted*float64(res.FlitBytes)/res.ClockNs, 1e-9)
				require.Zero(t, row.Faster, "no packet beats its zero-load latency")
				require.GreaterOrEqual(t, row.QueueingNs, 0.0)
				if i > 0 {
					// The mean latency mixes short and long paths (a small sample of them at
					// low load); the time spent waiting is what load adds, and it grows.
					require.Greater(t, row.QueueingNs, res.Rows[i-1].QueueingNs, "waiting grows with load")
				}
				if !row.Saturated {
					require.InDelta(t, row.Offered, row.Accepted, 0.1*row.Offered, "a stable load is accepted")
				}
			}
			low := res.Rows[0]
			require.False(t, low.Saturated)
			require.InDelta(t, res.ZeroLoadNs, low.ZeroLoadNs, 0.1*res.ZeroLoadNs, "the tagged packets' pairs are a fair sample of the pattern's")
			require.Less(t, low.QueueingNs, 0.05*low.ZeroLoadNs, "at 5%% load packets hardly wait")
			last := res.Rows[len(res.Rows)-1]
			require.Equal(t, c.saturates, last.Saturated, "last load: %+v", last)
			if c.saturates {
				require.Less(t, last.Accepted, last.Offered)
			}
		})
	}
}

// Same seed, same rows; the JSON has the fields the docs promise.
func TestTrafficDeterministicAndJSON(t *testing.T) {
	cfg := quickTraffic("fattree:2x2", "uniform", 0.1, 0.5)
	a, err := RunTraffic(cfg)
	require.NoError(t, err)
	b, err := RunTraffic(cfg)
	require.NoError(t, err)
	require.Equal(t, a.Rows, b.Rows)
	cfg.Seed++
	c, err := RunTraffic(cfg)
	require.NoError(t, err)
	require.NotEqual(t, a.Rows, c.Rows)

	js, err := json.Marshal(a)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	for _, k := range []string{"rows", "events_per_s", "flit_hops_per_s", "bound", "bisection_bound", "zero_load_ns"} {
		require.Contains(t, m, k)
	}
	rows := m["rows"].([]any)
	require.Len(t, rows, 2)
	for _, k := range []string{"topology", "pattern", "packet_flits", "offered", "accepted", "latency_cycles", "latency_ns"} {
		require.Contains(t, rows[0], k)
	}
}

// What RunTraffic refuses, it refuses before any work, as an experiment.InputError.
func TestTrafficBadInput(t *testing.T) {
	for _, c := range []struct {
		mod  func(*TrafficConfig)
		says string
	}{
		{func(c *TrafficConfig) { c.Topology = experiment.Topology{} }, "no topology"},
		{func(c *TrafficConfig) { c.Pattern = "hotspot" }, `unknown pattern "hotspot"`},
		{func(c *TrafficConfig) { c.Loads = nil }, "no loads"},
		{func(c *TrafficConfig) { c.Loads = []float64{0.5, 0.2} }, "loads must rise"},
		{func(c *TrafficConfig) { c.Loads = []float64{-1} }, "must be positive"},
		{func(c *TrafficConfig) { c.PacketFlits = 0 }, "0-flit packets"},
		{func(c *TrafficConfig) { c.PacketFlits = 65 }, "65-flit packets: want 1 to 64"},
		{func(c *TrafficConfig) { c.MeasureCycles = 0 }, "measurement >= 1"},
		{func(c *TrafficConfig) { c.Fabric.VCs = 3 }, "even number of VCs"},
		{func(c *TrafficConfig) { c.Topology = experiment.MustTopology("crossbar:1") }, "pattern uniform needs two nodes or more"},
		// BookSim2's uniform may send a node to itself, but a network of one node has nothing
		// to cross, and its bisection bound no finite value (the JSON could not be written).
		{func(c *TrafficConfig) {
			c.Topology, c.Fabric = experiment.MustTopology("crossbar:1"), fabric.BookSimConfig(4*netsim.Nanosecond)
		}, "pattern uniform needs two nodes or more"},
	} {
		cfg := quickTraffic("torus:4x4", "uniform", 0.1)
		c.mod(&cfg)
		_, err := RunTraffic(cfg)
		require.ErrorContains(t, err, c.says)
		var ie *experiment.InputError
		require.True(t, errors.As(err, &ie), "%v is an InputError", err)
	}
}

// The command itself: a table by default, JSON with --json (the same as --out writes), a
// plot, and exit status 2 with the usage for a mistake. It builds lhsim, so -short skips it.
func TestTrafficCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lhsim command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lhsim")
	build := exec.Command("go", "build", "-o", bin, "github.com/lhsim/lhsim/cmd/lhsim")
	outb, err := build.CombinedOutput()
	require.NoError(t, err, "%s", outb)
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, append([]string{"traffic"}, args...)...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, o.String(), e.String()
	}
	small := []string{"--topology", "crossbar:4", "--load", "0.1,0.3", "--warmup", "200", "--measure", "1000", "--drain", "2000"}
	code, table, stderr := run(small...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, table, "accepted GB/s")
	require.Contains(t, table, "zero-load latency")

	file, plotFile := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.svg")
	code, js, stderr := run(append(small, "--json", "--out", file, "--plot", plotFile)...)
	require.Equal(t, 0, code, stderr)
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	var got, want TrafficResult
	require.NoError(t, json.Unmarshal([]byte(js), &got))
	require.NoError(t, json.Unmarshal(saved, &want))
	require.Equal(t, want.Rows, got.Rows)
	require.Len(t, got.Rows, 2)
	svg, err := os.ReadFile(plotFile)
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")

	// The booksim router takes its delays in cycles, and prints BookSim2's statistics.
	code, js, stderr = run("--preset", "booksim", "--topology", "crossbar:4", "--load", "0.1", "--routing-delay", "2c", "--switch-latency", "1c", "--json")
	require.Equal(t, 0, code, stderr)
	var bk TrafficResult
	require.NoError(t, json.Unmarshal([]byte(js), &bk))
	require.Equal(t, "booksim-iq", bk.Router)
	require.Len(t, bk.Rows, 1)
	// crossbar: 2 channels of 2 cycles each, one router of 2+1+1+1-1 cycles, and the 3
	// flits of a 4-flit packet behind its head: 4 + 4 + 3.
	require.Equal(t, 11.0, bk.ZeroLoadCycles)
	require.True(t, bk.ZeroLoadExact)
	r := bk.Rows[0]
	require.False(t, r.Saturated)
	require.InDelta(t, 0.1, r.Accepted, 0.02)
	require.GreaterOrEqual(t, r.MinLatency, 11.0)
	require.GreaterOrEqual(t, r.Latency, r.MinLatency)
	require.GreaterOrEqual(t, r.MaxLatency, r.Latency)
	require.Greater(t, r.NetworkLatency, 0.0)
	require.LessOrEqual(t, r.NetworkLatency, r.Latency)
	require.Equal(t, 1.0, r.MeanHops)

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--topology", "torus:4x0"}, "at least 1"},
		{[]string{"--pattern", "bitrev"}, `unknown pattern "bitrev"`},
		{[]string{"--load", "0.1,x"}, "--load 0.1,x: x: not a number"},
		{[]string{"--routing-delay", "4 parsecs"}, "--routing-delay"},
		{[]string{"--vcs", "0"}, "--vcs 0: want 1 to 64"},
		{[]string{"--preset", "ns3"}, `--preset "ns3"`},
		{[]string{"--plot", "x.pdf"}, "want .svg or .png"},
		{[]string{"--arbiter", "lottery"}, "unknown arbiter"},
		{[]string{"--preset", "booksim", "--warmup", "100"}, "--warmup does not apply to --preset booksim"},
		{[]string{"--preset", "booksim", "--arbiter", "rr"}, "separable input-first"},
		{[]string{"--allow-deadlock"}, "--allow-deadlock applies to --preset booksim"},
		{[]string{"--preset", "booksim", "--topology", "torus:8x8", "--vcs", "1"}, "torus:8x8 with 1 VC can deadlock"},
		{[]string{"--preset", "booksim", "--pattern", "transpose"}, "not an even power of two"},
	} {
		code, _, stderr := run(c.args...)
		require.Equal(t, 2, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.says, "%v", c.args)
		if c.args[0] != "--plot" { // a path that cannot be used: one line, no usage
			require.Contains(t, stderr, "usage: lhsim traffic", "%v", c.args)
		}
	}
}

// A sweep whose drain runs out returns (it once waited forever for an event at the limit),
// and says why the load is saturated.
func TestTrafficDrainLimit(t *testing.T) {
	cfg := quickTraffic("torus:8", "tornado", 0.3)
	cfg.MeasureCycles, cfg.DrainCycles = 1000, 333
	done := make(chan error, 1)
	var res *TrafficResult
	go func() {
		var err error
		res, err = RunTraffic(cfg)
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("RunTraffic did not return")
	}
	require.True(t, res.Rows[0].Saturated)
	require.Contains(t, res.Rows[0].Why, "still inside after a 333-cycle drain")
}

// Past saturation a row names what caps it: the busiest links inside the network, nearly
// full, the injection links left out.
func TestTrafficCappedBy(t *testing.T) {
	for _, preset := range []string{"nsim", "booksim"} {
		cfg := DefaultTraffic()
		cfg.Topology, cfg.Loads, cfg.PacketFlits = experiment.MustTopology("torus:8x8"), []float64{0.2, 0.9}, 4
		cfg.WarmupCycles, cfg.MeasureCycles, cfg.DrainCycles = 500, 1000, 2000
		cfg.AllLoads = true
		if preset == "booksim" {
			cfg.Fabric = fabric.BookSimConfig(4 * netsim.Nanosecond)
		}
		res, err := RunTraffic(cfg)
		require.NoError(t, err, preset)
		require.Len(t, res.Rows, 2, preset)
		require.False(t, res.Rows[0].Saturated, preset)
		require.Empty(t, res.Rows[0].Busiest, "%s: a stable load names no cap", preset)
		hot := res.Rows[1]
		require.True(t, hot.Saturated, preset)
		require.Len(t, hot.Busiest, 3, preset)
		for i, l := range hot.Busiest {
			require.Contains(t, l.Link, "router ", preset)
			require.NotContains(t, l.Link, "node 0 -> ", preset)
			require.Greater(t, l.Utilisation, 0.5, "%s: %+v", preset, l)
			if i > 0 {
				require.LessOrEqual(t, l.Utilisation, hot.Busiest[i-1].Utilisation, preset)
			}
		}
		var b strings.Builder
		require.NoError(t, res.WriteTable(&b))
		require.Contains(t, b.String(), "capped at 0.900 by the busiest links", preset)
	}
}

// A topology, routing and VC count that can deadlock is refused at set-up; with
// AllowDeadlock it runs, and the row says it deadlocked (and with the VCs asked for: one).
func TestTrafficAllowDeadlock(t *testing.T) {
	cfg := DefaultTraffic()
	cfg.Topology, cfg.Pattern, cfg.Loads, cfg.PacketFlits = experiment.MustTopology("torus:8"), "tornado", []float64{1}, 16
	cfg.Fabric = fabric.BookSimConfig(4 * netsim.Nanosecond)
	cfg.Fabric.VCs, cfg.Fabric.BufferFlits = 1, 2
	_, err := RunTraffic(cfg)
	var ie *experiment.InputError
	require.ErrorAs(t, err, &ie)
	require.ErrorContains(t, err, "torus:8 with 1 VC can deadlock")
	cfg.AllowDeadlock = true
	res, err := RunTraffic(cfg)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	r := res.Rows[0]
	require.True(t, r.Deadlock, "%+v", r)
	require.True(t, r.Saturated)
	require.Contains(t, r.Why, "deadlock: 128 flits in the network and none moved")
}

// Each traffic knob works or is refused by the experiment with its reason (issue 37, class
// 4): the user's torus latencies take one value or one per dimension (two on a 3-D torus
// reused Y's for Z, four were taken), only on a torus; a drain shorter than the pattern's
// zero-load latency is refused (a 0-cycle drain called a 10% load saturated).
func TestTrafficKnobsRefusedByTheModel(t *testing.T) {
	ns := func(v ...float64) []netsim.Time {
		var out []netsim.Time
		for _, x := range v {
			out = append(out, netsim.NS(x))
		}
		return out
	}
	for _, c := range []struct {
		topo  string
		lat   []netsim.Time
		drain int64
		says  string
	}{
		{"torus:4x4x4", ns(21, 25), 6000, "torus latencies 21/25 ns: torus:4x4x4 has 3 dimensions; want one latency for all of them, or 3 (one per dimension)"},
		{"torus:4x4x4", ns(21, 25, 70, 70), 6000, "torus:4x4x4 has 3 dimensions"},
		{"torus:4x4", ns(21, 25, 70), 6000, "torus:4x4 has 2 dimensions; want one latency for all of them, or 2"},
		{"crossbar:8", ns(21), 6000, "torus latencies 21 ns: crossbar:8 has no torus links"},
		{"torus:4x4", nil, 0, "a 0-cycle drain is too short: the pattern's packets take up to"},
		{"torus:4x4", nil, 100, "a 100-cycle drain is too short"},
	} {
		cfg := quickTraffic(c.topo, "uniform", 0.1)
		cfg.TorusLatency, cfg.DrainCycles = c.lat, c.drain
		_, err := RunTraffic(cfg)
		var ie *experiment.InputError
		require.ErrorAs(t, err, &ie, "%s %v drain %d", c.topo, c.lat, c.drain)
		require.ErrorContains(t, err, c.says)
	}
	// What is taken does what it says: one value for every dimension, or one per dimension,
	// and each changes the zero-load latency by its links.
	zero := func(lat []netsim.Time) float64 {
		cfg := quickTraffic("torus:4x4x4", "uniform", 0.05)
		cfg.TorusLatency = lat
		r, err := RunTraffic(cfg)
		require.NoError(t, err, "%v", lat)
		require.True(t, r.ZeroLoadExact)
		return r.ZeroLoadNs
	}
	require.Equal(t, zero(ns(30)), zero(ns(30, 30, 30)))
	require.Less(t, zero(ns(21, 25, 70)), zero(ns(21, 25, 80)), "Z's latency is used")
	require.Less(t, zero(ns(21, 25, 70)), zero(ns(21, 35, 70)), "Y's latency is used")
}

// --preset booksim checks its own router's memory: a torus whose booksim estimate passes the
// limit where the event model's would not is refused before any work, naming the booksim
// router (the check sized the event model's router, under half of it).
func TestTrafficBookSimMemoryCheck(t *testing.T) {
	limit := experiment.MemoryLimit().Bytes
	cfg := DefaultTraffic()
	cfg.Fabric = fabric.BookSimConfig(4 * netsim.Nanosecond)
	cfg.Loads = []float64{0.1}
	for z := 2; z <= 1024; z++ {
		topo, err := fabric.NewTorus(64, 64, z)
		require.NoError(t, err)
		// Well past the limit, which moves with the memory the machine has free.
		if 2*booksim.Footprint(topo, cfg.Fabric) <= limit*3/2 {
			continue
		}
		require.Less(t, 2*fabric.Footprint(topo, cfg.Fabric), limit*3/4, "torus:64x64x%d: the event model's estimate fits", z)
		cfg.Topology = experiment.TopologyOf(topo)
		err = cfg.Validate()
		require.Error(t, err, cfg.Topology.String())
		require.True(t, experiment.IsInput(err))
		require.ErrorContains(t, err, "the booksim router")
		require.ErrorIs(t, err, fabric.ErrTooBig)
		return
	}
	t.Skipf("no torus:64x64xZ passes this machine's limit of %d bytes", limit)
}
