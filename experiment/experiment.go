// Package experiment holds what the experiments share: the protocol a command runs them by
// (a sweep's parts and merge, progress, the input error), plots and timelines.
package experiment

import (
	"io"
	"sync"

	"github.com/lhsim/lhsim/netsim"
)

// Part is one piece of a sweep: a configuration that runs alone, and how reports name it.
type Part[C any] struct {
	Label  string
	Config C
}

// Split cuts a sweep into one part per item: each a copy of cfg that narrow confines to its
// item, named by label.
func Split[C, T any](cfg C, items []T, label func(T) string, narrow func(*C, T)) []Part[C] {
	out := make([]Part[C], 0, len(items))
	for _, it := range items {
		c := cfg
		narrow(&c, it)
		out = append(out, Part[C]{Label: label(it), Config: c})
	}
	return out
}

// Sweep is a configuration whose run splits into parts that run on their own (at once on
// this machine, or as Slurm array tasks) and whose results merge, in Parts order, into the
// result of the whole run: the same bytes, but for what measures the machine.
type Sweep[C any, R any] interface {
	Parts() []Part[C]
	Merge(parts []*R) (*R, error)
}

// Table is a result the commands print: WriteTable for the terminal; --json and --out write
// the value itself as JSON (its struct tags, or its own MarshalJSON).
type Table interface {
	WriteTable(w io.Writer) error
}

// Figure is a Table that also draws itself for --plot, through plot.go (Curves, SavePanels).
type Figure interface {
	Table
	WritePlot(file string) error
}

// Progress counts a run's steps for whoever shows them: a run adds its steps to the total
// when it knows them (Expect) and tells each step as it ends (Step). The parts of a sweep
// share their configuration's Progress, so that parts run at once add to one count; a nil
// Progress counts nothing.
type Progress struct {
	mu          sync.Mutex
	done, total int64
	tell        func(done, total int64, note string)
	// parts is how many runs will Expect (Parts), expects how many have: until all have,
	// the total told is the mean part's times the parts.
	parts, expects int64
}

// NewProgress is a Progress that tells tell of every change, one call at a time.
func NewProgress(tell func(done, total int64, note string)) *Progress {
	return &Progress{tell: tell}
}

// Parts says that n runs will each Expect their steps (a sweep's parts run at once), so
// that the total told is the whole's from the first part on, exact once all have started.
func (p *Progress) Parts(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parts = int64(n)
}

// Expect adds n steps to the total.
func (p *Progress) Expect(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += n
	p.expects++
}

// Step tells of n more steps done; note, when not empty, says where the run is.
func (p *Progress) Step(n int64, note string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	total := p.total
	if p.expects > 0 && p.expects < p.parts {
		total = (total*p.parts + p.expects - 1) / p.expects
	}
	p.tell(p.done, max(total, p.done), note)
}

// WindowStats are a parallel run's windows (netsim.Parts: their count, length, events and the
// time threads waited), as a command reports them.
type WindowStats = netsim.WindowStats
