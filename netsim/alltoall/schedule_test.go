package alltoall

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func torusNet(t testing.TB, dims ...int) (*fabric.Torus, *fabric.Network) {
	t.Helper()
	topo, err := fabric.NewTorus(dims...)
	require.NoError(t, err)
	net, err := fabric.New(&netsim.Engine{}, topo, fabric.Seed002Torus())
	require.NoError(t, err)
	return topo, net
}

// checkFinal requires every node to hold exactly the n-1 blocks addressed to it, one from
// every other node.
func checkFinal(t *testing.T, s *Schedule) {
	t.Helper()
	require.Len(t, s.final, s.Nodes)
	for i, chunks := range s.final {
		var h []uint32
		for _, c := range chunks {
			h = append(h, c...)
		}
		require.Len(t, h, s.Nodes-1, "node %d", i)
		seen := map[int]bool{}
		for _, blk := range h {
			src, dst := blockSrc(blk), blockDst(blk)
			require.Equal(t, i, dst, "node %d holds a block for %d", i, dst)
			require.NotEqual(t, i, src)
			require.False(t, seen[src], "node %d holds two blocks from %d", i, src)
			seen[src] = true
		}
	}
}

// Suh-Shin on small tori: every node ends with exactly its blocks; no two transfers of a
// step share a link (injection and ejection included); the step counts are the
// construction's (per dimension of 4m nodes: 2(m-1) inter-group steps; 4 intra-group steps,
// 3 on a ring of 4); a put carries combined blocks.
func TestSuhShin(t *testing.T) {
	for _, dims := range [][]int{{4, 4, 4}, {8, 8, 8}, {8, 4}, {12, 8, 4}, {16, 4}} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			topo, net := torusNet(t, dims...)
			s, err := SuhShin(topo, UnevenWeights(topo.Nodes(), 1))
			require.NoError(t, err)
			checkFinal(t, s)
			require.NoError(t, s.ContentionFree(net))
			want := 0
			for _, k := range dims {
				m := k / 4
				if m == 1 {
					want += 3
				} else {
					want += 2*(m-1) + 4
				}
			}
			require.Len(t, s.Steps, want)
			maxBlocks := 0
			for _, st := range s.Steps {
				for _, tr := range st.Transfers {
					maxBlocks = max(maxBlocks, tr.Blocks)
				}
			}
			require.Greater(t, maxBlocks, 1, "blocks are combined")
		})
	}
}

// The direct exchange delivers too, and is not contention-free on a torus (that is why
// topology-aware schedules exist).
func TestDirect(t *testing.T) {
	_, net := torusNet(t, 8, 8)
	s, err := Direct(64, nil)
	require.NoError(t, err)
	checkFinal(t, s)
	require.Len(t, s.Steps, 63)
	require.Error(t, s.ContentionFree(net))
}

func TestScheduleBadInput(t *testing.T) {
	for _, dims := range [][]int{{6, 4}, {2, 4}, {4, 4, 10}} {
		topo, err := fabric.NewTorus(dims...)
		require.NoError(t, err)
		_, err = SuhShin(topo, nil)
		require.ErrorContains(t, err, "want a multiple of 4", "%v", dims)
	}
	_, err := Direct(1, nil)
	require.Error(t, err)
	_, err = Direct(4, []int64{1})
	require.ErrorContains(t, err, "1 weights for 4 nodes")
}

func TestUnevenWeights(t *testing.T) {
	w := UnevenWeights(1000, 7)
	require.Equal(t, w, UnevenWeights(1000, 7))
	require.NotEqual(t, w, UnevenWeights(1000, 8))
	for _, x := range w {
		require.True(t, x >= 500 && x <= 1500)
	}
}

// One node in eight carries seven times the data of the others; the mean weight stays 1.
func TestHeavyWeights(t *testing.T) {
	w := HeavyWeights(64)
	var sum int64
	for i, x := range w {
		sum += x
		require.Equal(t, i%8 == 7, x == 4000, "node %d", i)
	}
	require.InDelta(t, 1000, float64(sum)/64, 1)
}
