package experiment

import (
	"errors"
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
		set, err := ParseNodeSet(s.Ranks, 1<<30)
		if err != nil {
			return o, Refuse("--timeline-ranks %q: %w", s.Ranks, err)
		}
		o.Ranks, o.RanksUpTo = set.Has, set.UpTo()
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
