package cluster

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/internal/testseed"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// A randomized workload: every rank issues puts, sends, gets and sync signals with
// computation between them, then takes what was sent to it (polls; receives by exact source
// and tag, by tag from any source, or anything, in the order they match; signals), then
// completes its puts and gets. Every call's return time and what it received are logged per
// rank: the order of arrivals at a NIC and of matching at a rank shows in them.
type workload struct {
	ops   [][]op // per rank, its issue phase
	takes [][]op // per rank, what it waits for
	recv  []int  // per rank: 0 exact, 1 any source, 2 anything
}

type op struct {
	kind      byte // 'p' put, 's' send, 'g' get, 'i' signal, 'c' comp; takes: 'P' poll, 'R' recv, 'W' wait signal
	peer, tag int
	size      int
	comp      netsim.Time
}

func newWorkload(rng *rand.Rand, n int) workload {
	w := workload{ops: make([][]op, n), takes: make([][]op, n), recv: make([]int, n)}
	for r := range n {
		w.recv[r] = rng.IntN(3)
	}
	for src := range n {
		for range rng.IntN(6) {
			dst := rng.IntN(n - 1)
			if dst >= src {
				dst++
			}
			size := 1 + rng.IntN(3000)
			if rng.IntN(3) == 0 {
				size = 1 + rng.IntN(16)
			}
			tag := rng.IntN(3)
			if rng.IntN(4) == 0 {
				w.ops[src] = append(w.ops[src], op{kind: 'c', comp: netsim.Time(rng.IntN(3)) * netsim.Time(rng.IntN(2000))})
			}
			switch rng.IntN(4) {
			case 0:
				w.ops[src] = append(w.ops[src], op{kind: 'p', peer: dst, tag: tag, size: size})
				w.takes[dst] = append(w.takes[dst], op{kind: 'P', tag: tag})
			case 1:
				w.ops[src] = append(w.ops[src], op{kind: 's', peer: dst, tag: tag, size: size})
				w.takes[dst] = append(w.takes[dst], op{kind: 'R', peer: src, tag: tag})
			case 2:
				w.ops[src] = append(w.ops[src], op{kind: 'g', peer: dst, size: size})
			case 3:
				w.ops[src] = append(w.ops[src], op{kind: 'i', peer: dst, tag: tag})
				w.takes[dst] = append(w.takes[dst], op{kind: 'W', tag: tag})
			}
		}
	}
	for r := range n {
		rng.Shuffle(len(w.takes[r]), func(i, j int) { w.takes[r][i], w.takes[r][j] = w.takes[r][j], w.takes[r][i] })
	}
	return w
}

// program runs w, each rank logging into logs[rank] (its own: ranks of different parts run
// at once).
func (w workload) program(logs [][]string) Program {
	return func(r *Rank) {
		id := r.ID()
		say := func(f string, a ...any) {
			logs[id] = append(logs[id], fmt.Sprintf("%d ", r.Now())+fmt.Sprintf(f, a...))
		}
		var hs []*Handle
		for _, o := range w.ops[id] {
			switch o.kind {
			case 'c':
				r.Comp(o.comp)
			case 'p':
				hs = append(hs, r.Put(o.peer, o.size, o.tag))
			case 's':
				r.Send(o.peer, o.tag, o.size)
			case 'g':
				hs = append(hs, r.Get(o.peer, o.size))
			case 'i':
				r.Signal(o.peer, o.tag)
			}
			say("%c", o.kind)
		}
		for _, o := range w.takes[id] {
			switch o.kind {
			case 'P':
				r.Poll(o.tag)
				say("poll %d", o.tag)
			case 'R':
				src, tag := o.peer, o.tag
				switch w.recv[id] {
				case 1:
					src = AnySource
				case 2:
					src, tag = AnySource, AnyTag
				}
				say("recv %+v", r.Recv(src, tag))
			case 'W':
				say("signal %+v", r.WaitSignal(o.tag))
			}
		}
		for _, h := range hs {
			r.Complete(h)
			say("complete")
		}
	}
}

