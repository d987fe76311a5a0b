package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// timelineFlags are --timeline and its filters on the network commands (docs/timeline.md).
type timelineFlags struct {
	file     string
	ranks    string
	window   string
	maxMiB   int
	links    int
	sample   netsim.Time
	keep     func(int) bool
	keepUpTo int
	from     netsim.Time
	to       netsim.Time
	f        *os.File
	w        *timeline.Writer
	cmd      string
}

func addTimelineFlags(fs *flag.FlagSet) *timelineFlags {
	t := &timelineFlags{maxMiB: 1024, cmd: fs.Name(), links: 8, sample: netsim.Microsecond}
	fs.StringVar(&t.file, "timeline", "", "write the run as a timeline in the Trace Event Format to this .json file, for ui.perfetto.dev or chrome://tracing (docs/timeline.md)")
	fs.StringVar(&t.ranks, "timeline-ranks", "", "timeline: only these ranks (nodes), e.g. 0-3,17 (default: all)")
	fs.StringVar(&t.window, "timeline-window", "", "timeline: only events that overlap FROM:TO, in µs of simulated time (either may be left out)")
	intVar(fs, &t.links, "timeline-links", 0, 1<<16, "timeline: a utilisation counter for each of this many busiest links of each span (0: none)")
	timeVar(fs, &t.sample, "timeline-sample", delayUS, "timeline: the links' sampling span in µs (0: no link counters)")
	intVar(fs, &t.maxMiB, "timeline-max", 1, 1<<20, "timeline: stop writing events once the file reaches this many MiB")
	return t
}

// check reads the filters and refuses, before any work starts, a file that cannot be written.
func (t *timelineFlags) check(fs *flag.FlagSet) error {
	if t.file == "" {
		if t.ranks != "" || t.window != "" {
			return badUsage(fs, errors.New("--timeline-ranks and --timeline-window filter a --timeline FILE; give one"))
		}
		return nil
	}
	if t.ranks != "" {
		keep, upTo, err := parseRanks(t.ranks)
		if err != nil {
			return badUsage(fs, fmt.Errorf("--timeline-ranks %q: %w", t.ranks, err))
		}
		t.keep, t.keepUpTo = keep, upTo
	}
	if t.window != "" {
		from, to, ok := strings.Cut(t.window, ":")
		var err error
		if !ok {
			err = errors.New("want FROM:TO in µs")
		}
		if err == nil && from != "" {
			t.from, err = parseUS(from)
		}
		if err == nil && to != "" {
			t.to, err = parseUS(to)
			if err == nil && t.to <= t.from {
				err = errors.New("TO must be after FROM")
			}
		}
		if err != nil {
			return badUsage(fs, fmt.Errorf("--timeline-window %q: %w", t.window, err))
		}
	}
	if err := canCreate(t.file); err != nil {
		return badUsage(fs, fmt.Errorf("--timeline: %w", err))
	}
	return nil
}

func parseUS(s string) (netsim.Time, error) {
	v, err := parseFloat(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 1e12 {
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
		a, err := parseInt(lo, 0, 1<<30)
		if err != nil {
			return nil, 0, fmt.Errorf("%q: %w", f, err)
		}
		b := a
		if isRange {
			if b, err = parseInt(hi, a, 1<<30); err != nil {
				return nil, 0, fmt.Errorf("%q: %w", f, err)
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

// open creates the file and the writer (nil without --timeline).
func (t *timelineFlags) open() (*timeline.Writer, error) {
	if t.file == "" {
		return nil, nil
	}
	f, err := os.Create(t.file)
	if err != nil {
		return nil, err
	}
	t.f = f
	t.w = timeline.New(f, timeline.Options{Ranks: t.keep, RanksUpTo: t.keepUpTo, From: t.from, To: t.to, MaxBytes: int64(t.maxMiB) << 20, Links: t.links, Sample: t.sample,
		OnCap: func(at netsim.Time) {
			fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s reached --timeline-max %d MiB at %.3f µs of simulated time: the events after are left out (narrow it with --timeline-ranks or --timeline-window)\n",
				t.cmd, t.file, t.maxMiB, at.Microseconds())
		}})
	return t.w, nil
}

// end ends the file (with its closing bracket) after the run, which ended with runErr,
// and returns runErr or the file's error. A run that succeeded says what the file holds on
// stderr; one that failed says nothing more than its error (its file stays, with the events
// it wrote, or goes if it has none: a refused input wrote nothing).
func (t *timelineFlags) end(runErr error) error {
	if t.w == nil {
		return runErr
	}
	w := t.w
	t.w = nil
	err := w.Close()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if runErr != nil {
		if w.Events() == 0 {
			os.Remove(t.file)
		}
		return runErr
	}
	if err != nil {
		return fmt.Errorf("--timeline %s: %w", t.file, err)
	}
	fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s: %d events, %d bytes (open it in ui.perfetto.dev or chrome://tracing)\n", t.cmd, t.file, w.Events(), w.Bytes())
	return nil
}

// checkLocal is check on a command that can also run as a Slurm sweep: the timeline is
// written by this process, so it refuses --slurm.
func (t *timelineFlags) checkLocal(fs *flag.FlagSet, slurm bool) error {
	if t.file != "" && slurm {
		return badUsage(fs, errors.New("--timeline records the runs of this process; leave out --slurm"))
	}
	return t.check(fs)
}
