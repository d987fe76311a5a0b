package lhsnic

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/plugin"
)

// recorder keeps what reached the receive path, in order.
type recorder struct {
	*Node
	msgs [][]byte
}

func (r *recorder) Arrive(now netsim.Time, msg []byte, done func(netsim.Time)) error {
	r.msgs = append(r.msgs, msg)
	return r.Node.Arrive(now, msg, done)
}

type run struct {
	commits  []Commit
	msgs     [][]byte
	finished []netsim.Time
	stalls   uint64
	got      int
}

// machine is a crossbar of ranks nodes whose rank 0 receives through an LHS node.
func machine(t *testing.T, cfg Config, ranks int) (*cluster.Cluster, *recorder) {
	t.Helper()
	tp, err := fabric.ParseTopology(fmt.Sprintf("crossbar:%d", ranks))
	require.NoError(t, err)
	c, err := cluster.Build(tp, fabric.DefaultConfig(), cluster.DefaultConfig())
	require.NoError(t, err)
	node, err := New(c.Network().Engine(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, node.Close(), "closing the device (lockstep reports here)") })
	rec := &recorder{Node: node}
	require.NoError(t, c.SetReceivePath(0, rec))
	return c, rec
}

// incast sends `per` messages from every other rank of a crossbar to rank 0, whose receive
// path is an LHS node, and has rank 0 receive them all.
func incast(t *testing.T, cfg Config, ranks, per int, seed uint64) run {
	t.Helper()
	c, rec := machine(t, cfg, ranks)
	node := rec.Node
	got := 0
	res, err := c.Run(ranks, func(r *cluster.Rank) {
		if r.ID() == 0 {
			for range (ranks - 1) * per {
				r.Recv(cluster.AnySource, cluster.AnyTag)
				got++
			}
			return
		}
		rng := rand.New(rand.NewPCG(seed, uint64(r.ID())))
		for i := range per {
			r.Send(0, i, 16+rng.IntN(300))
		}
	})
	require.NoError(t, err, "seed %d", seed)
	return run{commits: node.Commits, msgs: rec.msgs, finished: res.Finished, stalls: node.Stalls, got: got}
}

// Every message that reaches an RTL node is committed once, in arrival order, and its LH
// entry holds its bytes.
func TestRTLNodeTakesEveryMessage(t *testing.T) {
	cfg := DefaultConfig()
	r := incast(t, cfg, 8, 30, 1)
	require.Equal(t, 7*30, r.got)
	require.Len(t, r.commits, 7*30)
	require.Len(t, r.msgs, 7*30)
	for i, c := range r.commits {
		require.Equal(t, len(r.msgs[i]), c.Size, "commit %d", i)
		if i > 0 {
			require.Greater(t, c.Cycle, r.commits[i-1].Cycle)
		}
	}
}

// The same network run with the RTL (in this process and in a plugin process), the golden
// model, both in lockstep and the transaction-level model commits every message at the same
// cycle and ends at the same times: the models' agreement with the RTL holds inside the
// network, with LHS on and off.
func TestNodeKindsAgree(t *testing.T) {
	kinds := []struct {
		name string
		set  func(*Config)
	}{
		{"rtl", func(*Config) {}},
		{"rtl-plugin", func(c *Config) { c.Device.Bridge = device.Plugin }},
		{"go", func(c *Config) { c.Device.Model = device.Go }},
		{"lockstep", func(c *Config) { c.Device.Model = device.Lockstep }},
		{"tlm", func(c *Config) { c.TLM = true }},
	}
	cases := []struct {
		lhs  bool
		per  int
		hold netsim.Time // the host's first release: the LH buffer (1024 entries) fills first
	}{{true, 25, 0}, {false, 25, 0}, {true, 160, 300 * netsim.Microsecond}}
	for _, c := range cases {
		var runs []run
		for _, k := range kinds {
			cfg := DefaultConfig()
			cfg.LHS, cfg.HoldReleases = c.lhs, c.hold
			k.set(&cfg)
			runs = append(runs, incast(t, cfg, 8, c.per, 2))
		}
		if c.hold > 0 {
			before := 0
			for _, cm := range runs[0].commits {
				if cm.Time < c.hold {
					before++
				}
			}
			t.Logf("%d commits before %v, %d stalls", before, c.hold, runs[0].stalls)
			require.Equal(t, 1024, before, "the LH buffer filled before the host's first release")
		}
		for i, r := range runs[1:] {
			what := fmt.Sprintf("%s against rtl, LHS %v, releases from %v", kinds[i+1].name, c.lhs, c.hold)
			require.Len(t, r.commits, 7*c.per, what)
			require.Equal(t, runs[0].msgs, r.msgs, what)
			require.Equal(t, runs[0].commits, r.commits, what)
			require.Equal(t, runs[0].finished, r.finished, what)
			require.Equal(t, runs[0].stalls, r.stalls, what)
		}
	}
}