// runWorkload runs w twice (a machine is reused across runs) on topo on parts parts (0: on
// one engine, the events of one instant in the order they were scheduled).
func runWorkload(t *testing.T, topo fabric.Topology, fc fabric.Config, cfg Config, parts int, w workload) ([][]string, []Result) {
	t.Helper()
	var c *Cluster
	var err error
	if parts == 0 {
		c, err = Build(topo, fc, cfg)
		require.NoError(t, err)
	} else {
		c, err = BuildParts(topo, fc, cfg, parts)
		require.NoError(t, err)
		defer c.Parts().Close()
		require.Equal(t, parts, c.Parts().Len())
	}
	logs := make([][]string, c.Size())
	var res []Result
	for range 2 {
		r, err := c.Run(c.Size(), w.program(logs))
		require.NoError(t, err)
		res = append(res, r)
	}
	return logs, res
}

// A machine on parts runs every rank's calls at the same times and receives the same
// messages in the same order on any number of parts (torus slabs, fat-tree subtrees, node
// latencies of zero, with ties everywhere, and more), run after run on one machine; and as a
// machine on one engine whose events are not keyed (a node's events touch only its own state
// and ports, so the order of two nodes' events of one instant changes nothing). A failure
// prints the SEED that replays it.
func TestPartsSameAsOne(t *testing.T) {
	seed := testseed.One(t, 39)
	testseed.ReplayOnFailure(t, seed, "./netsim/cluster")
	rng := rand.New(rand.NewPCG(seed, 2))
	topos := []string{"torus:4x4x4", "torus:4x6", "fattree:4x3", "fattree:2x4"}
	for trial := range 16 {
		topo, err := fabric.ParseTopology(topos[trial%len(topos)])
		require.NoError(t, err)
		fc := fabric.DefaultConfig()
		if rng.IntN(2) == 0 {
			fc.BufferFlits = 70 + rng.IntN(64) // a 1 KiB packet and a few flits
		}
		cfg := DefaultConfig()
		cfg.NodeLatency = []netsim.Time{0, 100 * netsim.Nanosecond, netsim.Microsecond}[rng.IntN(3)]
		parts := 2 + rng.IntN(min(3, fabric.MaxParts(topo, fc)-1))
		w := newWorkload(rng, topo.Nodes())
		what := fmt.Sprintf("trial %d: %v on %d parts, node latency %v", trial, topo, parts, cfg.NodeLatency)
		one, r1 := runWorkload(t, topo, fc, cfg, 1, w)
		many, rn := runWorkload(t, topo, fc, cfg, parts, w)
		plain, r0 := runWorkload(t, topo, fc, cfg, 0, w)
		require.Equal(t, r1, rn, what)
		require.Equal(t, r0, r1, "%s: one engine, not keyed", what)
		for rank := range one {
			require.Equal(t, one[rank], many[rank], "%s: rank %d", what, rank)
			require.Equal(t, plain[rank], one[rank], "%s: rank %d, one engine, not keyed", what, rank)
		}
		require.Greater(t, r1[0].Puts, topo.Nodes(), what)
	}
}

// On parts a run that fails (a bad call) or hangs says what the same run on one part says,
// and the machine runs the next program as if it had not: the programs left waiting, made
// on the parts' threads, are unwound from the caller's.
func TestPartsFailAndHang(t *testing.T) {
	topo, err := fabric.ParseTopology("torus:4x4x4")
	require.NoError(t, err)
	w := newWorkload(rand.New(rand.NewPCG(7, 7)), topo.Nodes())
	run := func(parts int) []string {
		c, err := BuildParts(topo, fabric.DefaultConfig(), DefaultConfig(), parts)
		require.NoError(t, err)
		defer c.Parts().Close()
		var says []string
		_, err = c.Run(c.Size(), func(r *Rank) {
			if r.ID() == 50 { // on the last part
				r.Comp(3 * netsim.Microsecond)
				r.Put(50, 8, 0)
			}
			r.Poll(9)
		})
		require.Error(t, err)
		says = append(says, err.Error())
		_, err = c.Run(c.Size(), func(r *Rank) {
			if r.ID()%2 == 0 {
				r.Put(r.ID()+1, 8, 1)
			}
			r.Poll(1)
		})
		require.ErrorIs(t, err, ErrHang)
		says = append(says, err.Error())
		logs := make([][]string, c.Size())
		res, err := c.Run(c.Size(), w.program(logs))
		require.NoError(t, err)
		for _, l := range logs {
			says = append(says, strings.Join(l, ", "))
		}
		return append(says, fmt.Sprint(res))
	}
	one := run(1)
	require.Contains(t, one[0], "rank 50: put to itself")
	require.Contains(t, one[1], "32 of 64 waiting: rank 0 in Poll(tag 1)")
	for _, parts := range []int{2, 4} {
		require.Equal(t, one, run(parts), "%d parts", parts)
	}
}
