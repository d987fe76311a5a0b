package experiment

import (
	"fmt"
	"strconv"
	"strings"
)

// NodeSet is a list of nodes (or ranks) as a user writes one on any command: numbers and
// ranges, separated by commas, "0-3,17". It is the one reader of node lists: --rtl-nodes,
// --matcher-rtl-nodes, --trace's nodes and --timeline-ranks all take this form.
type NodeSet []NodeSpan

// NodeSpan is Lo to Hi, both included.
type NodeSpan struct{ Lo, Hi int }

// ParseNodeSet reads s; every node must lie in 0..max. An empty s (or one of commas and
// spaces) is the empty set.
func ParseNodeSet(s string, max int) (NodeSet, error) {
	var set NodeSet
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		if err != nil || a < 0 || a > int64(max) {
			return nil, nodeItem(s, f, fmt.Errorf("want node numbers 0 to %d, or ranges of them (0-3,17)", max))
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 64); err != nil || b < a || b > int64(max) {
				return nil, nodeItem(s, f, fmt.Errorf("want a range from %d to at most %d", a, max))
			}
		}
		set = append(set, NodeSpan{int(a), int(b)})
	}
	return set, nil
}

// nodeItem names the item of a longer list that is wrong.
func nodeItem(list, item string, err error) error {
	if strings.TrimSpace(list) == item {
		return err
	}
	return fmt.Errorf("%s: %w", item, err)
}

// Has says whether n is in the set.
func (ns NodeSet) Has(n int) bool {
	for _, sp := range ns {
		if n >= sp.Lo && n <= sp.Hi {
			return true
		}
	}
	return false
}

// UpTo is one past the highest node in the set.
func (ns NodeSet) UpTo() int {
	up := 0
	for _, sp := range ns {
		up = max(up, sp.Hi+1)
	}
	return up
}

// Size is how many nodes the set names, counting a node named twice twice.
func (ns NodeSet) Size() int {
	n := 0
	for _, sp := range ns {
		n += sp.Hi - sp.Lo + 1
	}
	return n
}

// Nodes lists the set's nodes in the order written (a node named twice appears twice, for
// the commands that refuse repeats to see it).
func (ns NodeSet) Nodes() []int {
	out := make([]int, 0, ns.Size())
	for _, sp := range ns {
		for n := sp.Lo; n <= sp.Hi; n++ {
			out = append(out, n)
		}
	}
	return out
}
