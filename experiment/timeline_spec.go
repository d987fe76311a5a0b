package experiment

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// TimelineSpec is what a command's --timeline flags chose, as typed (docs/timeline.md):
// Options reads them once.
type TimelineSpec struct {
	Ranks  string      // only these ranks (nodes): 0-3,17 ("" all)
	Window string      // only events that overlap FROM:TO, µs of simulated time
	MaxMiB int         // stop writing events once the file reaches this many MiB
	Links  int         // a utilisation counter for each of this many busiest links
	Sample netsim.Time // the links' sampling span
	// OnCap is told, once, the simulated time in µs of the first event left out by MaxMiB.
	OnCap func(atUs float64)
}

// Options reads the filters; what does not parse is refused naming its flag.
func (s TimelineSpec) Options() (timeline.Options, error) {
	o := timeline.Options{MaxBytes: int64(s.MaxMiB) << 20, Links: s.Links, Sample: s.Sample}
	if s.OnCap != nil {
		o.OnCap = func(at netsim.Time) { s.OnCap(at.Microseconds()) }
	}
	if s.Ranks != "" {
		keep, upTo, err := parseRanks(s.Ranks)
		if err != nil {
			return o, Refuse("--timeline-ranks %q: %w", s.Ranks, err)
		}
		o.Ranks, o.RanksUpTo = keep, upTo
	}
	if s.Window != "" {
		from, to, ok := strings.Cut(s.Window, ":")
		var err error
		if !ok {
			err = errors.New("want FROM:TO in µs")
		}
		if err == nil && from != "" {
			o.From, err = parseUS(from)
		}
		if err == nil && to != "" {
			o.To, err = parseUS(to)
			if err == nil && o.To <= o.From {
				err = errors.New("TO must be after FROM")
			}
		}
		if err != nil {
			return o, Refuse("--timeline-window %q: %w", s.Window, err)
		}
	}
	return o, nil
}

// Timeline is an open timeline: the writer a command hands to its runs (the configs' Timeline
// fields) and closes when they end.
type Timeline = timeline.Writer

// Open is a timeline writer on w with the spec's filters.
func (s TimelineSpec) Open(w io.Writer) (*Timeline, error) {
	o, err := s.Options()
	if err != nil {
		return nil, err
	}
	return timeline.New(w, o), nil
}

func parseUS(s string) (netsim.Time, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	if !(v >= 0 && v <= 1e12) {
		return 0, errors.New("want µs from 0 to 1e12")
	}
	return netsim.Time(v*float64(netsim.Microsecond) + 0.5), nil
}

// parseRanks reads a list of ranks and ranges: 0-3,17; upTo is one past the highest.
func parseRanks(s string) (keep func(int) bool, upTo int, err error) {
	type span struct{ lo, hi int64 }
	var spans []span
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil || a < 0 || a > 1<<30 {
			return nil, 0, fmt.Errorf("%q: want 0 to %d", f, 1<<30)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a || b > 1<<30 {
				return nil, 0, fmt.Errorf("%q: want %d to %d", f, a, 1<<30)
			}
		}
		spans = append(spans, span{a, b})
		upTo = max(upTo, int(b)+1)
	}
	return func(r int) bool {
		for _, sp := range spans {
			if int64(r) >= sp.lo && int64(r) <= sp.hi {
				return true
			}
		}
		return false
	}, upTo, nil
}
