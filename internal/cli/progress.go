package cli

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Bar is a long command's progress on stderr, so that a long run never looks like a
// hang: a bar (vbauerster/mpb) when stderr is a terminal, else a line every lineEvery (a log
// or a pipe). With --json (quiet) NewBar returns nil, whose methods do nothing.
type Bar struct {
	p     *mpb.Progress
	bar   *mpb.Bar
	extra atomic.Pointer[string]

	// line mode (no terminal)
	name, unit  string
	total       int64
	start, last time.Time
}

// lineEvery is how often the line mode says where a run is: 5 s, or $LHSIM_PROGRESS_EVERY
// (a Go duration, "1s"; 0 writes a line at every step).
var lineEvery = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("LHSIM_PROGRESS_EVERY")); err == nil && d >= 0 {
		return d
	}
	return 5 * time.Second
}()

// progressOnTerminal reports whether stderr is a terminal: a bar written into a log or a
// pipe would be noise.
var progressOnTerminal = func() bool {
	fd := os.Stderr.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// NewBar starts a bar of total steps named name, counting in unit ("messages");
// quiet (--json) or a stderr that is not a terminal gives none.
func NewBar(quiet bool, name string, total int64, unit string) *Bar {
	if quiet || total <= 0 {
		return nil
	}
	if !progressOnTerminal() {
		now := time.Now()
		return &Bar{name: name, unit: unit, total: total, start: now, last: now}
	}
	pr := &Bar{total: total, p: mpb.New(mpb.WithOutput(os.Stderr), mpb.WithWidth(36), mpb.WithRefreshRate(200*time.Millisecond))}
	empty := ""
	pr.extra.Store(&empty)
	// Made with no total, so that the total can grow (a sweep's parts add their steps as
	// they start) and the bar completes at finish, not when it first reaches the total.
	pr.bar = pr.p.AddBar(0,
		mpb.PrependDecorators(decor.Name(name+" "), decor.CountersNoUnit("%d/%d "+unit)),
		mpb.AppendDecorators(
			decor.Elapsed(decor.ET_STYLE_GO),
			decor.OnComplete(decor.Name(", about "), ""),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), ""),
			decor.OnComplete(decor.Name(" to go"), ""),
			decor.Any(func(decor.Statistics) string { return " " + *pr.extra.Load() }),
		))
	pr.bar.SetTotal(total, false)
	return pr
}

// Set moves the bar to done steps; note, if not empty, shows beside it (a cycle count).
func (pr *Bar) Set(done int64, note string) {
	if pr == nil {
		return
	}
	if pr.bar == nil {
		now := time.Now()
		if now.Sub(pr.last) < lineEvery || (lineEvery == 0 && done == 0) {
			return
		}
		pr.last = now
		el := now.Sub(pr.start)
		left := ""
		if done > 0 && done < pr.total {
			left = fmt.Sprintf(", about %v to go", (el * time.Duration(pr.total-done) / time.Duration(done)).Round(time.Second))
		}
		if note != "" {
			note = " " + note
		}
		fmt.Fprintf(os.Stderr, "lhsim %s: %d/%d %s, %v%s%s\n", pr.name, done, pr.total, pr.unit, el.Round(time.Second), left, note)
		return
	}
	pr.extra.Store(&note)
	pr.bar.SetCurrent(done)
}

// SetTotal sets the bar's total (the steps a sweep's parts expect grow as they start).
func (pr *Bar) SetTotal(total int64) {
	if pr == nil || total == pr.total {
		return
	}
	pr.total = total
	if pr.bar != nil {
		pr.bar.SetTotal(total, false)
	}
}

// Log prints a line above the bar (or on stderr when there is no bar).
func (pr *Bar) Log(format string, args ...any) {
	var w io.Writer = os.Stderr
	if pr != nil && pr.p != nil {
		w = pr.p
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// Finish ends the bar: completed when ok (its last state stays on the screen), removed when
// the command failed, so that the error reads cleanly.
func (pr *Bar) Finish(ok bool) {
	if pr == nil || pr.bar == nil {
		return
	}
	if ok {
		pr.bar.SetTotal(-1, true)
	} else {
		pr.bar.Abort(true)
	}
	pr.p.Wait()
}

// Writer is where other lines go while the bar is drawn: above it (or stderr, without one).
func (pr *Bar) Writer() io.Writer {
	if pr == nil || pr.p == nil {
		return os.Stderr
	}
	return pr.p
}
