package goal

// Schedule generators: the patterns of LogGOPSim's Schedgen (src/Schedgen/schedgen.cpp at
// commit 76451de, root 0, tag 0, one rank block after another, labels l1, l2, ... per rank)
// and Schedgen2's incast and outcast (src/Schedgen2/additional_microbenchmarks.py), written
// in the text Schedgen writes so that LogGOPSim's txt2bin reads it too; and alltoall_late,
// lhsim's own: Schedgen's linear all-to-all whose receivers post late.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// GenConfig is a generator's input.
type GenConfig struct {
	Pattern string
	Ranks   int
	Size    int    // bytes per message in a basic step (Schedgen's --datasize)
	Segment int    // pipelinedring: bytes per segment (Schedgen's --segmentsize)
	Seed    uint64 // random_bisect, linear_alltoallv: the random pairing and sizes
	// LateNs is how long alltoall_late's receivers compute before posting their receives
	// (0: DefaultLateNs).
	LateNs int64
}

// DefaultLateNs is alltoall_late's default delay: 50 µs, longer than the sends of a 256-rank
// all-to-all take to land on the packet network (simulated: lhsim matchers' table), so that
// most messages arrive before their receive and wait in the unexpected queue.
const DefaultLateNs = 50_000

type genFunc func(g *genWriter, c GenConfig, rank int)

// Patterns are the generators by Schedgen's names.
var patterns = map[string]genFunc{
	"binomialtreebcast":  genBinomialBcast,
	"binomialtreereduce": genBinomialReduce,
	"binarytreebcast":    genBinaryBcast,
	"dissemination":      genDissemination,
	"allreduce_recdoub":  genRecDoub,
	"allreduce_ring":     genRing,
	"pipelinedring":      genPipelinedRing,
	"linear_alltoall":    genAlltoall,
	"alltoall_late":      genAlltoallLate,
	"linear_alltoallv":   genAlltoall,
	"gather":             genGather,
	"scatter":            genScatter,
	"incast":             genGather,
	"outcast":            genScatter,
	"random_bisect":      genBisect,
}

