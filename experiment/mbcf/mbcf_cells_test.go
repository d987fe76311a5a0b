package mbcf

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/ether"
)

// On a lossy link each table cell draws its losses from its own stream of the one seed: the
// cells' streams all differ, and a cell's figure is the same whichever other cells run (so
// it is not the first cell's losses replayed).
func TestMBCFCellsHaveTheirOwnLosses(t *testing.T) {
	f := ether.Faults{Drop: 0.02, Seed: 7}
	seen := map[uint64]string{}
	for _, nw := range []string{"100basetx", "10baset"} {
		for _, op := range []string{"write", "read", "swap", "bandwidth"} {
			for _, n := range []int{1, 4, 16, 64, 256, 1024, 1408} {
				cell := fmt.Sprintf("%s/%s/%d", nw, op, n)
				s := cellFaults(f, nw, op, n).Seed
				require.NotContains(t, seen, s, "%s has the stream of %s", cell, seen[s])
				seen[s] = cell
				require.Equal(t, s, cellFaults(f, nw, op, n).Seed, "one seed, one stream per cell")
			}
		}
	}
	for _, seed := range []uint64{1, 2, 3} {
		all := smallMBCF()
		all.Networks = []string{"100basetx"}
		all.Faults = ether.Faults{Drop: 0.1, Seed: seed}
		all.Seed = seed
		one := all
		one.Sizes = all.Sizes[len(all.Sizes)-1:]
		one.BandwidthSizes = all.BandwidthSizes[len(all.BandwidthSizes)-1:]
		ra, err := Run(all)
		require.NoError(t, err, "seed %d", seed)
		ro, err := Run(one)
		require.NoError(t, err, "seed %d", seed)
		for op, bySize := range ro.RTTUs["100basetx"] {
			for size, v := range bySize {
				require.Equal(t, ra.RTTUs["100basetx"][op][size], v, "seed %d: %s %s bytes depends on the other cells", seed, op, size)
			}
		}
		for size, v := range ro.PeakMBs["100basetx"] {
			require.Equal(t, ra.PeakMBs["100basetx"][size], v, "seed %d: bandwidth %s bytes depends on the other cells", seed, size)
		}
	}
}
