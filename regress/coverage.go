package regress

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Verilator coverage (coverage.dat, "SystemC::Coverage-3"): one line per point,
//   C '<key>\x02<value>\x01<key>\x02<value>...' <count>
// with keys f (file), l (line), page (v_line/<module>, v_branch/..., v_toggle/...; a
// parameterized module's name carries a __<suffix>), o (the point: a signal bit for toggles,
// "if", "else", "block"... for lines), h (the instance).

// CoveragePoint is one coverage point.
type CoveragePoint struct {
	Kind     string // line, branch or toggle
	Module   string
	File     string
	Line     int
	What     string // the signal bit or statement the point counts
	Instance string
	Count    uint64
}

// CoverageRow sums a module's points over all its instances.
type CoverageRow struct {
	Module                string
	Instances             int
	Lines, LinesHit       int
	Branches, BranchesHit int
	Toggles, TogglesHit   int
	instances             map[string]bool
	uncovered             []CoveragePoint
}

// Coverage is a coverage file read by module.
type Coverage struct {
	Rows   []*CoverageRow // by module name
	Points []CoveragePoint
}

// ReadCoverage parses a Verilator coverage.dat.
func ReadCoverage(r io.Reader) (*Coverage, error) {
	c := &Coverage{}
	rows := map[string]*CoverageRow{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "C '") {
			continue
		}
		end := strings.LastIndexByte(line, '\'')
		if end < 3 {
			return nil, fmt.Errorf("coverage line %d: no closing quote", n)
		}
		count, err := strconv.ParseUint(strings.TrimSpace(line[end+1:]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("coverage line %d: %w", n, err)
		}
		p := CoveragePoint{Count: count}
		for _, kv := range strings.Split(line[3:end], "\x01") {
			k, v, _ := strings.Cut(kv, "\x02")
			switch k {
			case "f":
				p.File = v
			case "l":
				p.Line, _ = strconv.Atoi(v)
			case "o":
				p.What = v
			case "h":
				p.Instance = v
			case "page":
				kind, mod, _ := strings.Cut(v, "/")
				p.Kind = strings.TrimPrefix(kind, "v_")
				if i := strings.Index(mod, "__"); i > 0 {
					mod = mod[:i]
				}
				p.Module = mod
			}
		}
		row := rows[p.Module]
		if row == nil {
			row = &CoverageRow{Module: p.Module, instances: map[string]bool{}}
			rows[p.Module] = row
		}
		row.instances[p.Instance] = true
		hit := 0
		if p.Count > 0 {
			hit = 1
		} else {
			row.uncovered = append(row.uncovered, p)
		}
		switch p.Kind {
		case "line":
			row.Lines++
			row.LinesHit += hit
		case "branch":
			row.Branches++
			row.BranchesHit += hit
		case "toggle":
			row.Toggles++
			row.TogglesHit += hit
		}
		c.Points = append(c.Points, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, r := range rows {
		r.Instances = len(r.instances)
		c.Rows = append(c.Rows, r)
	}
	sort.Slice(c.Rows, func(i, j int) bool { return c.Rows[i].Module < c.Rows[j].Module })
	return c, nil
}

// Total sums every module.
func (c *Coverage) Total() CoverageRow {
	t := CoverageRow{Module: "total"}
	for _, r := range c.Rows {
		t.Instances += r.Instances
		t.Lines += r.Lines
		t.LinesHit += r.LinesHit
		t.Branches += r.Branches
		t.BranchesHit += r.BranchesHit
		t.Toggles += r.Toggles
		t.TogglesHit += r.TogglesHit
	}
	return t
}

func percent(hit, all int) string {
	if all == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(hit)/float64(all), hit, all)
}

// Print writes coverage per module: line (statement blocks), branch (if/else and case arms:
// Verilator counts both as line coverage) and toggle (every bit seen going 0->1 and 1->0).
func (c *Coverage) Print(w io.Writer) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("module", "instances", "line", "branch", "toggle")
	total := c.Total()
	for _, r := range append(c.Rows, &total) {
		if err := t.Append(r.Module, fmt.Sprint(r.Instances), percent(r.LinesHit, r.Lines),
			percent(r.BranchesHit, r.Branches), percent(r.TogglesHit, r.Toggles)); err != nil {
			return err
		}
	}
	return t.Render()
}

// PrintUncovered lists the line and branch points never reached, merged over instances (a
// point reached in any instance counts as reached), and how many toggle bits never toggled.
func (c *Coverage) PrintUncovered(w io.Writer) error {
	type key struct {
		kind, file string
		line       int
		what       string
	}
	reached := map[key]bool{}
	var order []key
	for _, p := range c.Points {
		if p.Kind == "toggle" {
			continue
		}
		k := key{p.Kind, p.File, p.Line, p.What}
		if _, seen := reached[k]; !seen {
			order = append(order, k)
		}
		reached[k] = reached[k] || p.Count > 0
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].file != order[j].file {
			return order[i].file < order[j].file
		}
		return order[i].line < order[j].line
	})
	n := 0
	for _, k := range order {
		if !reached[k] {
			n++
			if _, err := fmt.Fprintf(w, "  %s:%d  %s %s\n", k.file, k.line, k.kind, k.what); err != nil {
				return err
			}
		}
	}
	if n == 0 {
		if _, err := fmt.Fprintln(w, "  every line and branch point was reached"); err != nil {
			return err
		}
	}
	return c.printUntoggled(w)
}

// printUntoggled lists, per signal, the bits that never toggled (in any instance).
func (c *Coverage) printUntoggled(w io.Writer) error {
	type bit struct{ module, bit string }
	toggled := map[bit]bool{}
	for _, p := range c.Points {
		if p.Kind == "toggle" {
			k := bit{p.Module, p.What}
			toggled[k] = toggled[k] || p.Count > 0
		}
	}
	type signal struct{ module, name string }
	bits, never := map[signal]int{}, map[signal]int{}
	for k, t := range toggled {
		name := k.bit
		if i := strings.IndexByte(name, '['); i > 0 {
			name = name[:i]
		}
		s := signal{k.module, name}
		bits[s]++
		if !t {
			never[s]++
		}
	}
	var list []signal
	for s := range never {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].module != list[j].module {
			return list[i].module < list[j].module
		}
		return list[i].name < list[j].name
	})
	if _, err := fmt.Fprintln(w, "signals with bits that never toggled (bits never toggled / bits):"); err != nil {
		return err
	}
	for _, s := range list {
		if _, err := fmt.Fprintf(w, "  %s.%s  %d/%d\n", s.module, s.name, never[s], bits[s]); err != nil {
			return err
		}
	}
	return nil
}
