package cluster

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// A machine on parts reuses its packets, its DMA's sends and PostSend's messages, each part
// its own (docs/performance.md, "The packet path's allocation, cut"): once a first round has
// filled the free lists, a second round of the same messages, every one of them crossing
// from one part to the other, allocates far less than an object per packet (before, each
// packet made three: the packet, its injection event and its DMA-write event), and every
// message still lands.
func TestPartsReusePackets(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:4x4x4")
	require.NoError(t, err)
	c, err := BuildParts(topo, fabric.DefaultConfig(), DefaultConfig(), 2)
	require.NoError(t, err)
	defer c.Parts().Close()
	nodes := c.Size()
	var landed atomic.Int64 // (the callbacks run on the receivers' parts, both at once)
	round := func() {
		landed.Store(0)
		for src := range nodes {
			for k := range 4 {
				// The torus is cut across one dimension: half the nodes on each part, and
				// src + nodes/2 differs from src in that dimension's top bit.
				dst := (src + nodes/2) % nodes
				require.NoError(t, c.PostSend(c.Now(), src, dst, 16<<10, k, func(netsim.Time) { landed.Add(1) }))
			}
		}
		c.Parts().Run(netsim.Never)
		require.NoError(t, c.Err())
		require.Equal(t, int64(nodes*4), landed.Load(), "every message landed")
	}
	round()
	before := c.Network().Stats().Delivered
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	round()
	runtime.ReadMemStats(&m1)
	packets := c.Network().Stats().Delivered - before
	require.Equal(t, uint64(nodes*4*17), packets, "every message's 17 packets delivered")
	require.Zero(t, c.Network().InFlight())
	perPacket := float64(m1.Mallocs-m0.Mallocs) / float64(packets)
	t.Logf("%d packets, %.3f allocations a packet", packets, perPacket)
	require.Less(t, perPacket, 0.25, "allocations a packet on parts, once the free lists are full")
}
