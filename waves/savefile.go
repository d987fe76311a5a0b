// Package waves writes GTKWave save files for the receive path's FST waveforms.
package waves

// waves writes GTKWave save files (.gtkw) for the receive path's FST waveforms:
// the signals grouped per block, buses in hex, state registers translated to their names, and
// named markers at the telling moments of the run, found by watching the board's ports while
// it ran (Events).

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Format is how GTKWave shows a trace's value.
type Format int

// Formats.
const (
	Bin Format = iota // one-bit signals
	Hex
	Dec
)

// GTKWave trace flags (gtkwave's analyzer.h): hex 0x2, decimal 0x4, binary 0x8, right
// justified 0x20, blank/comment line 0x200, translated by a file filter 0x2000, group begin
// 0x800000, group end 0x1000000.
const (
	flagHex        = 0x2
	flagDec        = 0x4
	flagBin        = 0x8
	flagRJustify   = 0x20
	flagBlank      = 0x200
	flagTranslated = 0x2000
	flagGroupBegin = 0x800000
	flagGroupEnd   = 0x1000000
)

// Trace is one signal in a save file.
type Trace struct {
	Name   string // hierarchical name as in the dump, with its range for buses: "lhs_top.lhs_top.rx.state_reg[1:0]"
	Format Format
	Enum   *Enum // names for values, shown instead of the numbers (hex traces only)
}

// Enum names the values of a state register. GTKWave reads it from a filter file written
// beside the save file.
type Enum struct {
	File   string   // file name, in the save file's folder
	Values []string // name of value i
}

// Group is a named, collapsible block of traces.
type Group struct {
	Name   string
	Traces []Trace
}

// Marker is a named marker; GTKWave shows up to 26, lettered A to Z.
type Marker struct {
	Name string
	Time uint64 // in the dump's time unit
}

// SaveFile is a GTKWave session: the dump, what is shown and where the markers are.
type SaveFile struct {
	Dump    string // path of the waveform; written absolute
	Groups  []Group
	Markers []Marker
	Cursor  int64 // primary marker time, -1 for none
	Start   uint64
	Zoom    float64 // GTKWave's zoom: 0 shows one time unit per 200 pixels; each -1 doubles that
	Unit    string  // the dump's time unit, for marker labels ("ns")
	Width   int     // window size in pixels
	Height  int
}

// GTKWave draws a named marker's name centred over it, in a font about labelCharPx wide per
// character (measured on GTKWave 3.3.118's screenshots); labelGapPx keeps two labels apart.
const (
	labelCharPx = 5
	labelGapPx  = 12
)

// Label is what the save file names a marker in GTKWave, and where that text sits in pixels
// at the save file's zoom (0 at time 0).
type Label struct {
	Text        string // " " for a marker whose event another marker's label tells
	Head        int    // the marker whose label tells this one's event (itself when it has its own)
	Left, Right float64
}

// PixelsPerUnit is how many pixels one dump time unit takes at the save file's zoom.
func (s *SaveFile) PixelsPerUnit() float64 { return 200 / math.Pow(2, -s.Zoom) }

// Labels lays out the markers' names so that none overlaps another at the save file's zoom:
// markers whose names would collide share one label, on the earliest of them, that names
// each with its letter (and its time, where it differs); the others show a blank, which
// GTKWave draws as nothing. Without this, markers a cycle or two apart (the first commit
// and the first back-pressure often fall in the same cycle) print their names over each
// other.
func (s *SaveFile) Labels() []Label {
	order := make([]int, len(s.Markers))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.Markers[order[a]].Time < s.Markers[order[b]].Time })
	px := s.PixelsPerUnit()
	// A cluster is markers (indexes, in time order) under one label, centred on the first.
	text := func(c []int) string {
		first := s.Markers[c[0]]
		if len(c) == 1 {
			return first.Name
		}
		parts := make([]string, len(c))
		for k, i := range c {
			m := s.Markers[i]
			parts[k] = fmt.Sprintf("%c %s", 'A'+i, m.Name)
			if m.Time != first.Time {
				parts[k] += " " + strings.TrimSpace(fmt.Sprintf("(at %d %s", m.Time, s.Unit)) + ")"
			}
		}
		return strings.Join(parts, ", ")
	}
	extent := func(c []int) (float64, float64) {
		x, half := float64(s.Markers[c[0]].Time)*px, float64(len(text(c))*labelCharPx)/2
		return x - half, x + half
	}
	var clusters [][]int
	for _, i := range order {
		clusters = append(clusters, []int{i})
	}
	for merged := true; merged; {
		merged = false
		for k := 0; k+1 < len(clusters); k++ {
			_, right := extent(clusters[k])
			left, _ := extent(clusters[k+1])
			if left < right+labelGapPx {
				clusters[k] = append(clusters[k], clusters[k+1]...)
				clusters = append(clusters[:k+1], clusters[k+2:]...)
				merged = true
				break
			}
		}
	}
	out := make([]Label, len(s.Markers))
	for _, c := range clusters {
		l, r := extent(c)
		out[c[0]] = Label{Text: text(c), Head: c[0], Left: l, Right: r}
		for _, i := range c[1:] {
			x := float64(s.Markers[i].Time) * px
			out[i] = Label{Text: " ", Head: c[0], Left: x, Right: x}
		}
	}
	return out
}

