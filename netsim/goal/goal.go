// Package goal reads rank programs from text in a subset of GOAL, the schedule format of
// LogGOPSim (Hoefler, Schneider and Lumsdaine, "LogGOPSim", HPDC 2010), so that users can
// bring their own communication patterns to the simulated machine:
//
//	num_ranks 2
//	rank 0 {
//	  l1: send 1024b to 1 tag 5
//	  l2: calc 500
//	  l2 requires l1
//	}
//	rank 1 {
//	  l1: recv 1024b from 0 tag 5
//	}
//
// The subset: `send SIZEb to RANK tag T` (an MPI eager send, cluster.Rank.Send), `recv SIZEb
// from RANK tag T` (a blocking receive, cluster.Rank.Recv; RANK -1 and tag -1 match any),
// `calc N` (N nanoseconds of computation, cluster.Rank.Comp), and `A requires B` / `A
// irequires B` dependency lines. A rank runs its operations one after another in the order
// they are written, so a dependency is accepted when B comes before A (order satisfies it);
// a dependency on a later operation, which needs operations running side by side, is not in
// the subset and is refused with its line. Comments start with `//` or `#`.
package goal

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
)

// OpKind is an operation of the subset.
type OpKind uint8

// The operations.
const (
	Send OpKind = iota + 1
	Recv
	Calc
)

// Op is one labelled operation.
type Op struct {
	Label string
	Kind  OpKind
	Bytes int // send, recv
	Peer  int // send: destination; recv: source (-1: any)
	Tag   int // -1 on a recv: any
	Calc  netsim.Time
	Line  int
}

// Schedule is a parsed file: every rank's operations, in order.
type Schedule struct {
	Ranks [][]Op
}

// Parse reads a schedule and checks it: ranks numbered from 0 below num_ranks, peers that
// exist, sizes of at least 1 byte, labels defined once and dependencies on earlier operations.
func Parse(r io.Reader) (*Schedule, error) {
	sc := bufio.NewScanner(r)
	s := &Schedule{}
	rank := -1
	labels := map[string]int{} // label -> index in the current rank
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("goal: line %d: %q: %s", n, line, fmt.Sprintf(format, a...))
		}
		f := strings.Fields(line)
		switch {
		case f[0] == "num_ranks":
			if s.Ranks != nil {
				return nil, bad("num_ranks given twice")
			}
			v, err := number(f, 1)
			if err != nil || v < 1 || len(f) != 2 {
				return nil, bad("want num_ranks N, N >= 1")
			}
			s.Ranks = make([][]Op, v)
		case f[0] == "rank":
			if s.Ranks == nil {
				return nil, bad("rank before num_ranks")
			}
			v, err := number(f, 1)
			if err != nil || len(f) != 3 || f[2] != "{" || v < 0 || v >= len(s.Ranks) {
				return nil, bad("want rank R { with 0 <= R < %d", len(s.Ranks))
			}
			if rank >= 0 {
				return nil, bad("rank %d inside rank %d: a } is missing", v, rank)
			}
			if len(s.Ranks[v]) > 0 {
				return nil, bad("rank %d given twice", v)
			}
			rank, labels = v, map[string]int{}
		case f[0] == "}":
			if rank < 0 {
				return nil, bad("} outside a rank")
			}
			rank = -1
		case len(f) == 3 && (f[1] == "requires" || f[1] == "irequires"):
			if rank < 0 {
				return nil, bad("a dependency outside a rank")
			}
			a, okA := labels[f[0]]
			b, okB := labels[f[2]]
			switch {
			case !okA || !okB:
				return nil, bad("a dependency on a label not defined before it")
			case b >= a:
				return nil, bad("%s depends on %s, which comes later: operations run in the order written, so only dependencies on earlier ones are in the subset", f[0], f[2])
			}
		default:
			if rank < 0 {
				return nil, bad("an operation outside a rank")
			}
			op, err := parseOp(f, len(s.Ranks), rank)
			if err != nil {
				return nil, bad("%v", err)
			}
			if _, dup := labels[op.Label]; dup {
				return nil, bad("label %s defined twice in rank %d", op.Label, rank)
			}
			op.Line = n
			labels[op.Label] = len(s.Ranks[rank])
			s.Ranks[rank] = append(s.Ranks[rank], op)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	if s.Ranks == nil {
		return nil, fmt.Errorf("goal: no num_ranks line")
	}
	if rank >= 0 {
		return nil, fmt.Errorf("goal: rank %d is not closed with }", rank)
	}
	return s, nil
}

func number(f []string, i int) (int, error) {
	if i >= len(f) {
		return 0, fmt.Errorf("missing number")
	}
	return strconv.Atoi(f[i])
}

// parseOp reads `label: send 8b to 1 tag 0`, `label: recv 8b from 0 tag 0`, `label: calc 100`.
func parseOp(f []string, ranks, self int) (Op, error) {
	if len(f) < 3 || !strings.HasSuffix(f[0], ":") || len(f[0]) < 2 {
		return Op{}, fmt.Errorf("want LABEL: send|recv|calc ...")
	}
	op := Op{Label: strings.TrimSuffix(f[0], ":")}
	switch f[1] {
	case "calc":
		v, err := number(f, 2)
		if err != nil || v < 0 || len(f) != 3 {
			return op, fmt.Errorf("want calc N (nanoseconds, N >= 0)")
		}
		op.Kind, op.Calc = Calc, netsim.Time(v)*netsim.Nanosecond
		return op, nil
	case "send", "recv":
		word := map[string]string{"send": "to", "recv": "from"}[f[1]]
		if len(f) != 7 || f[3] != word || f[5] != "tag" || !strings.HasSuffix(f[2], "b") {
			return op, fmt.Errorf("want %s SIZEb %s RANK tag T", f[1], word)
		}
		size, err1 := strconv.Atoi(strings.TrimSuffix(f[2], "b"))
		peer, err2 := strconv.Atoi(f[4])
		tag, err3 := strconv.Atoi(f[6])
		if err1 != nil || err2 != nil || err3 != nil {
			return op, fmt.Errorf("size, rank and tag must be whole numbers")
		}
		if size < 1 {
			return op, fmt.Errorf("a message of %d bytes: want at least 1", size)
		}
		op.Bytes, op.Peer, op.Tag = size, peer, tag
		if f[1] == "send" {
			op.Kind = Send
			if peer < 0 || peer >= ranks || peer == self || tag < 0 {
				return op, fmt.Errorf("send to rank %d with tag %d: want another rank of 0..%d and a tag >= 0", peer, tag, ranks-1)
			}
			return op, nil
		}
		op.Kind = Recv
		if peer < -1 || peer >= ranks || peer == self || tag < -1 {
			return op, fmt.Errorf("recv from rank %d with tag %d: want another rank of 0..%d (or -1) and a tag >= -1", peer, tag, ranks-1)
		}
		return op, nil
	}
	return op, fmt.Errorf("unknown operation %q (the subset has send, recv and calc)", f[1])
}

// Program runs the schedule: rank r performs Ranks[r] in order.
func (s *Schedule) Program() cluster.Program {
	return func(r *cluster.Rank) {
		for _, op := range s.Ranks[r.ID()] {
			switch op.Kind {
			case Send:
				r.Send(op.Peer, op.Tag, op.Bytes)
			case Recv:
				r.Recv(op.Peer, op.Tag)
			case Calc:
				r.Comp(op.Calc)
			}
		}
	}
}
