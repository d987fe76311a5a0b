package ib

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// The firmware cycles per message are what docs/ib.md says: derived from the one paper
// figure, the GC-LE round trip with Data on WQE (15.6 µs), with everything else on the path
// as it stands. A change of any other parameter shows here first.
func TestCalibration(t *testing.T) {
	p := GCLE()
	p.SQCycles, p.RQCycles, p.AckCycles = 0, 0, 0
	rest, err := RTT(p, 16, true, 2, 10)
	require.NoError(t, err)
	perCycle := 4 * GCLE().HCACycle // two one-ways, each through an SQ and an RQ processor
	derived := int(math.Round(float64(15600*netsim.Nanosecond-rest) / float64(perCycle)))
	require.Equal(t, calibratedCycles, derived, "the path without firmware takes %v", rest)
}

// Without Data on WQE each one-way pays one more PCI-X DMA read, the message's data, and
// nothing else: the round trip grows by exactly two DMA reads of the message (the PM/InfiniBand-FJ paper's §5.3).
func TestDoWQESavesOneDMAReadEachWay(t *testing.T) {
	p := GCLE()
	for _, size := range []int{16, 40, 48} {
		with, err := RTT(p, size, true, 2, 10)
		require.NoError(t, err)
		without, err := RTT(p, size, false, 2, 10)
		require.NoError(t, err)
		dma := p.pcix(p.PCIXRequestCycles + p.DMAReadDelayCycles + p.dataCycles(size))
		require.Equal(t, 2*dma, without-with, "%d bytes", size)
	}
	_, err := RTT(p, 49, true, 2, 10)
	require.ErrorContains(t, err, "48 with data on WQE")
}

// Reliable connection semantics under receivers that run dry: with small receive queues and
// hosts slower than the traffic, the HCAs refuse messages with RNR NAKs and the senders send
// again after the RNR timer, yet every node receives every message of every other node
// exactly once, in each sender's order, byte for byte (each program checks every message
// against its sender and sequence number and fails the run on the first wrong one). Both
// receive designs, several seeds.
func TestRCInOrderExactlyOnceThroughRNR(t *testing.T) {
	for _, mode := range []ReceiveMode{SharedRQ, PerPeerRQ} {
		for _, seed := range testseed.List(t, 3) {
			cfg, w := ckptConfig()
			cfg.Receive = mode
			cfg.RecvDepth = 2
			if mode == PerPeerRQ {
				cfg.RecvDepth = 1
			}
			w.Seed = seed
			c := startTraffic(t, cfg, w)
			err := c.Run(netsim.Never)
			require.NoError(t, err, "%s, %s", mode, testseed.Replay(t, seed, "./netsim/ib"))
			o, err := c.Outcome()
			require.NoError(t, err)
			var rnr, retx uint64
			for _, n := range o {
				require.Equal(t, w.Expected()*(cfg.Nodes-1), n.Received, "%s node %d, %s", mode, n.Node, testseed.Replay(t, seed, "./netsim/ib"))
				// Every start of a message is counted, a resend too: less the resends, the posts.
				require.Equal(t, uint64(w.Messages*(cfg.Nodes-1)), n.Stats.MessagesSent-n.Stats.Retransmits, "%s", testseed.Replay(t, seed, "./netsim/ib"))
				rnr += n.Stats.RNRNaksSent
				retx += n.Stats.Retransmits
			}
			require.Positive(t, rnr, "%s: the receive queues ran dry (%s)", mode, testseed.Replay(t, seed, "./netsim/ib"))
			require.Positive(t, retx, "%s: and messages were sent again (%s)", mode, testseed.Replay(t, seed, "./netsim/ib"))
		}
	}
}

// Same seed, same run, bit for bit; another seed, another run.
func TestDeterministic(t *testing.T) {
	cfg, w := ckptConfig()
	a := finish(t, startTraffic(t, cfg, w))
	b := finish(t, startTraffic(t, cfg, w))
	require.Equal(t, a, b)
	w.Seed++
	c := finish(t, startTraffic(t, cfg, w))
	require.NotEqual(t, a[0].RecvDigest, c[0].RecvDigest)
}