// Signals is every trace the save file shows, by name.
func (s *SaveFile) Signals() []string {
	var out []string
	for _, g := range s.Groups {
		for _, t := range g.Traces {
			out = append(out, t.Name)
		}
	}
	return out
}

func (f Format) flags() int {
	switch f {
	case Hex:
		return flagHex | flagRJustify
	case Dec:
		return flagDec | flagRJustify
	}
	return flagBin | flagRJustify
}

// WriteTo writes the save file; filter files of enums are the caller's (Write writes both).
func (s *SaveFile) WriteTo(w io.Writer) (int64, error) {
	return s.write(w, "")
}

func (s *SaveFile) write(w io.Writer, dir string) (int64, error) {
	var b strings.Builder
	dump := s.Dump
	if abs, err := filepath.Abs(dump); err == nil {
		dump = abs
	}
	fmt.Fprintf(&b, "[*] lhsim: receive-path signals per block; markers at the run's first events\n")
	fmt.Fprintf(&b, "[dumpfile] %q\n", dump)
	fmt.Fprintf(&b, "[timestart] %d\n", s.Start)
	if s.Width > 0 && s.Height > 0 {
		fmt.Fprintf(&b, "[size] %d %d\n", s.Width, s.Height)
	}
	if len(s.Markers) > 26 {
		return 0, fmt.Errorf("waves: %d markers; GTKWave names 26", len(s.Markers))
	}
	named := make([]string, 26)
	for i := range named {
		named[i] = "-1"
	}
	for i, m := range s.Markers {
		named[i] = fmt.Sprint(m.Time)
	}
	fmt.Fprintf(&b, "*%f %d %s\n", s.Zoom, s.Cursor, strings.Join(named, " "))
	for i, l := range s.Labels() {
		fmt.Fprintf(&b, "[markername] %c%s\n", 'A'+i, l.Text)
	}
	fmt.Fprintf(&b, "[sst_width] 200\n[signals_width] 290\n[sst_expanded] 0\n")
	filter := 0
	for _, g := range s.Groups {
		fmt.Fprintf(&b, "@%x\n-%s\n", flagGroupBegin|flagBlank, g.Name)
		for _, t := range g.Traces {
			flags := t.Format.flags()
			if t.Enum != nil {
				if t.Format != Hex {
					return 0, fmt.Errorf("waves: %s: names for values need a hex trace", t.Name)
				}
				filter++
				fmt.Fprintf(&b, "@%x\n^%d %s\n", flags|flagTranslated, filter, filepath.Join(dir, t.Enum.File))
			} else {
				fmt.Fprintf(&b, "@%x\n", flags)
			}
			fmt.Fprintf(&b, "%s\n", t.Name)
		}
		fmt.Fprintf(&b, "@%x\n-%s\n", flagGroupEnd|flagBlank, g.Name)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Write writes the save file to path, and beside it the filter files its enums need.
func (s *SaveFile) Write(path string) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, g := range s.Groups {
		for _, t := range g.Traces {
			if t.Enum == nil {
				continue
			}
			var b strings.Builder
			for v, name := range t.Enum.Values {
				fmt.Fprintf(&b, "%X %s\n", v, name)
			}
			if err := os.WriteFile(filepath.Join(dir, t.Enum.File), []byte(b.String()), 0o644); err != nil {
				return err
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := s.write(f, dir); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadSignals returns the traces a save file shows, in order (groups and comments left out).
func ReadSignals(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.ContainsAny(line[:1], "[*@-^") {
			continue
		}
		out = append(out, line)
	}
	return out, sc.Err()
}
