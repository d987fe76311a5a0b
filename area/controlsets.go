package area

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Control sets: the two flip-flops of a Virtex-II Pro slice share their clock, clock enable
// and set/reset line (and whether that line acts synchronously), so only flip-flops with the
// same control signals can share a slice. The Yosys script writes the flip-flop-only
// netlist after synthesis (write_json); ControlSets groups its flip-flops by those signals,
// and the sizes of the groups, kept as <job>.csets.json beside the other reports, tighten
// the slice estimate (Resources.Estimate).

// ffControl are the control pins of the flip-flop primitives synth_xilinx maps to, by
// family of primitive: FDRE/FDSE (synchronous reset or set), FDCE/FDPE (asynchronous clear
// or preset), FDR/FDS/FDC/FDP and FDE/FD (no enable, no set/reset), and the _1 forms that
// take the falling edge.
var ffControl = []string{"C", "CE", "R", "S", "CLR", "PRE"}

// ControlSets groups the flip-flops of a JSON netlist by control set and returns the groups'
// sizes, largest first. Cells that are not flip-flops (FD*) are refused: the script deletes
// every other cell before writing the netlist, so another cell means a netlist from elsewhere.
func ControlSets(netlist []byte) ([]int, error) {
	var raw struct {
		Modules map[string]struct {
			Attributes map[string]json.RawMessage `json:"attributes"`
			Cells      map[string]struct {
				Type        string                     `json:"type"`
				Connections map[string]json.RawMessage `json:"connections"`
			} `json:"cells"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(netlist, &raw); err != nil {
		return nil, fmt.Errorf("area: flip-flop netlist: %w", err)
	}
	// The flattened top, and the blackboxes of the primitives it uses.
	tops := 0
	for name, m := range raw.Modules {
		if _, ok := m.Attributes["blackbox"]; ok {
			delete(raw.Modules, name)
			continue
		}
		tops++
	}
	if tops != 1 {
		return nil, fmt.Errorf("area: flip-flop netlist has %d modules, want the one flattened top", tops)
	}
	sets := map[string]int{}
	for _, m := range raw.Modules {
		for name, c := range m.Cells {
			if !strings.HasPrefix(c.Type, "FD") {
				return nil, fmt.Errorf("area: flip-flop netlist holds %s of type %s", name, c.Type)
			}
			// The set/reset line is one per slice, with a synchronous or asynchronous mode;
			// whether it sets or resets is chosen per flip-flop, so R and S (or CLR and PRE)
			// of two flip-flops on one net may share.
			mode := "sync"
			edge := "rise"
			if strings.HasSuffix(c.Type, "_1") {
				edge = "fall"
			}
			pins := map[string]string{"CE": "1", "SR": "0"}
			for _, p := range ffControl {
				v, ok := c.Connections[p]
				if !ok {
					continue
				}
				switch p {
				case "CLR", "PRE":
					mode = "async"
					pins["SR"] = string(v)
				case "R", "S":
					pins["SR"] = string(v)
				default:
					pins[p] = string(v)
				}
			}
			if _, ok := pins["C"]; !ok {
				return nil, fmt.Errorf("area: flip-flop %s (%s) has no clock", name, c.Type)
			}
			sets[fmt.Sprintf("%s %s C=%s CE=%s SR=%s", mode, edge, pins["C"], pins["CE"], pins["SR"])]++
		}
	}
	sizes := make([]int, 0, len(sets))
	for _, n := range sets {
		sizes = append(sizes, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	return sizes, nil
}

// controlSetsFile is what <job>.csets.json holds: the flip-flops of each control set.
type controlSetsFile struct {
	ControlSets []int `json:"control_sets"`
}

func writeControlSets(path string, sizes []int) error {
	data, err := json.Marshal(controlSetsFile{ControlSets: sizes})
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func readControlSets(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f controlSetsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("area: %s: %w", path, err)
	}
	for _, n := range f.ControlSets {
		if n <= 0 || !countOK(n) {
			return nil, fmt.Errorf("area: %s: a control set of %d flip-flops", path, n)
		}
	}
	return f.ControlSets, nil
}
