// Package flagval is the one reader of the numbers a user types on lhsim's command line:
// every numeric flag of every command is one of its flags. Each checks the text as typed
// when the flag is parsed, before it is converted (to picoseconds, to a count) and before any
// work starts: NaN, ±Inf, a value past its range, or zero where zero means nothing is refused
// with the value as typed, and Explain turns the flag package's error into one line naming
// the flag and that value (the command exits 2; docs/bad-input.md).
package flagval

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

// MaxNodes bounds process and node counts given as numbers: fabric's largest network.
const MaxNodes = 1 << 22

// value is a numeric flag: the text as typed and how it is checked and stored.
type value struct {
	text string
	set  func(s string) error
	err  error  // why the last Set failed, for Explain
	bad  string // the text it failed on
}

func (f *value) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *value) Set(s string) error {
	f.err = f.set(strings.TrimSpace(s))
	if f.err != nil {
		f.bad = s
		return f.err
	}
	f.text = s
	return nil
}

// Var defines a numeric flag whose text set checks and stores; def is its default as shown.
func Var(fs *flag.FlagSet, name, def, usage string, set func(string) error) {
	fs.Var(&value{text: def, set: set}, name, usage)
}

// Explain is err, fs.Parse's, as "--NAME TEXT: why" when a flag of this package refused the
// text as typed; any other error as it is.
func Explain(fs *flag.FlagSet, err error) error {
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(*value); ok && v.err != nil {
			err = fmt.Errorf("--%s %s: %w", f.Name, v.bad, v.err)
		}
	})
	return err
}

// ParseFloat reads a finite number.
func ParseFloat(s string) (float64, error) {
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

// ParseInt reads a whole number in [lo, hi].
func ParseInt(s string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errorIsRange(err) {
		return 0, errors.New("not a whole number")
	}
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("want %d to %d", lo, hi)
	}
	return v, nil
}

// Int is a whole-number flag in [lo, hi].
func Int(fs *flag.FlagSet, p *int, name string, lo, hi int, usage string) {
	Var(fs, name, strconv.Itoa(*p), usage, func(s string) error {
		v, err := ParseInt(s, int64(lo), int64(hi))
		if err == nil {
			*p = int(v)
		}
		return err
	})
}

// Int64 is Int for an int64.
func Int64(fs *flag.FlagSet, p *int64, name string, lo, hi int64, usage string) {
	Var(fs, name, strconv.FormatInt(*p, 10), usage, func(s string) error {
		v, err := ParseInt(s, lo, hi)
		if err == nil {
			*p = v
		}
		return err
	})
}

