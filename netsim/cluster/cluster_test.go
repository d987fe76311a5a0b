package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func newCluster(t testing.TB, topo string, cfg Config) *Cluster {
	t.Helper()
	tp, err := fabric.ParseTopology(topo)
	require.NoError(t, err)
	eng := &netsim.Engine{}
	fc := fabric.DefaultConfig()
	// Buffers that cover a credit's round trip through a switch (140 ns at 4 GB/s) beside a
	// 1 KiB packet, so that a stream of packets is not held up by credits.
	fc.BufferFlits, fc.EjectBufferFlits = 128, 128
	net, err := fabric.New(eng, tp, fc)
	require.NoError(t, err)
	c, err := New(net, cfg)
	require.NoError(t, err)
	return c
}

// A lone one-packet put lands after node latency + DMA read + fabric + DMA write, and
// completes when the control packet is back: the closed form, to the picosecond.
func TestPutLatencyClosedForm(t *testing.T) {
	for _, size := range []int{1, 8, 500, 992} {
		c := newCluster(t, "crossbar:4", DefaultConfig())
		var landed, completed netsim.Time
		_, err := c.Run(2, func(r *Rank) {
			if r.ID() == 0 {
				h := r.Put(1, size, 7)
				r.Complete(h)
				completed = r.Now()
			} else {
				r.Poll(7)
				landed = r.Now()
			}
		})
		require.NoError(t, err)
		cfg := c.Config()
		lf, err := c.Network().ZeroLoadLatency(0, 1, cfg.HeaderBytes+size)
		require.NoError(t, err)
		lc, err := c.Network().ZeroLoadLatency(1, 0, cfg.HeaderBytes)
		require.NoError(t, err)
		require.Equal(t, cfg.NodeLatency+cfg.DMATime(size)+lf+cfg.DMATime(size), landed, "%d bytes: landed", size)
		require.Equal(t, landed+lc, completed, "%d bytes: completed", size)
	}
}

// A long put streams at the slowest stage's rate: the 2.8 GB/s DMA, not the 4.0 GB/s links.
func TestLongPutRunsAtDMARate(t *testing.T) {
	const size = 1 << 20
	c := newCluster(t, "crossbar:4", DefaultConfig())
	var landed netsim.Time
	_, err := c.Run(2, func(r *Rank) {
		if r.ID() == 0 {
			r.Put(1, size, 1)
		} else {
			r.Poll(1)
			landed = r.Now()
		}
	})
	require.NoError(t, err)
	stream := landed - c.Config().NodeLatency
	require.InEpsilon(t, float64(size)/2.8, stream.Nanoseconds(), 0.01, "a 1 MiB put takes %v after the node latency", stream)
}

// Get brings the data back; Send and Recv match by source and tag with wildcards, oldest
// first.
func TestGetSendRecv(t *testing.T) {
	c := newCluster(t, "crossbar:4", DefaultConfig())
	var got []Status
	var getDone bool
	_, err := c.Run(3, func(r *Rank) {
		switch r.ID() {
		case 0:
			h := r.Get(2, 4096)
			r.Complete(h)
			getDone = h.Done()
			r.Send(1, 5, 100)
			r.Send(1, 6, 200)
		case 2:
			r.Send(1, 6, 300)
		case 1:
			got = append(got, r.Recv(0, 6))              // skips the tag-5 message from 0
			got = append(got, r.Recv(AnySource, 5))      // 0's first
			got = append(got, r.Recv(AnySource, AnyTag)) // 2's
		}
	})
	require.NoError(t, err)
	require.True(t, getDone)
	require.Equal(t, []Status{{0, 6, 200}, {0, 5, 100}, {2, 6, 300}}, got)
}

// Bad calls and waits that never end are reported with the rank and what it did.
func TestBadCallsAndHangs(t *testing.T) {
	cases := []struct {
		name string
		prog Program
		says string
	}{
		{"put to no rank", func(r *Rank) { r.Put(99, 8, 0) }, "rank 0: put to rank 99: no such rank (4 ranks)"},
		{"put of nothing", func(r *Rank) {
			if r.ID() == 1 {
				r.Put(0, 0, 0)
			}
		}, "rank 1: put of 0 bytes"},
		{"poll never sent", func(r *Rank) {
			if r.ID() == 2 {
				r.Poll(7)
			}
		}, "1 of 4 waiting: rank 2 in Poll(tag 7) since 0.000 ns"},
		{"recv never sent", func(r *Rank) { r.Recv(AnySource, 3) }, "4 of 4 waiting"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, "crossbar:4", DefaultConfig())
			_, err := c.Run(4, tc.prog)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
	c := newCluster(t, "crossbar:4", DefaultConfig())
	_, err := c.Run(4, func(r *Rank) { r.Poll(1) })
	require.ErrorIs(t, err, ErrHang)
}

// Every put lands once and completes once, under load from every rank to every other.
func TestAllToAllPutsLandOnce(t *testing.T) {
	c := newCluster(t, "torus:4x4x2", DefaultConfig())
	n := c.Size()
	res, err := c.Run(n, func(r *Rank) {
		var hs []*Handle
		for d := 1; d < n; d++ {
			hs = append(hs, r.Put((r.ID()+d)%n, 3000, (r.ID()+d)%n))
		}
		for d := 1; d < n; d++ {
			r.Poll(r.ID())
		}
		for _, h := range hs {
			r.Complete(h)
		}
	})
	require.NoError(t, err)
	require.Equal(t, n*(n-1), res.Puts)
	st := c.Network().Stats()
	require.Equal(t, st.Injected, st.Delivered)
	require.Equal(t, 0, c.Network().InFlight())
}

// The same run twice gives the same times, bit for bit.
func TestDeterministic(t *testing.T) {
	run := func() Result {
		c := newCluster(t, "fattree:4x2", DefaultConfig())
		res, err := c.Run(c.Size(), func(r *Rank) {
			for i := range 5 {
				r.Put((r.ID()+i+1)%r.Size(), 100+50*i+r.ID(), i)
				r.Comp(netsim.Time(r.ID()) * netsim.Nanosecond)
			}
			for i := range 5 {
				r.Poll(i)
			}
		})
		require.NoError(t, err)
		return res
	}
	require.Equal(t, run(), run())
}

// A sync packet costs no node latency and no DMA: it arrives after the fabric's closed form
// for a header-only packet, and WaitSignal gives its sender and arrival time even when the
// rank comes to wait later. A signal to no rank is a bad call.
func TestSignal(t *testing.T) {
	c := newCluster(t, "torus:4x4", DefaultConfig())
	var got Signal
	var waitedAt netsim.Time
	_, err := c.Run(6, func(r *Rank) {
		switch r.ID() {
		case 0:
			r.Signal(5, 3)
		case 5:
			r.Comp(5 * netsim.Microsecond)
			got = r.WaitSignal(3)
			waitedAt = r.Now()
		}
	})
	require.NoError(t, err)
	l, err := c.Network().ZeroLoadLatency(0, 5, c.Config().HeaderBytes)
	require.NoError(t, err)
	require.Equal(t, Signal{Src: 0, SentAt: 0, At: l}, got)
	require.Equal(t, 5*netsim.Microsecond, waitedAt)

	_, err = c.Run(2, func(r *Rank) {
		if r.ID() == 0 {
			r.Signal(99, 0)
		}
	})
	require.ErrorContains(t, err, "signal to rank 99: no such rank")
}
