package fabric

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Pattern is a synthetic traffic pattern by name, as network researchers use them
// (BookSim2's traffic patterns; Dally and Towles, ch. 3): where a node sends.
type Pattern interface {
	String() string
	// Dest is a destination for a packet from src.
	Dest(src int, rng *rand.Rand) int
}

// Permutation is a pattern in which every node always sends to the same node.
type Permutation interface {
	Pattern
	Perm(src int) int
}

// Patterns are the names ParsePattern reads.
var Patterns = []string{"uniform", "transpose", "tornado", "neighbor", "bitcomp", "shuffle"}

// ParsePattern reads a pattern for topo. Coordinates are topo.Radix()'s digits.
//
//   - uniform: every other node equally likely.
//   - transpose: the coordinates reversed ((x,y,z) to (z,y,x)); needs a radix list that
//     reads the same backwards. A crossbar of N = s*s nodes is taken as an s x s matrix.
//     Nodes on the diagonal send to themselves (through their router), as in BookSim2.
//   - tornado: each coordinate moved ceil(k/2)-1 forward: nearly half way round every ring,
//     all in one direction (the torus's adversary).
//   - neighbor: each coordinate moved 1 forward.
//   - bitcomp: the node number's bits complemented (BookSim2's bitcomp; 2^m nodes).
//   - shuffle: the node number's bits rotated left by one (BookSim2's shuffle; 2^m nodes).
func ParsePattern(name string, topo Topology) (Pattern, error) {
	radix := topo.Radix()
	n := topo.Nodes()
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "uniform", "uniform-random", "random":
		if n < 2 {
			return nil, fmt.Errorf("pattern uniform needs two nodes or more")
		}
		return uniform{n}, nil
	case "transpose":
		if _, ok := topo.(*Crossbar); ok {
			s := 1
			for s*s < n {
				s++
			}
			if s*s != n {
				return nil, fmt.Errorf("pattern transpose on %v: %d nodes is not a square", topo, n)
			}
			radix = []int{s, s}
		}
		for i := range radix {
			if radix[i] != radix[len(radix)-1-i] {
				return nil, fmt.Errorf("pattern transpose on %v: radices %v do not read the same backwards", topo, radix)
			}
		}
		return newPerm("transpose", radix, func(c []int) {
			for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
				c[i], c[j] = c[j], c[i]
			}
		}), nil
	case "tornado":
		return newPerm("tornado", radix, func(c []int) {
			for i := range c {
				c[i] = (c[i] + (radix[i]+1)/2 - 1) % radix[i]
			}
		}), nil
	case "neighbor", "neighbour":
		return newPerm("neighbor", radix, func(c []int) {
			for i := range c {
				c[i] = (c[i] + 1) % radix[i]
			}
		}), nil
	case "bitcomp", "shuffle":
		return bitPattern(strings.ToLower(strings.TrimSpace(name)), topo)
	}
	return nil, fmt.Errorf("unknown pattern %q (want one of %s)", name, strings.Join(Patterns, ", "))
}

// CheckPattern refuses a pattern under which no packet would cross the network: a
// permutation that sends every node to itself (tornado on radix 2, transpose of one node).
// Its throughput bound would be infinite and its latency that of no hop.
func CheckPattern(pat Pattern, topo Topology) error {
	if p, ok := pat.(Permutation); ok {
		for i := range topo.Nodes() {
			if p.Perm(i) != i {
				return nil
			}
		}
		return fmt.Errorf("pattern %s on %v sends every node to itself: no packet would cross the network (try neighbor, or a larger radix)", pat, topo)
	}
	return nil
}

// ParsePatternFor reads a pattern as router r draws it: BookSim2's for its router
// (ParseBookSimPattern), lhsim's otherwise (ParsePattern).
func ParsePatternFor(r RouterModel, name string, topo Topology) (Pattern, error) {
	if r == BookSimIQ {
		return ParseBookSimPattern(name, topo)
	}
	return ParsePattern(name, topo)
}

// bitPattern is one of BookSim2's bit permutations (traffic.cpp), which need 2^m nodes.
func bitPattern(name string, topo Topology) (Pattern, error) {
	n := topo.Nodes()
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("pattern %s on %v: %d nodes is not a power of two", name, topo, n)
	}
	p := &perm{name: name, to: make([]int, n)}
	for src := range n {
		switch name {
		case "bitcomp": // BitCompTrafficPattern::dest
			p.to[src] = ^src & (n - 1)
		case "shuffle": // ShuffleTrafficPattern::dest
			sh := src << 1
			p.to[src] = sh & (n - 1)
			if sh&n != 0 {
				p.to[src] |= 1
			}
		case "transpose": // TransposeTrafficPattern::dest: the high and low halves of the bits swapped
			shift := 0
			for m := n; m > 1; m >>= 1 {
				shift++
			}
			if shift%2 != 0 {
				return nil, fmt.Errorf("pattern transpose (BookSim2's) on %v: %d nodes is not an even power of two", topo, n)
			}
			shift /= 2
			lo := 1<<shift - 1
			p.to[src] = (src>>shift)&lo | (src<<shift)&(lo<<shift)
		}
	}
	return p, nil
}

// ParseBookSimPattern reads a pattern as BookSim2 draws it (traffic.cpp), for the booksim
// router: uniform is UniformRandomTrafficPattern, any node including the source itself
// (RandomInt(nodes-1)); transpose swaps the high and low halves of the node number's bits
// (an even power of two nodes); tornado, neighbor, bitcomp and shuffle are as ParsePattern
// has them (tornado and neighbor move each digit of the topology's radix, as BookSim2's
// do on its k-ary n-cube). On one node every pattern sends the node to itself, and none is
// taken, as ParsePattern takes none.
func ParseBookSimPattern(name string, topo Topology) (Pattern, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "uniform", "uniform-random", "random":
		if topo.Nodes() < 2 {
			return nil, fmt.Errorf("pattern uniform needs two nodes or more")
		}
		return uniformSelf{topo.Nodes()}, nil
	case "transpose":
		return bitPattern("transpose", topo)
	}
	return ParsePattern(name, topo)
}

type uniformSelf struct{ n int }

func (u uniformSelf) String() string                   { return "uniform" }
func (u uniformSelf) Dest(src int, rng *rand.Rand) int { return rng.IntN(u.n) }

type uniform struct{ n int }

func (u uniform) String() string { return "uniform" }
func (u uniform) Dest(src int, rng *rand.Rand) int {
	d := rng.IntN(u.n - 1)
	if d >= src {
		d++
	}
	return d
}

type perm struct {
	name string
	to   []int
}

func newPerm(name string, radix []int, f func(c []int)) *perm {
	n := 1
	for _, r := range radix {
		n *= r
	}
	p := &perm{name: name, to: make([]int, n)}
	c := make([]int, len(radix))
	for i := range n {
		x := i
		for j, r := range radix {
			c[j] = x % r
			x /= r
		}
		f(c)
		d, m := 0, 1
		for j, r := range radix {
			d += c[j] * m
			m *= r
		}
		p.to[i] = d
	}
	return p
}

func (p *perm) String() string                 { return p.name }
func (p *perm) Dest(src int, _ *rand.Rand) int { return p.to[src] }
func (p *perm) Perm(src int) int               { return p.to[src] }
