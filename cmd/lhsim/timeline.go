package main

import (
	"fmt"
	"github.com/lhsim/lhsim/internal/cli"
	"os"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/simtime"
)

// timelineFlags are --timeline and its filters on the network commands (docs/timeline.md),
// read by experiment.TimelineSpec. The file is written beside and renamed into place when
// the run ends (output.go's rule), so that a file of that name is whole, and a run that
// failed keeps the events it wrote.
type timelineFlags struct {
	file  *string
	spec  experiment.TimelineSpec
	f     *os.File
	w     *experiment.Timeline
	cmd   string
	local bool // --slurm is refused: the timeline is this process's
}

// timeline defines --timeline and its filters.
func (r *runner) timeline() {
	t := &timelineFlags{cmd: r.cmd.name, local: r.slurm != nil,
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

// openTimeline creates the file (beside its name) and the writer (nil without --timeline).
func (r *runner) openTimeline() (*experiment.Timeline, error) {
	t := r.tl
	if t == nil || *t.file == "" {
		return nil, nil
	}
	f, err := cli.Create(*t.file)
	if err != nil {
		return nil, cli.Named("--timeline", *t.file, err)
	}
	t.spec.OnCap = func(atUs float64) {
		fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s reached --timeline-max %d MiB at %.3f µs of simulated time: the events after are left out (narrow it with --timeline-ranks or --timeline-window)\n",
			t.cmd, *t.file, t.spec.MaxMiB, atUs)
	}
	if t.w, err = t.spec.Open(f); err != nil {
		cli.Commit(f, *t.file, false)
		return nil, err
	}
	t.f = f
	return t.w, nil
}

// end ends the file (with its closing bracket) after the run, which ended with runErr,
// renames it into place and returns runErr or the file's error. A run that succeeded says
// what the file holds on stderr; one that failed says nothing more than its error (its file
// stays, with the events it wrote, or goes if it has none: a refused input wrote nothing).
func (t *timelineFlags) end(runErr error) error {
	if t.w == nil {
		return runErr
	}
	w := t.w
	t.w = nil
	err := w.Close()
	keep := err == nil && (runErr == nil || w.Events() > 0)
	if cerr := cli.Commit(t.f, *t.file, keep); err == nil {
		err = cerr
	}
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return cli.Named("--timeline", *t.file, err)
	}
	fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s: %d events, %d bytes (open it in ui.perfetto.dev or chrome://tracing)\n", t.cmd, *t.file, w.Events(), w.Bytes())
	return nil
}
