package area

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Stat is what `stat -json` tells about a design: its cells by type, every level of the
// hierarchy counted, and the memories left unmapped.
type Stat struct {
	Creator  string
	Cells    map[string]int
	Memories int
	// Modules are the per-module counts (each module once, not multiplied by instances).
	Modules map[string]map[string]int
}

type statModule struct {
	NumMemories int            `json:"num_memories"`
	NumCells    int            `json:"num_cells"`
	CellsByType map[string]int `json:"num_cells_by_type"`
}

// maxCount bounds every count a report may give: far above any FPGA, low enough that sums
// and the site multiples of Classify cannot overflow.
const maxCount = 1 << 40

func countOK(n int) bool { return n >= 0 && n <= maxCount }

// check refuses counts no synthesis run reports (a corrupt or hand-edited file).
func (m statModule) check(where string) error {
	if !countOK(m.NumCells) || !countOK(m.NumMemories) {
		return fmt.Errorf("area: stat json: %s has %d cells, %d memories", where, m.NumCells, m.NumMemories)
	}
	for typ, n := range m.CellsByType {
		if !countOK(n) {
			return fmt.Errorf("area: stat json: %s has %d cells of type %q", where, n, typ)
		}
	}
	return nil
}

// ParseStat reads the output of Yosys `stat -json` (with -top: the "design" object holds the
// totals over the hierarchy; without: a single module is the design).
func ParseStat(data []byte) (Stat, error) {
	var raw struct {
		Creator string                `json:"creator"`
		Modules map[string]statModule `json:"modules"`
		Design  *statModule           `json:"design"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Stat{}, fmt.Errorf("area: stat json: %w", err)
	}
	s := Stat{Creator: raw.Creator, Modules: map[string]map[string]int{}}
	for name, m := range raw.Modules {
		if err := m.check("module " + name); err != nil {
			return Stat{}, err
		}
		s.Modules[strings.TrimPrefix(name, `\`)] = m.CellsByType
	}
	if raw.Design != nil {
		if err := raw.Design.check("design"); err != nil {
			return Stat{}, err
		}
	}
	switch {
	case raw.Design != nil:
		s.Cells, s.Memories = raw.Design.CellsByType, raw.Design.NumMemories
	case len(raw.Modules) == 1:
		for _, m := range raw.Modules {
			s.Cells, s.Memories = m.CellsByType, m.NumMemories
		}
	default:
		return Stat{}, errors.New("area: stat json has no design totals (run stat with -top)")
	}
	if s.Cells == nil {
		s.Cells = map[string]int{}
	}
	return s, nil
}

// Netlist counts that stat does not give, from `select -count` after flattening: the label
// lines written with `log`, each followed by "N objects.".
const (
	countCarryLUT = "carry_with_lut" // MUXCY whose select a LUT drives
	countPairs    = "pair_drivers"   // LUTs, inverters and XORCY that drive a flip-flop
)

var objectsRE = regexp.MustCompile(`^(\d+) objects\.$`)

// ParseCounts reads the labelled select counts.
func ParseCounts(data []byte) (map[string]int, error) {
	out := map[string]int{}
	label := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if m := objectsRE.FindStringSubmatch(line); m != nil {
			if label == "" {
				return nil, fmt.Errorf("area: count %q without a label", line)
			}
			n, err := strconv.Atoi(m[1])
			if err != nil || !countOK(n) {
				return nil, fmt.Errorf("area: count %q of %q is out of range", m[1], label)
			}
			out[label] = n
			label = ""
			continue
		}
		label = line
	}
	return out, sc.Err()
}

// lutSites is how many LUT sites a distributed RAM or shift-register cell takes.
var lutSites = map[Family]map[string]int{
	XC2VP: {
		"RAM16X1S": 1, "RAM16X1D": 2, "RAM32X1S": 2, "RAM32X1D": 4,
		"RAM64X1S": 4, "RAM64X1D": 8, "RAM128X1S": 8,
	},
	XC7: {
		"RAM32X1S": 1, "RAM32X1D": 2, "RAM64X1S": 1, "RAM64X1D": 2, "RAM128X1S": 2,
		"RAM128X1D": 4, "RAM256X1S": 4, "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8,
	},
}

// Classify turns cell counts into Resources (without the slice estimate and the netlist
// counts, which Count adds).
func Classify(f Family, cells map[string]int) Resources {
	r := Resources{}
	for typ, n := range cells {
		switch {
		case strings.HasPrefix(typ, "LUT") || typ == "INV":
			r.LUTs += n
		case lutSites[f][typ] > 0:
			r.LUTs += n * lutSites[f][typ]
			r.LUTRAMs += n * lutSites[f][typ]
		case strings.HasPrefix(typ, "SRL"):
			r.LUTs += n
			r.SRLs += n
		case strings.HasPrefix(typ, "FD") || strings.HasPrefix(typ, "LD"):
			r.FFs += n
		case strings.HasPrefix(typ, "RAMB16"), typ == "RAMB18E1":
			r.BRAMs += n
		case typ == "RAMB36E1":
			r.BRAMs += 2 * n
		case strings.HasPrefix(typ, "MULT18X18"), strings.HasPrefix(typ, "DSP48"):
			r.Mults += n
		case typ == "MUXCY", typ == "CARRY4":
			r.Carry += n
		case typ == "XORCY", typ == "MULT_AND", strings.HasPrefix(typ, "MUXF"),
			typ == "BUFG", typ == "IBUF", typ == "OBUF", typ == "OBUFT", typ == "IOBUF":
			// Part of a slice already counted by its LUTs, or not logic.
		default:
			if r.Other == nil {
				r.Other = map[string]int{}
			}
			r.Other[typ] += n
		}
	}
	return r
}

// Count builds the Resources of a design from its stat, its netlist counts and its
// flip-flops per control set (nil when not counted), and estimates its slices.
func Count(f Family, s Stat, counts map[string]int, controlSets []int) Resources {
	r := Classify(f, s.Cells)
	if f == XC2VP {
		r.CarryNoLUT = max(0, s.Cells["MUXCY"]-counts[countCarryLUT])
		r.Pairs = counts[countPairs]
		if controlSets != nil {
			r.SetControlSets(controlSets)
		}
	}
	r.Estimate(f)
	return r
}

// otherTypes lists unknown cell types for messages.
func otherTypes(m map[string]int) string {
	var s []string
	for t, n := range m {
		s = append(s, fmt.Sprintf("%s x%d", t, n))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