// The batch of cycles run per engine event changes nothing: not one cycle, not one time.
func TestBatchInvariance(t *testing.T) {
	var runs []run
	for _, b := range []int{1, 7, 4096} {
		cfg := DefaultConfig()
		cfg.Device.Model = device.Go
		cfg.Batch = b
		runs = append(runs, incast(t, cfg, 6, 40, 3))
	}
	for _, r := range runs[1:] {
		require.Equal(t, runs[0].commits, r.commits)
		require.Equal(t, runs[0].finished, r.finished)
		require.Equal(t, runs[0].stalls, r.stalls)
	}
}

// A full LH buffer holds the network off: with the host's releases held back, the receive
// path stalls its input, the fabric keeps the packets, and the senders' messages wait; once
// the host releases, every message arrives, none lost or duplicated.
func TestFullLHBufferBackPressure(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Device = device.Config{Model: device.Go, Entries: 16}
	cfg.HoldReleases = 200 * netsim.Microsecond
	r := incast(t, cfg, 5, 20, 4)
	require.Equal(t, 4*20, r.got)
	require.Len(t, r.commits, 4*20)
	require.Positive(t, r.stalls, "the input was held off while the buffer was full")
	full := 0
	for _, c := range r.commits {
		if c.Time < cfg.HoldReleases {
			full++
		}
	}
	require.Equal(t, 16, full, "exactly a buffer's worth committed before the host released")
	seen := map[string]int{}
	for _, m := range r.msgs {
		seen[string(m)]++
	}
	for m, n := range seen {
		require.Equal(t, 1, n, "message % x arrived %d times", []byte(m)[:16], n)
	}
	for _, f := range r.finished[1:] {
		require.Less(t, f, cfg.HoldReleases, "senders finish (eager sends) before the host releases")
	}
	require.Greater(t, r.finished[0], cfg.HoldReleases, "the receiver gets the last message after it releases")
}

// The entries the RTL wrote hold the messages' heads.
func TestEntriesHoldTheMessages(t *testing.T) {
	c, rec := machine(t, DefaultConfig(), 4)
	node := rec.Node
	_, err := c.Run(4, func(r *cluster.Rank) {
		if r.ID() == 0 {
			for range 30 {
				r.Recv(cluster.AnySource, cluster.AnyTag)
			}
			return
		}
		for i := range 10 {
			r.Send(0, i, 16+37*i)
		}
	})
	require.NoError(t, err)
	for i, m := range rec.msgs {
		e := make([]byte, hw.EntryBytes)
		require.NoError(t, node.Local().ReadBlock(hw.LHBase+uint32(i*hw.EntryBytes), e))
		head := m[:min(len(m), hw.InlineMax)]
		if len(m) > hw.InlineMax {
			head = m[:hw.SplitPosReset]
		}
		require.True(t, bytes.Equal(head, e[:len(head)]), "entry %d: % x, sent % x", i, e[:len(head)], head)
	}
}

// A plugin process that dies in the middle of a network run ends the run with its crash
// report, not with ranks waiting for ever.
func TestPluginNodeCrashEndsTheRun(t *testing.T) {
	t.Setenv(plugin.FaultEnv, "exit@600")
	cfg := DefaultConfig()
	cfg.Device.Bridge = device.Plugin
	tp, err := fabric.ParseTopology("crossbar:4")
	require.NoError(t, err)
	c, err := cluster.Build(tp, fabric.DefaultConfig(), cluster.DefaultConfig())
	require.NoError(t, err)
	node, err := New(c.Network().Engine(), cfg)
	require.NoError(t, err)
	require.NoError(t, c.SetReceivePath(0, node))
	_, err = c.Run(4, func(r *cluster.Rank) {
		if r.ID() == 0 {
			for range 3 * 50 {
				r.Recv(cluster.AnySource, cluster.AnyTag)
			}
			return
		}
		for i := range 50 {
			r.Send(0, i, 64)
		}
	})
	require.Error(t, err)
	require.Contains(t, err.Error(), "node 0: receive path: lhsnic:")
	require.Contains(t, err.Error(), "died at cycle 600 during Steps")
	require.ErrorIs(t, err, node.Err())
	require.ErrorIs(t, node.Err(), node.Close(), "Close reports the same crash")
}

