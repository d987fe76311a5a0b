package apptrace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/netsim/goal"
)

// gop is one GOAL operation while a rank is converted: its tag is still (space, tag), and
// cancelled ones stay in place (dead) until the rank is written.
type gop struct {
	kind  goal.Kind
	dead  bool
	size  uint64
	peer  uint32 // world rank or goal.Any
	space uint32 // the tag space: 2 x communicator index, +1 for its collectives
	tag   int32  // the program's tag or AnyTag
	deps  []int32
}

// conv is one conversion.
type conv struct {
	t        *Trace
	opt      Options
	st       Stats
	commIdx  map[uint64]uint32
	members  map[uint64][]int32
	ranks    [][]gop
	incoming []map[srcSpace]bool // per rank: who sends to it in which space
	anyTag   []anyTagRecv
}

type srcSpace struct{ src, space uint32 }

type anyTagRecv struct {
	rank, src, space uint32
	op               int32
}

func convert(w io.Writer, t *Trace, opt Options) (Stats, error) {
	if opt.ComputeScale == 0 {
		opt.ComputeScale = 1
	}
	if opt.ComputeScale < 0 || math.IsNaN(opt.ComputeScale) || math.IsInf(opt.ComputeScale, 0) {
		return Stats{}, fmt.Errorf("compute scale %v: want a positive number", opt.ComputeScale)
	}
	for c, a := range opt.Collectives {
		if !knownAlg(c, a) {
			return Stats{}, fmt.Errorf("%s: no algorithm %q (%s)", c, a, strings.Join(Algorithms(c), ", "))
		}
	}
	n := len(t.Ranks)
	if n == 0 {
		return Stats{}, fmt.Errorf("the trace has no ranks")
	}
	c := &conv{t: t, opt: opt, commIdx: map[uint64]uint32{CommWorld: 0}, members: map[uint64][]int32{},
		ranks: make([][]gop, n), incoming: make([]map[srcSpace]bool, n)}
	c.st.Ranks = n
	c.st.Collectives = map[string]int{}
	c.st.Unknown = map[string]int{}
	world := make([]int32, n)
	for i := range world {
		world[i] = int32(i)
	}
	c.members[CommWorld] = world
	ids := make([]uint64, 0, len(t.Comms))
	for id, cm := range t.Comms {
		ids = append(ids, id)
		c.members[id] = cm.Members
	}
	slices.Sort(ids)
	for i, id := range ids {
		c.commIdx[id] = uint32(i + 1)
	}
	c.st.Comms = len(ids) + 1
	for r := range t.Ranks {
		c.incoming[r] = map[srcSpace]bool{}
	}
	for r, calls := range t.Ranks {
		rc := newRankConv(c, r, len(calls))
		for i := range calls {
			if err := rc.call(&calls[i]); err != nil {
				return c.st, fmt.Errorf("rank %d, call %d (%s): %w", r, i+1, calls[i].Func, err)
			}
		}
		rc.flushCPU()
		c.ranks[r] = rc.ops
		c.st.Calls += len(calls)
	}
	c.st.Calls += t.Folded
	c.countCrossSpace()
	var refuse []string
	if len(c.st.Unknown) > 0 && !opt.Approximate {
		refuse = append(refuse, "MPI calls the conversion does not know: "+countList(c.st.Unknown)+" (--approximate drops them, keeping the computation before them)")
	}
	if c.st.CrossSpace > 0 && !opt.Approximate {
		refuse = append(refuse, fmt.Sprintf("%d any-tag receives could take a message of another communicator or of a collective (GOAL has no communicator; --approximate keeps them as any-tag receives)", c.st.CrossSpace))
	}
	if len(refuse) > 0 {
		return c.st, fmt.Errorf("%w: %s", ErrRefused, strings.Join(refuse, "; "))
	}
	return c.st, c.write(w)
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s x%d", k, m[k])
	}
	return b.String()
}

// countCrossSpace counts the any-tag receives that a message of another tag space could match:
// one from their source (any, for AnySource) in a space that is not theirs.
func (c *conv) countCrossSpace() {
	for _, a := range c.anyTag {
		if c.ranks[a.rank][a.op].dead {
			continue
		}
		for ss := range c.incoming[a.rank] {
			if ss.space != a.space && (a.src == goal.Any || a.src == ss.src) {
				c.st.CrossSpace++
				break
			}
		}
	}
}

// goalTag numbers the tag spaces: MPI_COMM_WORLD's point-to-point tags stay the program's,
// every other (space, tag) gets a number from 2^31 up, in the order first met.
type tagMap struct {
	m    map[[2]int64]uint32
	next uint32
}

func (tm *tagMap) get(space uint32, tag int32) (uint32, error) {
	if tag == AnyTag {
		return goal.Any, nil
	}
	if space == 0 {
		return uint32(tag), nil
	}
	k := [2]int64{int64(space), int64(tag)}
	if v, ok := tm.m[k]; ok {
		return v, nil
	}
	if tm.next >= math.MaxUint32-1 {
		return 0, fmt.Errorf("more than 2^31 tags across communicators")
	}
	v := tm.next
	tm.next++
	tm.m[k] = v
	return v, nil
}

// write writes the schedule: labels l1, l2, ... per rank over the live operations.
func (c *conv) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	tm := &tagMap{m: map[[2]int64]uint32{}, next: 1 << 31}
	fmt.Fprintf(bw, "num_ranks %d\n", len(c.ranks))
	var line []byte
	for r, ops := range c.ranks {
		fmt.Fprintf(bw, "rank %d {\n", r)
		label := make([]int32, len(ops))
		n := int32(0)
		for i := range ops {
			if ops[i].dead {
				label[i] = -1
				continue
			}
			n++
			label[i] = n
		}
		for i := range ops {
			op := &ops[i]
			if op.dead {
				continue
			}
			line = append(line[:0], "l"...)
			line = strconv.AppendInt(line, int64(label[i]), 10)
			line = append(line, ": "...)
			switch op.kind {
			case goal.Calc:
				line = append(line, "calc "...)
				line = strconv.AppendUint(line, op.size, 10)
			default:
				tag, err := tm.get(op.space, op.tag)
				if err != nil {
					return err
				}
				if op.kind == goal.Send {
					line = append(line, "send "...)
				} else {
					line = append(line, "recv "...)
					if op.peer == goal.Any || op.tag == AnyTag {
						c.st.WildcardRecvs++
					}
				}
				line = strconv.AppendUint(line, op.size, 10)
				if op.kind == goal.Send {
					line = append(line, "b to "...)
				} else {
					line = append(line, "b from "...)
				}
				line = appendWild(line, op.peer)
				line = append(line, " tag "...)
				line = appendWild(line, tag)
			}
			line = append(line, '\n')
			bw.Write(line)
			c.st.Ops++
		}
		for i := range ops {
			if ops[i].dead {
				continue
			}
			for _, d := range ops[i].deps {
				if label[d] < 0 {
					continue
				}
				line = append(line[:0], "l"...)
				line = strconv.AppendInt(line, int64(label[i]), 10)
				line = append(line, " requires l"...)
				line = strconv.AppendInt(line, int64(label[d]), 10)
				line = append(line, '\n')
				bw.Write(line)
			}
		}
		bw.WriteString("}\n")
	}
	return bw.Flush()
}

func appendWild(b []byte, v uint32) []byte {
	if v == goal.Any {
		return append(b, "-1"...)
	}
	return strconv.AppendUint(b, uint64(v), 10)
}
