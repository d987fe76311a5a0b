package goal

// A rank's labels (Schedgen's l<N> in a table, others in a map) and, when the rank closes, its
// dependency graph: the edges as compressed lists (Rank.Done, Rank.Start, Rank.After) and a
// cycle, if any, named.

import (
	"fmt"
	"slices"
	"strings"
)

// lnumOf is N for a label l<N> that the table holds (Schedgen's labels), else -1.
func lnumOf(label []byte) int {
	if len(label) < 2 || len(label) > 7 || label[0] != 'l' || label[1] == '0' {
		return -1
	}
	n := 0
	for i := 1; i < len(label); i++ {
		c := label[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func (p *parser) label(name []byte) (uint32, bool) {
	if n := lnumOf(name); n >= 0 {
		if n < len(p.lnum) && p.lnum[n] > 0 {
			return p.lnum[n] - 1, true
		}
		return 0, false
	}
	i, ok := p.labels[string(name)]
	return i, ok
}

func (p *parser) define(name []byte, op uint32) {
	if n := lnumOf(name); n >= 0 {
		if n >= len(p.lnum) {
			size := max(n+1, 2*len(p.lnum))
			p.lnum = slices.Grow(p.lnum, size-len(p.lnum))[:size]
		}
		p.lnum[n] = op + 1
		p.lnumUsed = append(p.lnumUsed, uint32(n))
		return
	}
	if p.labels == nil {
		p.labels = map[string]uint32{}
	}
	p.labels[string(name)] = op
}

// nameOf is op i's label ("" when it has none), for a cycle report.
func (p *parser) nameOf(i uint32) string {
	for _, n := range p.lnumUsed {
		if p.lnum[n] == i+1 {
			return fmt.Sprintf("l%d", n)
		}
	}
	for k, v := range p.labels {
		if v == i {
			return k
		}
	}
	return ""
}

// closeRank resolves the rank's dependencies, checks them for a cycle and stores the rank.
func (p *parser) closeRank() error {
	for _, d := range p.pending {
		ia, okA := p.label([]byte(d.a))
		ib, okB := p.label([]byte(d.b))
		switch {
		case !okA:
			return p.errAt(d.line, d.col, "label %s is not defined in rank %d", d.a, p.rank)
		case !okB:
			return p.errAt(d.line, d.col, "label %s is not defined in rank %d", d.b, p.rank)
		}
		p.edges = append(p.edges, edge{from: ib, to: ia, start: d.start})
	}
	n := len(p.ops)
	r := Rank{Ops: slices.Clone(p.ops)}
	if len(p.edges) > 0 {
		r.Done = make([]uint32, n+1)
		r.Start = make([]uint32, n+1)
		nDone := 0
		for _, e := range p.edges {
			if e.start {
				r.Start[e.from+1]++
			} else {
				r.Done[e.from+1]++
				nDone++
			}
			r.Ops[e.to].Deps++
		}
		r.Start[0] = uint32(nDone)
		for i := 0; i < n; i++ {
			r.Done[i+1] += r.Done[i]
			r.Start[i+1] += r.Start[i]
		}
		r.After = make([]uint32, len(p.edges))
		fillD := append([]uint32(nil), r.Done[:n]...)
		fillS := append([]uint32(nil), r.Start[:n]...)
		for _, e := range p.edges {
			if e.start {
				r.After[fillS[e.from]] = e.to
				fillS[e.from]++
			} else {
				r.After[fillD[e.from]] = e.to
				fillD[e.from]++
			}
		}
		if err := p.cycle(&r); err != nil {
			return err
		}
	}
	p.s.Ranks[p.rank] = r
	p.s.NumOps += n
	p.s.NumDeps += len(p.edges)
	if p.lim.MaxBytes > 0 {
		if est := MemoryEstimate(uint64(len(p.s.Ranks)), uint64(p.s.NumOps), uint64(p.s.NumDeps)); est > p.lim.MaxBytes {
			return fmt.Errorf("goal: %w: %s after rank %d (line %d), over the %s available", ErrTooLarge, human(est), p.rank, p.line, human(p.lim.MaxBytes))
		}
	}
	p.rank = -1
	return nil
}

// cycle finds a dependency cycle (Kahn's algorithm; then a walk back along the waits of what
// is left, which must come round) and names it.
func (p *parser) cycle(r *Rank) error {
	n := len(r.Ops)
	deg := make([]uint32, n)
	queue := make([]uint32, 0, n)
	for i := range r.Ops {
		deg[i] = r.Ops[i].Deps
		if deg[i] == 0 {
			queue = append(queue, uint32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		i := int(queue[k])
		for _, j := range r.Requirers(i) {
			if deg[j]--; deg[j] == 0 {
				queue = append(queue, j)
			}
		}
		for _, j := range r.Irequirers(i) {
			if deg[j]--; deg[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	pred := make(map[uint32]uint32) // one waited-for op still left, for each op left
	for i := 0; i < n; i++ {
		if deg[i] == 0 {
			continue
		}
		for _, j := range append(append([]uint32(nil), r.Requirers(i)...), r.Irequirers(i)...) {
			if deg[j] > 0 {
				pred[j] = uint32(i)
			}
		}
	}
	var at uint32
	for i := 0; i < n; i++ {
		if deg[i] > 0 {
			at = uint32(i)
			break
		}
	}
	onPath := map[uint32]int{}
	var path []uint32
	for {
		if k, ok := onPath[at]; ok {
			path = path[k:]
			break
		}
		onPath[at] = len(path)
		path = append(path, at)
		at = pred[at]
	}
	// path runs against the waits: path[k+1] is waited for by path[k].
	var b strings.Builder
	for k, i := range path {
		if k > 0 {
			b.WriteString(" waits for ")
		}
		b.WriteString(p.opName(i))
	}
	fmt.Fprintf(&b, " waits for %s", p.opName(path[0]))
	first := r.Ops[path[0]]
	return p.errAt(int(first.Line), 1, "rank %d: a dependency cycle: %s", p.rank, b.String())
}

func (p *parser) opName(i uint32) string {
	name := p.nameOf(i)
	if name == "" {
		name = "an unlabelled " + p.ops[i].Kind.String()
	}
	return fmt.Sprintf("%s (line %d)", name, p.ops[i].Line)
}