// Three receivers stepped alone, in a group stepping in turn (lookahead 0) and in a group
// with the network's shortest latency as lookahead: the same commits at the same cycles and
// the same finishing times (experiment/incast's TestIncastLookahead shows the events it saves).
func TestGroupLookahead(t *testing.T) {
	const ranks, receivers, per = 9, 3, 30
	type result struct {
		commits [][]Commit
		res     cluster.Result
	}
	runWith := func(lookahead netsim.Time, grouped bool) result {
		tp, err := fabric.ParseTopology(fmt.Sprintf("crossbar:%d", ranks))
		require.NoError(t, err)
		c, err := cluster.Build(tp, fabric.DefaultConfig(), cluster.DefaultConfig())
		require.NoError(t, err)
		eng := c.Network().Engine()
		g, err := NewGroup(eng, lookahead)
		require.NoError(t, err)
		var nodes []*Node
		for r := range receivers {
			cfg := DefaultConfig()
			cfg.Device.Model = device.Go
			var node *Node
			if grouped {
				node, err = g.New(cfg)
			} else {
				node, err = New(eng, cfg)
			}
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, node.Close()) })
			require.NoError(t, c.SetReceivePath(r, node))
			nodes = append(nodes, node)
		}
		res, err := c.Run(ranks, func(r *cluster.Rank) {
			if r.ID() < receivers {
				for range (ranks - receivers) * per {
					r.Recv(cluster.AnySource, cluster.AnyTag)
				}
				return
			}
			rng := rand.New(rand.NewPCG(5, uint64(r.ID())))
			for i := range per {
				for d := range receivers {
					r.Send(d, i, 16+rng.IntN(300))
				}
			}
		})
		require.NoError(t, err)
		var out result
		for _, n := range nodes {
			out.commits = append(out.commits, n.Commits)
		}
		out.res = res
		return out
	}
	tp, err := fabric.ParseTopology(fmt.Sprintf("crossbar:%d", ranks))
	require.NoError(t, err)
	net, err := fabric.New(&netsim.Engine{}, tp, fabric.DefaultConfig())
	require.NoError(t, err)
	shortest, err := Lookahead(net)
	require.NoError(t, err)
	alone := runWith(0, false)
	inTurn := runWith(0, true)
	ahead := runWith(shortest, true)
	for _, r := range []result{inTurn, ahead} {
		require.Equal(t, alone.commits, r.commits)
		require.Equal(t, alone.res.Finished, r.res.Finished)
	}
	require.Greater(t, shortest, 100*netsim.Nanosecond, "the crossbar's switch latency is in it")
}

// slowHost releases each committed message a fixed time after its commit, so that a small LH
// buffer stays full for long stretches with nothing else happening at the node.
type slowHost struct {
	eng   *netsim.Engine
	node  *Node
	delay netsim.Time
}

func (h *slowHost) Committed(now netsim.Time, c Commit, _ []byte) {
	h.eng.At(c.Time+h.delay, netsim.Func(func(now netsim.Time, size int64) { h.node.Release(now, []int{int(size)}) }), int64(c.Size))
}

// A receive path held off by a full LH buffer, waiting for its host, is not stepped until
// the host releases or a message comes, and gives what stepping it through gives: every
// commit at the same cycle, the same ends and stall count, with far fewer step events
// while the engine has other events.
func TestHeldOffNodeWaitsUnstepped(t *testing.T) {
	type out struct {
		run   run
		wakes uint64
	}
	var outs []out
	for _, step := range []bool{true, false} {
		stepHeldOff = step
		cfg := DefaultConfig()
		cfg.Device = device.Config{Model: device.Go, Entries: 8}
		host := &slowHost{delay: 40 * netsim.Microsecond}
		cfg.Host = host
		c, rec := machine(t, cfg, 4)
		host.eng, host.node = c.Network().Engine(), rec.Node
		// Something else on the machine every 20 ns (as a busy network would be), so that a
		// node stepped through runs a cycle or two an event.
		var tick netsim.Func
		tick = func(now netsim.Time, _ int64) {
			if now < 300*netsim.Microsecond {
				host.eng.At(now+20*netsim.Nanosecond, tick, 0)
			}
		}
		host.eng.At(0, tick, 0)
		res, err := c.Run(4, func(r *cluster.Rank) {
			if r.ID() == 0 {
				for range 3 * 12 {
					r.Recv(cluster.AnySource, cluster.AnyTag)
				}
				return
			}
			rng := rand.New(rand.NewPCG(9, uint64(r.ID())))
			for i := range 12 {
				r.Send(0, i, 16+rng.IntN(300))
			}
		})
		require.NoError(t, err)
		outs = append(outs, out{run{commits: rec.Commits, finished: res.Finished, stalls: rec.Stalls}, rec.WakeEvents()})
	}
	stepHeldOff = false
	stepped, waited := outs[0], outs[1]
	require.Len(t, waited.run.commits, 3*12)
	require.Equal(t, stepped.run.commits, waited.run.commits)
	require.Equal(t, stepped.run.finished, waited.run.finished)
	require.Equal(t, stepped.run.stalls, waited.run.stalls)
	require.Greater(t, waited.run.stalls, uint64(10*stuckCycles), "held off for long stretches")
	t.Logf("step events: %d stepped through, %d waiting", stepped.wakes, waited.wakes)
	require.Less(t, waited.wakes*2, stepped.wakes)
}
