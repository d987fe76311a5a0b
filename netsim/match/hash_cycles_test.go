package match

import (
	"fmt"
	"testing"
)

// hash_match's cycles measured on the Verilated RTL (with the model beside it): an insert
// occupies the matcher 1 + RD_LAT cycles; a search's response comes 2 + RD_LAT x (the
// entries the slowest bank walks) cycles after it is accepted (a bank whose lists are empty
// walks nothing). Both Verilated builds: 2 banks with a one-cycle read (occupancy up to 256),
// 4 banks with a two-cycle read (up to its 16 entries). docs/matchers.md quotes these rows; the
// test requires the formula.
func TestHashCyclesAgainstOccupancy(t *testing.T) {
	for _, c := range []struct {
		p   HashParams
		occ []int
	}{
		{HashRTLParams, []int{0, 1, 2, 4, 8, 16, 64, 256}},
		{HashRTLSmall, []int{0, 1, 2, 3, 4, 5, 8, 12, 16}},
	} {
		t.Run(fmt.Sprintf("N%d_K%d_W%d_L%d", c.p.Entries, c.p.Bins, c.p.Banks, c.p.ReadLat), func(t *testing.T) { hashCyclesAgainstOccupancy(t, c.p, c.occ) })
	}
}

func hashCyclesAgainstOccupancy(t *testing.T, p HashParams, occs []int) {
	for _, occ := range occs {
		h, err := newHashPair(p, true)
		if err != nil {
			t.Fatal(err)
		}
		// occ entries in one bin (the same source and tag, other contexts), spread over the
		// banks by the insert's rule (fewest entries first)
		for i := 0; i < occ; i++ {
			c, refused, err := h.insert(3, 5, 1, uint32(i), false, false)
			if err != nil || refused || c != 1+p.ReadLat {
				h.close()
				t.Fatalf("occupancy %d, insert %d: %d cycles, refused %v, %v; want %d", occ, i, c, refused, err, 1+p.ReadLat)
			}
		}
		// a miss in that bin (context 0) walks every entry of the bin
		rsp, miss, err := h.search(3, 5, 0, false, false)
		if err != nil {
			h.close()
			t.Fatal(err)
		}
		slowest := (occ + p.Banks - 1) / p.Banks
		if want := 2 + p.ReadLat*slowest; miss != want || int(rsp.RspWalked) != occ || rsp.RspHit != 0 {
			t.Errorf("occupancy %d: a miss took %d cycles walking %d entries; want %d cycles, %d entries", occ, miss, rsp.RspWalked, want, occ)
		}
		// a hit on the oldest (context 1): each bank stops at its first entry
		hit := -1
		if occ > 0 {
			rsp, hit, err = h.search(3, 5, 1, false, false)
			if err != nil || rsp.RspHit != 1 || rsp.RspHandle != 0 {
				t.Errorf("occupancy %d: the hit gave %s, %v", occ, pinsOut(&rsp), err)
			}
		}
		// a wildcard search that misses walks every entry of the arrival lists
		rsp, wild, err := h.search(0, 0, 0, true, true)
		if err != nil {
			h.close()
			t.Fatal(err)
		}
		left := max(occ-1, 0)
		if want := 2 + p.ReadLat*((left+p.Banks-1)/p.Banks); wild != want {
			t.Errorf("occupancy %d: a wildcard miss took %d cycles, want %d", occ, wild, want)
		}
		t.Log(fmt.Sprintf("bin occupancy %4d: miss %3d cycles, hit on the oldest %2d, wildcard miss %3d", occ, miss, hit, wild))
		h.close()
	}
}
