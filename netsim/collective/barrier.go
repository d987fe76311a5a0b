// Package collective holds collective operations as rank programs, each with a contention-free model.
package collective

// collective holds collective operations written as rank programs for package
// cluster, each with a contention-free model of its time from the same parameters.
//
// Barriers (the NSIM-ACE paper's section 4) are built from RDMA puts of 8 bytes (the paper's ms = 8) and
// polls on their tags:
//   - ring (Figure 1): p-1 rounds of put to rank+1, poll; then complete the last put;
//   - recursive doubling (Figure 2): log2 p rounds of put to and poll from rank XOR 2^i; for a
//     p that is not a power of two, 2^n + r, the MPICH scheme the seed describes: ranks >= 2^n
//     first put to rank-2^n, the 2^n low ranks run the power-of-two barrier, then ranks < r
//     put to rank+2^n; then complete every put;
//   - dissemination (Hensgen, Finkel and Manber 1988): ceil(log2 p) rounds of put to
//     rank+2^k, poll from rank-2^k (mod p); then complete every put.

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
)

// Algorithm names a barrier.
type Algorithm string

// The barriers.
const (
	Ring              Algorithm = "ring"
	RecursiveDoubling Algorithm = "recursive_doubling"
	Dissemination     Algorithm = "dissemination"
)

// Algorithms are the barriers, in the order reports list them.
var Algorithms = []Algorithm{Ring, RecursiveDoubling, Dissemination}

// ParseAlgorithm checks a barrier name.
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown barrier %q (want %s)", s, strings.Join(names, ", "))
}

// PutBytes is each barrier put's size: the NSIM-ACE paper's Figures 1 and 2, ms = 8.
const PutBytes = 8

// OpKind is a step of a barrier.
type OpKind uint8

// The steps.
const (
	Put          OpKind = iota + 1 // put PutBytes to Peer with Tag
	Poll                           // wait for a put with Tag
	CompleteLast                   // wait until the last put has completed (ring, Figure 1)
	CompleteAll                    // wait until every put has completed (Figure 2)
)

// Op is one step of one rank.
type Op struct {
	Kind OpKind
	Peer int
	Tag  int
}

// Steps is what rank does in the barrier of p ranks.
func Steps(alg Algorithm, p, rank int) ([]Op, error) {
	if p < 2 {
		return nil, fmt.Errorf("barrier of %d processes: want at least 2", p)
	}
	if rank < 0 || rank >= p {
		return nil, fmt.Errorf("barrier: rank %d of %d", rank, p)
	}
	var ops []Op
	switch alg {
	case Ring:
		for range p - 1 {
			ops = append(ops, Op{Put, (rank + 1) % p, 0}, Op{Poll, 0, 0})
		}
		return append(ops, Op{Kind: CompleteLast}), nil
	case RecursiveDoubling:
		low := 1 << (bits.Len(uint(p)) - 1) // 2^n <= p
		r := p - low
		if rank >= low {
			ops = append(ops, Op{Put, rank - low, rank})
		} else if rank < r {
			ops = append(ops, Op{Poll, 0, rank + low})
		}
		if rank < low {
			for mask := 1; mask < low; mask <<= 1 {
				peer := rank ^ mask
				ops = append(ops, Op{Put, peer, rank}, Op{Poll, 0, peer})
			}
		}
		if rank < r {
			ops = append(ops, Op{Put, rank + low, rank})
		} else if rank >= low {
			ops = append(ops, Op{Poll, 0, rank - low})
		}
		return append(ops, Op{Kind: CompleteAll}), nil
	case Dissemination:
		for k, d := 0, 1; d < p; k, d = k+1, d<<1 {
			ops = append(ops, Op{Put, (rank + d) % p, k}, Op{Poll, 0, k})
		}
		return append(ops, Op{Kind: CompleteAll}), nil
	}
	_, err := ParseAlgorithm(string(alg))
	return nil, err
}

// Program is the barrier as a rank program for p ranks.
func Program(alg Algorithm, p int) (cluster.Program, error) {
	steps := make([][]Op, p)
	for rank := range p {
		var err error
		if steps[rank], err = Steps(alg, p, rank); err != nil {
			return nil, err
		}
	}
	return func(r *cluster.Rank) {
		var hs []*cluster.Handle
		for _, op := range steps[r.ID()] {
			switch op.Kind {
			case Put:
				hs = append(hs, r.Put(op.Peer, PutBytes, op.Tag))
			case Poll:
				r.Poll(op.Tag)
			case CompleteLast:
				r.Complete(hs[len(hs)-1])
			case CompleteAll:
				for _, h := range hs {
					r.Complete(h)
				}
			}
		}
	}, nil
}

// Run runs the barrier on the first p ranks of c, all starting now, and returns the time
// from the start to the last rank's return.
func Run(c *cluster.Cluster, alg Algorithm, p int) (netsim.Time, error) {
	prog, err := Program(alg, p)
	if err != nil {
		return 0, err
	}
	start := c.Now()
	res, err := c.Run(p, prog)
	if err != nil {
		return 0, fmt.Errorf("%s barrier of %d: %w", alg, p, err)
	}
	return res.End - start, nil
}