// An incast onto one shared receive queue of D buffers: senders faster than the host run it
// dry, the HCA answers RNR NAKs, the senders wait and resend, and every message arrives once
// in order. The first refusal comes when the queue's D buffers are used up: at the rate of
// arrivals less the rate the host gives buffers back (the closed form in docs/ib.md).
func TestIncastRunsTheSRQDry(t *testing.T) {
	r, err := RunIncast(IncastConfig{Params: GCLE(), Nodes: 5, Depth: 16, Size: 256, Count: 200,
		Gap: 20 * netsim.Microsecond, Consume: 10 * netsim.Microsecond})
	require.NoError(t, err)
	require.Equal(t, 4*200, r.Delivered, "nothing lost")
	require.Positive(t, r.RNRNaks)
	require.Positive(t, r.Retransmits)
	require.Positive(t, r.FirstRNR)
	require.InEpsilon(t, r.PredictedDry.Microseconds(), r.FirstRNR.Microseconds(), 0.25,
		"first RNR NAK at %v, predicted %v", r.FirstRNR, r.PredictedDry)

	// Below the host's rate the queue never runs dry.
	r, err = RunIncast(IncastConfig{Params: GCLE(), Nodes: 5, Depth: 16, Size: 256, Count: 200,
		Gap: 50 * netsim.Microsecond, Consume: 10 * netsim.Microsecond})
	require.NoError(t, err)
	require.Equal(t, 4*200, r.Delivered)
	require.Zero(t, r.RNRNaks)
	require.Zero(t, r.PredictedDry)
}

// Receive buffers per node: per-peer RC needs its buffers on every QP, so the memory grows
// with the node count; one shared queue does not. The layout the model allocates is the
// figure the buffer scaling reports.
func TestReceiveMemoryScales(t *testing.T) {
	for _, n := range []int{2, 5, 9} {
		for _, mode := range []ReceiveMode{PerPeerRQ, SharedRQ} {
			cfg := DefaultConfig()
			cfg.Nodes, cfg.Receive = n, mode
			if mode == PerPeerRQ {
				cfg.RecvDepth = 128 // the PM/InfiniBand-FJ paper's §5.4: at least 128 per RC QP
			}
			c, err := Build(cfg)
			require.NoError(t, err)
			buf, rings := ReceiveBytes(cfg, n)
			require.Equal(t, buf, c.Node(0).Layout.RecvBytes)
			require.Equal(t, buf, c.Node(0).Layout.RecvMR.Len)
			want := uint64(1024 * 8192) // the PM/InfiniBand-FJ paper's §6: 8 MB
			if mode == PerPeerRQ {
				want = uint64(n-1) * 128 * 8192
			}
			require.Equal(t, want, buf, "%s on %d nodes", mode, n)
			require.Equal(t, buf/8192*64, rings)
		}
	}
	cfg := DefaultConfig()
	cfg.Receive, cfg.RecvDepth = PerPeerRQ, 128
	b, _ := ReceiveBytes(cfg, 1024)
	require.Equal(t, uint64(1023)<<20, b, "the PM/InfiniBand-FJ paper's §5.4: 1 MB per RC QP, about 1 GB on 1,024 nodes")
}

// Bulk commands take one command's overhead for any number of QPs; one per QP takes it for
// each, so the saving grows with the QP count (and is nothing for one QP).
func TestBulkCommandsSaveTimeAsQPsGrow(t *testing.T) {
	cfg := DefaultConfig()
	var last netsim.Time
	for _, n := range []int{1, 4, 64} {
		bulk, err := CPRCost(cfg, n, true)
		require.NoError(t, err)
		each, err := CPRCost(cfg, n, false)
		require.NoError(t, err)
		require.Equal(t, 4, bulk.Commands)
		require.Equal(t, 4*n, each.Commands)
		saved := each.Total() - bulk.Total()
		if n == 1 {
			require.Zero(t, saved)
		} else {
			require.Greater(t, saved, last)
		}
		last = saved
	}
}

