package cli

import (
	"fmt"
	"os"

	"github.com/lhsim/lhsim/experiment"
)

// Timeline is --timeline's file while a run writes it (docs/timeline.md): written beside its
// name and renamed into place when the run ends (output.go's rule), so that a file of that
// name is whole, and a run that failed keeps the events it wrote.
type Timeline struct {
	command, file string
	f             *os.File
	w             *experiment.Timeline
}

// OpenTimeline creates command's timeline file (beside its name) and its writer; when the
// file reaches spec.MaxMiB, a line on stderr says what is left out.
func OpenTimeline(command, file string, spec experiment.TimelineSpec) (*Timeline, error) {
	f, err := Create(file)
	if err != nil {
		return nil, Named("--timeline", file, err)
	}
	spec.OnCap = func(atUs float64) {
		fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s reached --timeline-max %d MiB at %.3f µs of simulated time: the events after are left out (narrow it with --timeline-ranks or --timeline-window)\n",
			command, file, spec.MaxMiB, atUs)
	}
	w, err := spec.Open(f)
	if err != nil {
		Commit(f, file, false)
		return nil, err
	}
	return &Timeline{command: command, file: file, f: f, w: w}, nil
}

// Writer is what the run writes its events to.
func (t *Timeline) Writer() *experiment.Timeline { return t.w }

// End ends the file (with its closing bracket) after the run, which ended with runErr,
// renames it into place and returns runErr or the file's error. A run that succeeded says
// what the file holds on stderr; one that failed says nothing more than its error (its file
// stays, with the events it wrote, or goes if it has none: a refused input wrote nothing).
// A nil Timeline (no --timeline, or not opened) returns runErr.
func (t *Timeline) End(runErr error) error {
	if t == nil || t.w == nil {
		return runErr
	}
	w := t.w
	t.w = nil
	err := w.Close()
	keep := err == nil && (runErr == nil || w.Events() > 0)
	if cerr := Commit(t.f, t.file, keep); err == nil {
		err = cerr
	}
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return Named("--timeline", t.file, err)
	}
	fmt.Fprintf(os.Stderr, "lhsim %s: timeline %s: %d events, %d bytes (open it in ui.perfetto.dev or chrome://tracing)\n", t.command, t.file, w.Events(), w.Bytes())
	return nil
}