// Patterns lists the generators' names.
func Patterns() []string {
	var out []string
	for k := range patterns {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// genWriter writes one rank block at a time.
type genWriter struct {
	w     *bufio.Writer
	label int
	sizes [][]int // linear_alltoallv
	peer  []int   // random_bisect: peer[i] is host i's partner slot
	inv   []int
	n     int // ranks written (random_bisect drops an odd last rank)
}

func (g *genWriter) send(size, to int) int {
	g.label++
	fmt.Fprintf(g.w, "l%d: send %db to %d tag 0\n", g.label, size, to)
	return g.label
}

func (g *genWriter) recv(size, from int) int {
	g.label++
	fmt.Fprintf(g.w, "l%d: recv %db from %d tag 0\n", g.label, size, from)
	return g.label
}

func (g *genWriter) requires(a, b int) { fmt.Fprintf(g.w, "l%d requires l%d\n", a, b) }

// Generate writes the schedule of c.
func Generate(w io.Writer, c GenConfig) error {
	f, ok := patterns[c.Pattern]
	if !ok {
		return fmt.Errorf("goal gen: unknown pattern %q (want one of %s)", c.Pattern, strings.Join(Patterns(), ", "))
	}
	switch {
	case c.Ranks < 2 || c.Ranks > 1<<20:
		return fmt.Errorf("goal gen: %d ranks: want 2 to %d", c.Ranks, 1<<20)
	case c.Size < 1 || c.Size > 1<<40:
		return fmt.Errorf("goal gen: %d bytes: want 1 to %d", c.Size, int64(1)<<40)
	case c.Pattern == "allreduce_recdoub" && c.Ranks&(c.Ranks-1) != 0:
		return fmt.Errorf("goal gen: allreduce_recdoub on %d ranks: want a power of two (as Schedgen2 checks)", c.Ranks)
	case c.Pattern == "pipelinedring" && (c.Segment < 1 || c.Size/c.Segment > 1<<20):
		return fmt.Errorf("goal gen: pipelinedring with segments of %d bytes for %d bytes: want at least 1 byte and at most 2^20 segments", c.Segment, c.Size)
	}
	if c.LateNs < 0 || c.LateNs > 1<<50 {
		return fmt.Errorf("goal gen: late receivers after %d ns: want 0 to %d", c.LateNs, int64(1)<<50)
	}
	if quadratic := strings.Contains(c.Pattern, "alltoall"); quadratic && c.Ranks > 1<<14 {
		return fmt.Errorf("goal gen: %s on %d ranks writes %d operations: at most 16384 ranks", c.Pattern, c.Ranks, 2*c.Ranks*(c.Ranks-1))
	}
	g := &genWriter{w: bufio.NewWriterSize(w, 1<<16), n: c.Ranks}
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	switch c.Pattern {
	case "linear_alltoallv": // Schedgen: to the root datasize, else rand()%datasize+1
		g.sizes = make([][]int, c.Ranks)
		for i := range g.sizes {
			g.sizes[i] = make([]int, c.Ranks)
			for j := range g.sizes[i] {
				g.sizes[i][j] = c.Size
				if j != 0 {
					g.sizes[i][j] = rng.IntN(c.Size) + 1
				}
			}
		}
	case "random_bisect": // Schedgen's pairing: a random permutation, drawn its way
		if c.Ranks%2 == 1 {
			g.n--
		}
		n := g.n
		g.peer, g.inv = make([]int, n), make([]int, n)
		used := make([]bool, n)
		for k := 0; k < n; k++ {
			x := int(rng.Float64() * float64(n-k-1))
			pos := 0
			for ; ; pos++ {
				if !used[pos] {
					if x == 0 {
						break
					}
					x--
				}
			}
			used[pos] = true
			g.peer[k] = pos
		}
		for r := 0; r < n; r++ {
			g.inv[g.peer[r]] = r
		}
	}
	fmt.Fprintf(g.w, "num_ranks %d\n", g.n)
	for r := 0; r < g.n; r++ {
		g.label = 0
		fmt.Fprintf(g.w, "\nrank %d {\n", r)
		f(g, c, r)
		g.w.WriteString("}\n")
	}
	return g.w.Flush()
}

func ceilLog2(n int) int { return int(math.Ceil(math.Log2(float64(n)))) }

func genBinomialBcast(g *genWriter, c GenConfig, v int) {
	recv, send := -1, -1
	for r := 0; r < ceilLog2(c.Ranks); r++ {
		p := 1 << r
		if v+p < c.Ranks && v < p {
			send = g.send(c.Size, v+p)
		}
		if send >= 0 && recv >= 0 {
			g.requires(send, recv)
		}
		if v >= p && v < 2*p {
			recv = g.recv(c.Size, v-p)
		}
	}
}

func genBinomialReduce(g *genWriter, c GenConfig, v int) {
	send, recv := -1, -1
	for r := 0; r < ceilLog2(c.Ranks); r++ {
		p := 1 << r
		if v+p < c.Ranks && v < p {
			recv = g.recv(c.Size, v+p)
		}
		if send >= 0 && recv >= 0 {
			g.requires(send, recv)
		}
		if v >= p && v < 2*p {
			send = g.send(c.Size, v-p)
		}
	}
}

func genBinaryBcast(g *genWriter, c GenConfig, rank int) {
	// Node k's children are 2k+1 and 2k+2 (Schedgen's breadth-first queue).
	recv := -1
	var sends []int
	if rank > 0 {
		recv = g.recv(c.Size, (rank-1)/2)
	}
	for _, child := range []int{2*rank + 1, 2*rank + 2} {
		if child < c.Ranks {
			sends = append(sends, g.send(c.Size, child))
		}
	}
	if recv >= 0 {
		for _, s := range sends {
			g.requires(s, recv)
		}
	}
}

func genDissemination(g *genWriter, c GenConfig, rank int) {
	n, recv := c.Ranks, -1
	for dist := 1; dist < n; dist <<= 1 {
		send := g.send(c.Size, (rank+dist)%n)
		if recv != -1 {
			g.requires(send, recv)
		}
		recv = g.recv(c.Size, (rank-dist+n)%n)
	}
}

func genRecDoub(g *genWriter, c GenConfig, rank int) {
	steps := ceilLog2(c.Ranks)
	mask, size, last := 1, c.Size, -1
	for s := 0; s < steps; s++ { // reduce-scatter
		size /= 2
		id := g.send(size, rank^mask)
		if last != -1 {
			g.requires(id, last)
		}
		last = g.recv(size, rank^mask)
		mask <<= 1
	}
	mask >>= 1
	for s := 0; s < steps; s++ { // allgather
		id := g.send(size, rank^mask)
		if last != -1 {
			g.requires(id, last)
		}
		last = g.recv(size, rank^mask)
		size *= 2
		mask >>= 1
	}
}

func genRing(g *genWriter, c GenConfig, rank int) {
	n, last := c.Ranks, -1
	chunk := c.Size / n
	for phase := 0; phase < 2; phase++ {
		for s := 0; s < n-1; s++ {
			id := g.send(chunk, (rank+1)%n)
			if last != -1 {
				g.requires(id, last)
			}
			last = g.recv(chunk, (rank-1+n)%n)
		}
	}
}

func genPipelinedRing(g *genWriter, c GenConfig, rank int) {
	rounds := (c.Size + c.Segment - 1) / c.Segment
	for r := 0; r < rounds; r++ {
		psize := c.Segment
		if r == rounds-1 {
			psize = c.Size - c.Segment*r
		}
		recv, send := -1, -1
		if rank-1 >= 0 {
			recv = g.recv(psize, rank-1)
		}
		if rank+1 < c.Ranks {
			send = g.send(psize, rank+1)
		}
		if send > 0 && recv > 0 {
			g.requires(send, recv)
		}
	}
}

func genAlltoall(g *genWriter, c GenConfig, rank int) {
	n := c.Ranks
	for s := 1; s < n; s++ {
		to, from := (rank+s)%n, (rank-s+n)%n
		ss, rs := c.Size, c.Size
		if g.sizes != nil {
			ss, rs = g.sizes[rank][to], g.sizes[from][rank]
		}
		g.send(ss, to)
		g.recv(rs, from)
	}
}

// genAlltoallLate is linear_alltoall whose receives wait for a calc of LateNs: rank r sends
// to r+1, r+2, ... (mod n) at once and receives from r-1, r-2, ... once it has computed.
func genAlltoallLate(g *genWriter, c GenConfig, rank int) {
	late := c.LateNs
	if late == 0 {
		late = DefaultLateNs
	}
	g.label++
	calc := g.label
	fmt.Fprintf(g.w, "l%d: calc %d\n", calc, late)
	n := c.Ranks
	for s := 1; s < n; s++ {
		g.send(c.Size, (rank+s)%n)
		g.requires(g.recv(c.Size, (rank-s+n)%n), calc)
	}
}

func genGather(g *genWriter, c GenConfig, rank int) {
	if rank == 0 {
		for i := 1; i < c.Ranks; i++ {
			g.recv(c.Size, i)
		}
		return
	}
	g.send(c.Size, 0)
}

func genScatter(g *genWriter, c GenConfig, rank int) {
	if rank == 0 {
		for i := 1; i < c.Ranks; i++ {
			g.send(c.Size, i)
		}
		return
	}
	g.recv(c.Size, 0)
}

func genBisect(g *genWriter, c GenConfig, rank int) {
	dist := g.n / 2
	if k := g.inv[rank]; k < dist {
		g.send(c.Size, g.peer[k+dist])
	} else {
		g.recv(c.Size, g.peer[k-dist])
	}
}