// Uint64 is a whole-number flag in [lo, hi].
func Uint64(fs *flag.FlagSet, p *uint64, name string, lo, hi uint64, usage string) {
	Var(fs, name, strconv.FormatUint(*p, 10), usage, func(s string) error {
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

// Seed is a seed: any whole number that fits 64 bits.
func Seed(fs *flag.FlagSet, p *uint64, name, usage string) {
	Uint64(fs, p, name, 0, math.MaxUint64, usage)
}

// Ints is a comma-separated list of whole numbers in [lo, hi], at least one.
func Ints(fs *flag.FlagSet, p *[]int, name string, def []int, lo, hi int, usage string) {
	*p = def
	list(fs, p, name, joinInts(def), usage, "number", func(f string) (int, error) {
		v, err := ParseInt(f, int64(lo), int64(hi))
		return int(v), err
	})
}

// list is a comma-separated list of what parse reads, at least one (a what); a wrong item is
// named when the list has more than one.
func list[T any](fs *flag.FlagSet, p *[]T, name, def, usage, what string, parse func(string) (T, error)) {
	Var(fs, name, def, usage, func(s string) error {
		var out []T
		for _, f := range SplitList(s) {
			v, err := parse(f)
			if err != nil {
				return listItem(s, f, err)
			}
			out = append(out, v)
		}
		if len(out) == 0 {
			return errors.New("want at least one " + what)
		}
		*p = out
		return nil
	})
}

// Float is a number in [lo, hi] (a rate, a ratio, a bandwidth).
func Float(fs *flag.FlagSet, p *float64, name string, lo, hi float64, usage string) {
	Var(fs, name, strconv.FormatFloat(*p, 'g', -1, 64), usage, func(s string) error {
		v, err := checkFloat(s, lo, hi)
		if err == nil {
			*p = v
		}
		return err
	})
}

func checkFloat(s string, lo, hi float64) (float64, error) {
	v, err := ParseFloat(s)
	if err != nil {
		return 0, err
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("want %g to %g", lo, hi)
	}
	return v, nil
}

// Floats is a comma-separated list of numbers in [lo, hi], at least one.
func Floats(fs *flag.FlagSet, p *[]float64, name string, lo, hi float64, usage string) {
	list(fs, p, name, formatFloats(*p), usage, "number", func(f string) (float64, error) { return checkFloat(f, lo, hi) })
}

// TimeSpec is what a time flag takes: its unit (simtime.Microsecond for µs) and range. A zero
// Min takes 0; a positive one refuses what rounds below it.
type TimeSpec struct {
	Unit     simtime.Time
	UnitName string
	Min, Max simtime.Time
}

// Time flags' ranges: a delay or latency (at most a second, which leaves a run of a million
// steps far inside the simulator's time range) and a moment of a run (at most an hour); a
// host's time per message (not zero) and a moment to stop at (not zero).
var (
	DelayUS      = TimeSpec{simtime.Microsecond, "µs", 0, simtime.Second}
	MomentUS     = TimeSpec{simtime.Microsecond, "µs", 0, simtime.MaxInput}
	ConsumeUS    = TimeSpec{simtime.Microsecond, "µs", simtime.Picosecond, simtime.Second}
	CheckpointUS = TimeSpec{simtime.Microsecond, "µs", simtime.Picosecond, simtime.MaxInput}
)

// Parse reads a time typed in ts's unit.
func (ts TimeSpec) Parse(s string) (simtime.Time, error) {
	v, err := ParseFloat(s)
	if err != nil {
		return 0, err
	}
	t, err := simtime.FromFloat(v, ts.Unit)
	if err != nil {
		return 0, err
	}
	if t < ts.Min || t > ts.Max {
		return 0, fmt.Errorf("want %s to %s %s", fmtUnits(ts.Min, ts.Unit), fmtUnits(ts.Max, ts.Unit), ts.UnitName)
	}
	return t, nil
}

func fmtUnits(t, unit simtime.Time) string {
	return strconv.FormatFloat(float64(t)/float64(unit), 'g', -1, 64)
}

// Time is a time flag, typed in ts.Unit.
func Time(fs *flag.FlagSet, p *simtime.Time, name string, ts TimeSpec, usage string) {
	Var(fs, name, fmtUnits(*p, ts.Unit), usage, func(s string) error {
		t, err := ts.Parse(s)
		if err == nil {
			*p = t
		}
		return err
	})
}

// Times is a comma-separated list of times, at least one.
func Times(fs *flag.FlagSet, p *[]simtime.Time, name string, ts TimeSpec, usage string) {
	def := make([]string, len(*p))
	for i, t := range *p {
		def[i] = fmtUnits(t, ts.Unit)
	}
	list(fs, p, name, strings.Join(def, ","), usage, "time", ts.Parse)
}

// Nodes is a list of nodes, numbers and ranges (experiment.ParseNodeSet, the one reader of
// node lists, which --timeline-ranks takes too). With all, "all" (the default) is every
// node: nil.
func Nodes(fs *flag.FlagSet, p *[]int, name string, all bool, usage string) {
	def := ""
	if all {
		def = "all"
	}
	Var(fs, name, def, usage, func(s string) error {
		if all && s == "all" {
			*p = nil
			return nil
		}
		set, err := experiment.ParseNodeSet(s, MaxNodes)
		if err != nil {
			return err
		}
		if set.Size() > MaxNodes+1 { // a range as wide as the flag allows, written twice or more
			return fmt.Errorf("%d nodes: want at most %d", set.Size(), MaxNodes+1)
		}
		*p = set.Nodes()
		return nil
	})
}

// NoDefault hides the default of flags whose default is another flag's choice (a preset's).
func NoDefault(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		fs.Lookup(n).DefValue = ""
	}
}

// SplitList splits a comma-separated flag value, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
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
