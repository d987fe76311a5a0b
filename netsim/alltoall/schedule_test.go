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
			s, err := SuhShin(topo, UnevenWeights(topo.Nodes(), 1), 2)
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
	s, err := Direct(64, nil, 2)
	require.NoError(t, err)
	checkFinal(t, s)
	require.Len(t, s.Steps, 63)
	require.Error(t, s.ContentionFree(net))
}

func TestScheduleBadInput(t *testing.T) {
	for _, dims := range [][]int{{6, 4}, {2, 4}, {4, 4, 10}} {
		topo, err := fabric.NewTorus(dims...)
		require.NoError(t, err)
		_, err = SuhShin(topo, nil, 2)
		require.ErrorContains(t, err, "want a multiple of 4", "%v", dims)
	}
	_, err := Direct(1, nil, 2)
	require.Error(t, err)
	_, err = Direct(4, []int64{1}, 2)
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

// suhShinByBlocks is SuhShin as it was first written: every step's senders look at every
// block they hold (builder.step), no grouping. SuhShin groups the blocks by what the
// selections ask (builder.stage, stepKeys) and must give the same schedule.
func suhShinByBlocks(t *fabric.Torus, weights []int64) (*Schedule, error) {
	g, err := newSuhShinGrid(t)
	if err != nil {
		return nil, err
	}
	k, n, coords, coord, at := g.k, t.Nodes(), g.coords, g.coord, g.at
	b, err := newBuilder(n, weights, 2)
	if err != nil {
		return nil, err
	}

	// Phase 1: between groups.
	for d := range k {
		m := k[d] / 4
		if m == 1 {
			continue
		}
		// dir is +1, -1 or 0 (already in its destination group along d) for a block, by its
		// source's group and position along d (a block keeps its position in phase 1, and
		// other dimensions' phase 1 does not change its coordinate along d).
		cd := coords[d]
		dir := func(blk uint32) int {
			src, dst := blockSrc(blk), blockDst(blk)
			gs, gd, p := int(cd[src])/4, int(cd[dst])/4, int(cd[src])%4
			off := (gd - gs + m) % m
			switch {
			case off == 0:
				return 0
			case 2*off < m:
				return 1
			case 2*off > m:
				return -1
			case p%2 == 0:
				return 1
			}
			return -1
		}
		hops := func(p, sign int) int { // hops the + or - pipeline of position p needs
			if m%2 == 1 {
				return (m - 1) / 2
			}
			if (sign > 0) == (p%2 == 0) {
				return m / 2
			}
			return m/2 - 1
		}
		left := [2][4]int{}
		for p := range 4 {
			left[0][p], left[1][p] = hops(p, 1), hops(p, -1)
		}
		for {
			plus, minus := -1, -1
			for _, p := range []int{0, 1, 2, 3} {
				if left[0][p] > 0 {
					plus = p
					break
				}
			}
			for _, p := range []int{1, 2, 3, 0} {
				if left[1][p] > 0 && p != plus {
					minus = p
					break
				}
			}
			if plus < 0 && minus < 0 {
				break
			}
			var moves []move
			for node := range n {
				c := coord(node, d)
				g := c / 4
				switch c % 4 {
				case plus:
					moves = append(moves, move{node, at(node, d, c+4), func(blk uint32) bool {
						return int(cd[blockDst(blk)])/4 != g && dir(blk) == 1
					}})
				case minus:
					moves = append(moves, move{node, at(node, d, c-4), func(blk uint32) bool {
						return int(cd[blockDst(blk)])/4 != g && dir(blk) == -1
					}})
				}
			}
			if plus >= 0 {
				left[0][plus]--
			}
			if minus >= 0 {
				left[1][minus]--
			}
			b.step("inter-group "+dimName[d], moves)
		}
	}

	// Phase 2: within groups.
	for d := range k {
		cd := coords[d]
		for _, pairs := range lineSteps(k[d]) {
			var moves []move
			for node := range n {
				c := coord(node, d)
				for _, pr := range pairs {
					if c%4 != pr[0] {
						continue
					}
					want := pr[1]
					moves = append(moves, move{node, at(node, d, c-pr[0]+pr[1]), func(blk uint32) bool {
						return int(cd[blockDst(blk)])%4 == want
					}})
				}
			}
			b.step("intra-group "+dimName[d], moves)
		}
	}
	return b.done("suh-shin")
}

// SuhShin's grouped blocks give the schedule the block-by-block builder gives: the same
// steps, the same transfers (ends, blocks and weights), on tori of one to four dimensions,
// with even, uneven and heavy weights.
func TestSuhShinGroupsAsBlocks(t *testing.T) {
	for _, dims := range [][]int{{4, 4, 4}, {8, 8, 8}, {12, 8, 4}, {16, 4}, {24}, {8, 4, 4, 4}} {
		topo, err := fabric.NewTorus(dims...)
		require.NoError(t, err)
		for _, w := range [][]int64{nil, UnevenWeights(topo.Nodes(), 1), HeavyWeights(topo.Nodes())} {
			want, err := suhShinByBlocks(topo, w)
			require.NoError(t, err)
			for _, ways := range []int{1, 3} { // built on one thread and on several: the same
				got, err := SuhShin(topo, w, ways)
				require.NoError(t, err)
				require.Equal(t, want.Steps, got.Steps, "%v on %d threads", dims, ways)
				checkFinal(t, got)
			}
		}
	}
}
