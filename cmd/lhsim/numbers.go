package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/simtime"
)

// The one place a number the user types is read: every numeric flag of every command is one
// of the flags below. Each checks the text as typed when the flag is parsed, before it is
// converted (to picoseconds, to a count) and before any work starts: NaN, ±Inf, a value past
// its range, or zero where zero means nothing is refused with the value as typed, and the
// command exits 2 (parse reports it; docs/bad-input.md).

// numFlag is a numeric flag: the text as typed and how it is checked and stored.
type numFlag struct {
	text string
	set  func(s string) error
	err  error  // why the last Set failed, for parse's message
	bad  string // the text it failed on
}

func (f *numFlag) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *numFlag) Set(s string) error {
	f.err = f.set(strings.TrimSpace(s))
	if f.err != nil {
		f.bad = s
		return f.err
	}
	f.text = s
	return nil
}

func numVar(fs *flag.FlagSet, name, def, usage string, set func(string) error) {
	fs.Var(&numFlag{text: def, set: set}, name, usage)
}

// parseFloat reads a finite number.
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errorIsRange(err) {
		return 0, errors.New("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not a finite number")
	}
	return v, nil
}

func errorIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseInt reads a whole number in [lo, hi].
func parseInt(s string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errorIsRange(err) {
		return 0, errors.New("not a whole number")
	}
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("want %d to %d", lo, hi)
	}
	return v, nil
}

// intVar is a whole-number flag in [lo, hi].
func intVar(fs *flag.FlagSet, p *int, name string, lo, hi int, usage string) {
	numVar(fs, name, strconv.Itoa(*p), usage, func(s string) error {
		v, err := parseInt(s, int64(lo), int64(hi))
		if err == nil {
			*p = int(v)
		}
		return err
	})
}

// int64Var is intVar for an int64.
func int64Var(fs *flag.FlagSet, p *int64, name string, lo, hi int64, usage string) {
	numVar(fs, name, strconv.FormatInt(*p, 10), usage, func(s string) error {
		v, err := parseInt(s, lo, hi)
		if err == nil {
			*p = v
		}
		return err
	})
}

// uint64Var is a whole-number flag in [lo, hi].
func uint64Var(fs *flag.FlagSet, p *uint64, name string, lo, hi uint64, usage string) {
	numVar(fs, name, strconv.FormatUint(*p, 10), usage, func(s string) error {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil && !errorIsRange(err) {
			return errors.New("not a whole number of at least 0")
		}
		if err != nil || v < lo || v > hi {
			return fmt.Errorf("want %d to %d", lo, hi)
		}
		*p = v
		return nil
	})
}

// seedVar is a seed: any whole number that fits 64 bits.
func seedVar(fs *flag.FlagSet, p *uint64, name, usage string) {
	uint64Var(fs, p, name, 0, math.MaxUint64, usage)
}

// intsVar is a comma-separated list of whole numbers in [lo, hi], at least one.
func intsVar(fs *flag.FlagSet, p *[]int, name string, def []int, lo, hi int, usage string) {
	*p = def
	numVar(fs, name, joinInts(def), usage, func(s string) error {
		var out []int
		for _, f := range splitList(s) {
			v, err := parseInt(f, int64(lo), int64(hi))
			if err != nil {
				return listItem(s, f, err)
			}
			out = append(out, int(v))
		}
		if len(out) == 0 {
			return errors.New("want at least one number")
		}
		*p = out
		return nil
	})
}

// floatVar is a number in [lo, hi] (a rate, a ratio, a bandwidth).
func floatVar(fs *flag.FlagSet, p *float64, name string, lo, hi float64, usage string) {
	numVar(fs, name, strconv.FormatFloat(*p, 'g', -1, 64), usage, func(s string) error {
		v, err := checkFloat(s, lo, hi)
		if err == nil {
			*p = v
		}
		return err
	})
}

func checkFloat(s string, lo, hi float64) (float64, error) {
	v, err := parseFloat(s)
	if err != nil {
		return 0, err
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("want %g to %g", lo, hi)
	}
	return v, nil
}

// floatsVar is a comma-separated list of numbers in [lo, hi], at least one.
func floatsVar(fs *flag.FlagSet, p *[]float64, name string, lo, hi float64, usage string) {
	numVar(fs, name, formatFloats(*p), usage, func(s string) error {
		var out []float64
		for _, f := range splitList(s) {
			v, err := checkFloat(f, lo, hi)
			if err != nil {
				return listItem(s, f, err)
			}
			out = append(out, v)
		}
		if len(out) == 0 {
			return errors.New("want at least one number")
		}
		*p = out
		return nil
	})
}

