package area

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// DefaultReports is where the checked-in reports are, relative to the repository root.
const DefaultReports = "synth-reports"

// Options are the choices of `lhsim area`.
type Options struct {
	// Cached reads the checked-in reports instead of running Yosys.
	Cached bool
	// Reports is the reports directory, relative to the repository root unless absolute.
	Reports string
	// Write saves the reports, the summary and the table there after running Yosys.
	Write bool
	// JSON prints Table 1 as JSON instead of the tables.
	JSON bool
	// Families are the families to synthesize.
	Families []Family
	// Parallel is how many Yosys processes run at once.
	Parallel int
	// Dir is where to start looking for the repository root ("." when empty).
	Dir string
	// Only, when set, keeps the sweep's jobs whose family/name it matches
	// ("xc2vp/lhs_rx_ENTRIES64"); with Write, the other jobs keep the reports they have, for
	// a change to one design (make synth-check repeats the whole sweep).
	Only *regexp.Regexp
	// RunAll runs the sweep's jobs (Runner.RunAll when nil; lhsim area --slurm hands them to
	// a Slurm job array and returns their reports, in job order, as Runner.RunAll does).
	RunAll func(ctx context.Context, r Runner, jobs []Job, progress func(Report, time.Duration)) ([]Report, error)
	// Progress, when set, is told after each Yosys run (done of total).
	Progress func(done, total int)
}

// Runner is the runner Command synthesizes with: from the repository root, reports into
// build/synth/reports, or into Reports with Write.
func (o Options) Runner() (Runner, error) {
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	root, err := FindRoot(dir)
	if err != nil {
		return Runner{}, err
	}
	out := filepath.Join(root, "build", "synth", "reports")
	if o.Write {
		out = o.reportsDir(root)
	}
	return Runner{Root: root, Out: out, Parallel: o.Parallel}, nil
}

func (o Options) reportsDir(root string) string {
	if filepath.IsAbs(o.Reports) {
		return o.Reports
	}
	return filepath.Join(root, o.Reports)
}

// Jobs are the sweep's jobs for the chosen families, those Only matches.
func (o Options) Jobs() []Job {
	var jobs []Job
	for _, j := range Sweep(o.Families) {
		if o.Only == nil || o.Only.MatchString(j.String()) {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// ParseFamilies reads a comma-separated family list.
func ParseFamilies(s string) ([]Family, error) {
	var out []Family
	for _, f := range strings.Split(s, ",") {
		switch Family(strings.TrimSpace(f)) {
		case XC2VP:
			out = append(out, XC2VP)
		case XC7:
			out = append(out, XC7)
		default:
			return nil, fmt.Errorf("area: unknown family %q (xc2vp, xc7)", f)
		}
	}
	return out, nil
}

// Command runs `lhsim area`: the sweep (or the checked-in reports), then Table 1 on stdout.
// Progress goes to log.
func Command(ctx context.Context, o Options, stdout, log io.Writer) error {
	r, err := o.Runner()
	if o.Cached && errors.Is(err, ErrNoSourceTree) && o.Reports == DefaultReports {
		// Outside the source tree the checked-in reports are the ones built into lhsim.
		s, err := CheckedInSummary()
		if err != nil {
			return err
		}
		if o.JSON {
			return WriteJSON(stdout, s)
		}
		return WriteText(stdout, s, "the checked-in reports built into lhsim (synth-reports/; Yosys not run)")
	}
	if err != nil {
		return err
	}
	reports := o.reportsDir(r.Root)
	var s Summary
	var source string
	if o.Cached {
		if s, err = LoadSummary(reports); err != nil {
			return err
		}
		source = fmt.Sprintf("checked-in reports in %s/ (Yosys not run; `make synth` re-creates them)", o.Reports)
		if hash, _, err := HashRTL(r.Root, s.Tops()...); err != nil || hash != s.RTLHash {
			fmt.Fprintf(log, "area: rtl/ has changed since %s/ was made: these figures may be stale (make synth)\n", o.Reports)
		}
	} else {
		jobs := o.Jobs()
		if len(jobs) == 0 {
			return fmt.Errorf("area: -only %s matches no job of the sweep", o.Only)
		}
		runAll := o.RunAll
		if runAll == nil {
			if err := r.Check(); err != nil {
				return err
			}
			runAll = func(ctx context.Context, r Runner, jobs []Job, progress func(Report, time.Duration)) ([]Report, error) {
				return r.RunAll(ctx, jobs, progress)
			}
			fmt.Fprintf(log, "area: %d Yosys runs, %d at a time (logs in build/synth/)\n", len(jobs), max(1, o.Parallel))
		}
		hash, files, err := HashRTL(r.Root, Tops(jobs)...)
		if err != nil {
			return err
		}
		start := time.Now()
		var mu sync.Mutex
		done := 0
		reps, err := runAll(ctx, r, jobs, func(rep Report, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(log, "  %-32s %6.1f s  LUT %6d  FF %6d  BRAM %3d  slices %6d\n",
				rep.Job.String(), d.Seconds(), rep.LUTs, rep.FFs, rep.BRAMs, rep.Slices)
			if done++; o.Progress != nil {
				o.Progress(done, len(jobs))
			}
		})
		if err != nil {
			return err
		}
		if o.Write && o.Only != nil {
			// The rest of the sweep keeps the reports it has (made from designs -only did
			// not touch), so that the summary is still the whole sweep's.
			if reps, err = withKept(reports, Sweep(o.Families), reps); err != nil {
				return err
			}
			if hash, files, err = HashRTL(r.Root, Tops(Sweep(o.Families))...); err != nil {
				return err
			}
		}
		s = NewSummary(reps)
		s.RTLHash, s.RTLFiles = hash, files
		source = fmt.Sprintf("Yosys run now on each design's files of rtl/ (%d runs, %.0f s)", len(jobs), time.Since(start).Seconds())
		if o.Write {
			if err := s.Write(reports); err != nil {
				return err
			}
			f, err := os.Create(filepath.Join(reports, "table1.txt"))
			if err != nil {
				return err
			}
			err = WriteText(f, s, fmt.Sprintf("Yosys run by `make synth`; reports in %s/", o.Reports))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			source += fmt.Sprintf("; reports written to %s/", o.Reports)
		}
	}
	if o.JSON {
		return WriteJSON(stdout, s)
	}
	return WriteText(stdout, s, source)
}

// withKept is the sweep's reports in sweep order: ran where a job ran, else the report in
// dir (LoadReport).
func withKept(dir string, sweep []Job, ran []Report) ([]Report, error) {
	byName := map[string]Report{}
	for _, r := range ran {
		byName[r.Job.String()] = r
	}
	out := make([]Report, 0, len(sweep))
	for _, j := range sweep {
		r, ok := byName[j.String()]
		if !ok {
			var err error
			if r, err = LoadReport(dir, j); err != nil {
				return nil, fmt.Errorf("area: -only with -write keeps the other reports, and %s has none: %w", j, err)
			}
		}
		out = append(out, r)
	}
	return out, nil
}
