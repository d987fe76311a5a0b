package tlm

import (
	"fmt"
	"sort"
)

// Release reports the host's release of entries LH entries (a write to LH_RELEASE) and of
// tailBytes bytes of the tail ring (TAIL_RELEASE), taking effect at the clock edge that ends
// cycle at: a first beat at cycle at+1 sees them. The host bus carries one write a cycle;
// both in one call act as lhs_rx's two release inputs in the same cycle.
//
// Releases come in cycle order (ErrOrder otherwise); several in one cycle add up. Each is
// checked as the hardware checks it, against what is held before cycle at's changes: the
// entries committed before at by the messages offered so far, the tail units reserved by
// their first beats before at. A refused release (ErrRelease) changes nothing.
func (n *NIC) Release(at uint64, entries, tailBytes uint32) error {
	if n.anyRel && at < n.lastRel {
		return fmt.Errorf("%w: release at cycle %d after one at cycle %d", ErrOrder, at, n.lastRel)
	}
	if tailBytes%16 != 0 {
		return fmt.Errorf("%w: %d tail bytes at cycle %d is not a 16-byte multiple", ErrRelease, tailBytes, at)
	}
	units := uint64(tailBytes / 16)
	if entries > 0 {
		if held := n.prodAt(at) - n.consRep; uint64(entries) > held {
			return fmt.Errorf("%w: %d LH entries at cycle %d, %d held", ErrRelease, entries, at, held)
		}
	}
	if units > 0 {
		if used := n.cumAt(at) - n.tailRep; units > used {
			return fmt.Errorf("%w: %d tail bytes at cycle %d, %d in use", ErrRelease, tailBytes, at, used*16)
		}
	}
	n.push(at, uint64(entries), units)
	return nil
}

// push takes a release that passed Release's checks.
func (n *NIC) push(at, entries, units uint64) {
	n.anyRel, n.lastRel = true, at
	if entries > 0 || units > 0 {
		n.rel = append(n.rel, release{at: at, entries: entries, units: units})
		n.consRep += entries
		n.tailRep += units
	}
	// Messages that committed before at are counted in full by every later release.
	for n.histHead < len(n.hist) && n.hist[n.histHead].commit < at {
		n.histBase = n.hist[n.histHead].cum
		n.histHead++
	}
	if n.histHead > 64 && 2*n.histHead >= len(n.hist) {
		n.hist = n.hist[:copy(n.hist, n.hist[n.histHead:])]
		n.histHead = 0
	}
}

// prodAt is LH_PROD during cycle r: the entries of the messages offered so far that
// committed before r.
func (n *NIC) prodAt(r uint64) uint64 {
	if !n.cfg.LHSOn {
		return 0
	}
	h := n.hist[n.histHead:]
	if len(h) == 0 || h[len(h)-1].commit < r {
		return n.prod
	}
	k := sort.Search(len(h), func(k int) bool { return h[k].commit >= r })
	return n.prod - uint64(len(h)-k)
}

// cumAt is the tail units reserved by the first beats before cycle r.
func (n *NIC) cumAt(r uint64) uint64 {
	h := n.hist[n.histHead:]
	if len(h) == 0 || h[len(h)-1].first < r {
		return n.cum
	}
	k := sort.Search(len(h), func(k int) bool { return h[k].first >= r })
	if k == 0 {
		return n.histBase
	}
	return h[k-1].cum
}