// A host that waits for what never comes fails the run when its wait limit passes, naming
// what it waited for.
func TestWaitsHaveLimits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Params.WaitLimit = netsim.Millisecond
	c, err := Build(cfg)
	require.NoError(t, err)
	c.Start(1, 0, &PingPong{Me: 1, Peer: 0, Size: 16, Iterations: 1}) // nobody pings it
	err = c.Run(netsim.Never)
	require.ErrorIs(t, err, ErrWaitLimit)
	require.ErrorContains(t, err, "node 1")
	require.ErrorContains(t, err, "ping-pong message 0 from node 0")
	require.Equal(t, netsim.Millisecond, c.Engine().Now())
}

// A checkpoint whose network never becomes stable (a requester waits for an ACK from a
// node whose HCA is gone) ends with an error naming the QP, after the wait limit.
func TestCheckpointStableHasALimit(t *testing.T) {
	cfg, w := ckptConfig()
	cfg.Params.WaitLimit = 200 * netsim.Microsecond
	c := startTraffic(t, cfg, w)
	require.NoError(t, c.Run(100*netsim.Microsecond))
	// Make node 2's QP 1 look as if it sent a message that never gets its ACK.
	q := c.Node(2).HCA.qp(1)
	far := psnAdd(q.NextPSN, 1<<20)
	q.Outstanding = append(q.Outstanding, sentMsg{Index: q.SQNext, FirstPSN: far, LastPSN: far, Op: OpSend})
	_, err := c.Checkpoint(150*netsim.Microsecond, true)
	require.ErrorIs(t, err, ErrWaitLimit)
	require.ErrorContains(t, err, "node 2: QP 1 waits for the ACK")
}

func TestParamsRefused(t *testing.T) {
	for name, f := range map[string]func(*Params){
		"MTU":       func(p *Params) { p.MTU = 5000 },
		"link":      func(p *Params) { p.LinkGBps = 0 },
		"RNR retry": func(p *Params) { p.RNRRetry = 8 },
		"WQE":       func(p *Params) { p.InlineBytes = 60 },
		"cycles":    func(p *Params) { p.SQCycles = -1 },
	} {
		p := GCLE()
		f(&p)
		require.ErrorIs(t, p.Validate(), ErrParams, name)
	}
	_, err := ParseChipset("i860")
	require.ErrorContains(t, err, "unknown chipset")
	require.NoError(t, errors.Join(GCLE().Validate(), E7501().Validate()))
}

// Each more switch on the path adds its latency and a store-and-forward-free crossing each
// way: a round trip across three switches (a 2-ary 2-tree, nodes on different leaves) is
// longer than across one by four switch traversals and the links between them.
func TestRTTAcrossMoreSwitches(t *testing.T) {
	cfg := DefaultConfig()
	one, err := RTTOn(cfg, 0, 1, 16, true, 2, 10)
	require.NoError(t, err)
	cfg.Topology, err = fabric.NewFatTree(2, 2)
	require.NoError(t, err)
	c, err := Build(cfg)
	require.NoError(t, err)
	path, err := c.Network().Path(0, 2)
	require.NoError(t, err)
	require.Len(t, path, 4, "three switches between nodes 0 and 2")
	three, err := RTTOn(cfg, 0, 2, 16, true, 2, 10)
	require.NoError(t, err)
	p := GCLE()
	// Per extra switch and link each way: the switch latency, the cable, and the header's
	// serialization on the extra link before the switch can route it (1 byte at 1 GB/s).
	perHop := p.SwitchLatency + p.CableLatency + netsim.Nanosecond
	require.Equal(t, 4*perHop, three-one)
}
