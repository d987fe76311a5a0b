package main

import (
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/simtime"
)

// timelineFlags are --timeline and its filters on the network commands (docs/timeline.md),
// read by experiment.TimelineSpec; the file, once open, is a cli.Timeline.
type timelineFlags struct {
	file  *string
	spec  experiment.TimelineSpec
	local bool // --slurm is refused: the timeline is this process's
	open  *cli.Timeline
}

// timeline defines --timeline and its filters.
func (r *runner) timeline() {
	t := &timelineFlags{local: r.slurm != nil,
		spec: experiment.TimelineSpec{MaxMiB: 1024, Links: 8, Sample: simtime.Microsecond}}
	fs := r.fs
	t.file = r.outFile("timeline", "write the run as a timeline in the Trace Event Format to this .json file, for ui.perfetto.dev or chrome://tracing (docs/timeline.md)")
	fs.StringVar(&t.spec.Ranks, "timeline-ranks", "", "timeline: only these ranks (nodes), e.g. 0-3,17 (default: all)")
	fs.StringVar(&t.spec.Window, "timeline-window", "", "timeline: only events that overlap FROM:TO, in µs of simulated time (either may be left out)")
	intVar(fs, &t.spec.Links, "timeline-links", 0, 1<<16, "timeline: a utilisation counter for each of this many busiest links of each span (0: none)")
	timeVar(fs, &t.spec.Sample, "timeline-sample", delayUS, "timeline: the links' sampling span in µs (0: no link counters)")
	intVar(fs, &t.spec.MaxMiB, "timeline-max", 1, 1<<20, "timeline: stop writing events once the file reaches this many MiB")
	r.tl = t
}

// check reads the filters (the runner checks the file with the other paths).
func (t *timelineFlags) check(r *runner) error {
	if *t.file == "" {
		if t.spec.Ranks != "" || t.spec.Window != "" {
			return r.usage("--timeline-ranks and --timeline-window filter a --timeline FILE; give one")
		}
		return nil
	}
	if t.local && r.onSlurm() {
		return r.usage("--timeline records the runs of this process; leave out --slurm")
	}
	if _, err := t.spec.Options(); err != nil {
		return r.badUsage(err)
	}
	return nil
}

// openTimeline opens the file and its writer (nil without --timeline); call ends it.
func (r *runner) openTimeline() (*experiment.Timeline, error) {
	t := r.tl
	if t == nil || *t.file == "" {
		return nil, nil
	}
	var err error
	if t.open, err = cli.OpenTimeline(r.cmd.name, *t.file, t.spec); err != nil {
		return nil, err
	}
	return t.open.Writer(), nil
}