// timeSpec is what a time flag takes: its unit (simtime.Microsecond for µs) and range. A zero
// min takes 0; a positive one refuses what rounds below it.
type timeSpec struct {
	unit     simtime.Time
	unitName string
	min, max simtime.Time
}

// Time flags' ranges: a delay or latency (at most a second, which leaves a run of a million
// steps far inside the simulator's time range) and a moment of a run (at most an hour).
var (
	delayUS  = timeSpec{simtime.Microsecond, "µs", 0, simtime.Second}
	momentUS = timeSpec{simtime.Microsecond, "µs", 0, simtime.MaxInput}
	// consumeUS is a host's time per message (not zero); checkpointUS a moment to stop at.
	consumeUS    = timeSpec{simtime.Microsecond, "µs", simtime.Picosecond, simtime.Second}
	checkpointUS = timeSpec{simtime.Microsecond, "µs", simtime.Picosecond, simtime.MaxInput}
)

func (ts timeSpec) parse(s string) (simtime.Time, error) {
	v, err := parseFloat(s)
	if err != nil {
		return 0, err
	}
	t, err := simtime.FromFloat(v, ts.unit)
	if err != nil {
		return 0, err
	}
	if t < ts.min || t > ts.max {
		return 0, fmt.Errorf("want %s to %s %s", fmtUnits(ts.min, ts.unit), fmtUnits(ts.max, ts.unit), ts.unitName)
	}
	return t, nil
}

func fmtUnits(t, unit simtime.Time) string {
	return strconv.FormatFloat(float64(t)/float64(unit), 'g', -1, 64)
}

// timeVar is a time flag, typed in ts.unit.
func timeVar(fs *flag.FlagSet, p *simtime.Time, name string, ts timeSpec, usage string) {
	numVar(fs, name, fmtUnits(*p, ts.unit), usage, func(s string) error {
		t, err := ts.parse(s)
		if err == nil {
			*p = t
		}
		return err
	})
}

// timesVar is a comma-separated list of times, at least one.
func timesVar(fs *flag.FlagSet, p *[]simtime.Time, name string, ts timeSpec, usage string) {
	def := make([]string, len(*p))
	for i, t := range *p {
		def[i] = fmtUnits(t, ts.unit)
	}
	numVar(fs, name, strings.Join(def, ","), usage, func(s string) error {
		var out []simtime.Time
		for _, f := range splitList(s) {
			t, err := ts.parse(f)
			if err != nil {
				return listItem(s, f, err)
			}
			out = append(out, t)
		}
		if len(out) == 0 {
			return errors.New("want at least one time")
		}
		*p = out
		return nil
	})
}

// listItem names the item of a list that is wrong, when the list has more than one.
func listItem(list, item string, err error) error {
	if strings.TrimSpace(list) == item {
		return err
	}
	return fmt.Errorf("%s: %w", item, err)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// maxRanks bounds process and node counts given as numbers: fabric's largest network.
const maxRanks = 1 << 22

// maxCycles bounds a count of router cycles given as a number: a billion cycles, hours of
// simulation, far inside the simulator's time range at any clock up to a millisecond.
const maxCycles = 1_000_000_000

// noDefault hides the default of flags whose default is another flag's choice (a preset's).
func noDefault(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		fs.Lookup(n).DefValue = ""
	}
}

// nodesVar is a list of nodes, numbers and ranges (experiment.ParseNodeSet, the one reader of
// node lists, which --timeline-ranks takes too). With all, "all" (the default) is every
// node: nil.
func nodesVar(fs *flag.FlagSet, p *[]int, name string, all bool, usage string) {
	def := ""
	if all {
		def = "all"
	}
	numVar(fs, name, def, usage, func(s string) error {
		if all && s == "all" {
			*p = nil
			return nil
		}
		set, err := experiment.ParseNodeSet(s, maxRanks)
		if err != nil {
			return err
		}
		if set.Size() > maxRanks+1 { // a range as wide as the flag allows, written twice or more
			return fmt.Errorf("%d nodes: want at most %d", set.Size(), maxRanks+1)
		}
		*p = set.Nodes()
		return nil
	})
}
