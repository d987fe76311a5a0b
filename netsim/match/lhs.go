package match

import (
	"fmt"
	"math"
	"sort"

	"github.com/lhsim/lhsim/netsim/goal"
)

// LHSCurve is what a search of the unexpected queue costs on the LHS paper's receive path, as
// the search rig measured it (rx.RunSearch: the device in RTL, Go model or TLM, the
// host model, the compiled search loop): Ns[i] is the search with Depths[i] messages ahead of
// the target. Between measured depths the cost is interpolated linearly; past the deepest,
// the LH buffer is full and every further message is searched where it lies whole, in NIC
// memory, at BeyondNsPerEntry (the rig's no-LHS cost per message).
type LHSCurve struct {
	Depths           []int
	Ns               []float64
	BeyondNsPerEntry float64
	Entries          int // LH buffer entries of the measured device
}

// Ps is the cost of a search with ahead messages ahead of its target.
func (c *LHSCurve) Ps(ahead int) uint64 {
	last := len(c.Depths) - 1
	if ahead >= c.Depths[last] {
		return uint64(math.Round((c.Ns[last] + float64(ahead-c.Depths[last])*c.BeyondNsPerEntry) * 1000))
	}
	i := sort.SearchInts(c.Depths, ahead)
	if c.Depths[i] == ahead {
		return uint64(math.Round(c.Ns[i] * 1000))
	}
	a, b := c.Depths[i-1], c.Depths[i]
	f := float64(ahead-a) / float64(b-a)
	return uint64(math.Round((c.Ns[i-1] + f*(c.Ns[i]-c.Ns[i-1])) * 1000))
}

func (c *LHSCurve) check() error {
	if len(c.Depths) == 0 || len(c.Depths) != len(c.Ns) || c.Depths[0] != 0 || !sort.IntsAreSorted(c.Depths) {
		return fmt.Errorf("match: lhs needs the search rig's curve from depth 0 (experiment/goal.MatchConfig)")
	}
	return nil
}

// lhsQueue is the unexpected queue on the LHS paper's receive path: the NIC writes each
// message's head into the LH buffer (no host time), and the host's search costs what the rig
// measured for that depth (a miss: a search past every entry). A match past the LH buffer's
// entries counts as a fallback: that message lay whole in NIC memory, searched without LHS.
type lhsQueue struct {
	u *unit
	c *LHSCurve
	goal.ListQueue
}

func (q *lhsQueue) Take(src, tag uint32) (goal.Entry, int, bool) {
	n := q.Len()
	e, d, ok := q.ListQueue.Take(src, tag)
	ahead := n
	if ok {
		ahead = d - 1
		if d > q.c.Entries {
			q.u.fallbacks++ // found past the LH buffer, whole in NIC memory
		}
	}
	q.u.hwPs += q.c.Ps(ahead)
	return e, d, ok
}
