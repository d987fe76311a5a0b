// Package regress runs the randomized regression over many seeds, a test process per seed.
package regress

// regress runs the randomized regression over many seeds, a test process per seed,
// as many at a time as there are cores, and reports what passed and what failed with the
// command that replays each failure; it also writes JUnit XML, from the regression or from
// `go test -json`, for CI.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/lhsim/lhsim/device"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Config is one regression.
type Config struct {
	Package string        // package of the randomized tests (default ./testbench)
	Run     string        // go test -run pattern of the randomized tests (default "Random")
	Seeds   []uint64      // the seeds; each runs in a process with SEED set
	Jobs    int           // processes at a time (default: the cores)
	Model   string        // LHSIM_MODEL for the tests ("" leaves the tests' default)
	Bridge  string        // LHSIM_BRIDGE for the tests ("" leaves the tests' default, cgo)
	Tags    string        // build tags of the test binary (lhscoverage for coverage)
	Env     []string      // more environment for the tests
	Timeout time.Duration // per seed (default 10 minutes)
	Binary  string        // test binary to build and run (default build/regress/<package>.test)
}

// deviceEnv is the tests' device choice, as the environment device.FromEnv reads in them.
func (c Config) deviceEnv() []string {
	var env []string
	if c.Model != "" {
		env = append(env, device.ModelEnv+"="+c.Model)
	}
	if c.Bridge != "" {
		env = append(env, device.BridgeEnv+"="+c.Bridge)
	}
	return env
}

// SeedResult is how one seed went.
type SeedResult struct {
	Seed     uint64
	Passed   bool
	Failed   []string // tests that failed with this seed
	Duration time.Duration
	Output   string // the test process's output when it failed
	Waveform string // where the failed seed's re-run left its waveform, if it did
}

// Report is the whole regression.
type Report struct {
	Config  Config
	Results []SeedResult // in seed order
	Elapsed time.Duration
	// Where the seeds ran, for the summary line when not on this machine ("Slurm job 12
	// (100 array tasks)"); empty: Config.Jobs processes here.
	Where string
}

// Passed and Failed count seeds.
func (r *Report) Passed() int {
	n := 0
	for _, s := range r.Results {
		if s.Passed {
			n++
		}
	}
	return n
}

// Failed counts seeds with a failure.
func (r *Report) Failed() int { return len(r.Results) - r.Passed() }

// Progress is called after each seed: done seeds of total, failed so far.
type Progress func(done, total, failed int, last SeedResult)

func (c Config) withDefaults() Config {
	if c.Package == "" {
		c.Package = "./testbench"
	}
	if c.Run == "" {
		c.Run = "Random"
	}
	if c.Jobs <= 0 {
		c.Jobs = runtime.NumCPU()
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Binary == "" {
		name := strings.Trim(filepath.Base(c.Package), "./")
		if c.Tags != "" {
			name += "-" + strings.ReplaceAll(c.Tags, ",", "-")
		}
		c.Binary = filepath.Join("build", "regress", name+".test")
	}
	return c
}

// Build compiles the test binary once, so that every seed runs it without the go tool.
func Build(ctx context.Context, cfg Config) (Config, error) {
	cfg = cfg.withDefaults()
	if err := os.MkdirAll(filepath.Dir(cfg.Binary), 0o755); err != nil {
		return cfg, err
	}
	args := []string{"test", "-c", "-o", cfg.Binary}
	if cfg.Tags != "" {
		args = append(args, "-tags", cfg.Tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, cfg.Package)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return cfg, fmt.Errorf("regress: building %s: %w\n%s", cfg.Package, err, out)
	}
	return cfg, nil
}

var (
	failLine     = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	runLine      = regexp.MustCompile(`(?m)^=== RUN `)
	waveformLine = regexp.MustCompile(`waveform: (\S+\.fst)`)
)

// List returns the top-level tests of the built binary that cfg.Run selects (its part before
// the first "/"): none means the regression would run nothing and call it a pass.
func List(ctx context.Context, cfg Config) ([]string, error) {
	cfg = cfg.withDefaults()
	bin, _ := filepath.Abs(cfg.Binary)
	top, _, _ := strings.Cut(cfg.Run, "/")
	cmd := exec.CommandContext(ctx, bin, "-test.list", top)
	cmd.Dir = cfg.Package
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("regress: listing the tests of %s: %w", cfg.Package, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Test") {
			names = append(names, l)
		}
	}
	return names, nil
}

// rerunSuffix ends the subtest that runs a failed seed again with waveforms
// (testbench/waves_test.go); it is not a failure of its own.
const rerunSuffix = "_waves"

// RunSeed runs the test binary (built by Build) for one seed: what Run does for each seed,
// and what each Slurm array task does for its seeds.
func RunSeed(ctx context.Context, cfg Config, seed uint64) SeedResult {
	return runSeed(ctx, cfg.withDefaults(), seed)
}

// runSeed runs the test binary for one seed.
func runSeed(ctx context.Context, cfg Config, seed uint64) SeedResult {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	bin, _ := filepath.Abs(cfg.Binary)
	cmd := exec.CommandContext(ctx, bin, "-test.run", cfg.Run, "-test.count=1", "-test.v", "-test.timeout", cfg.Timeout.String())
	cmd.Dir = cfg.Package
	cmd.Env = append(os.Environ(), fmt.Sprintf("SEED=%d", seed))
	cmd.Env = append(cmd.Env, cfg.deviceEnv()...)
	cmd.Env = append(cmd.Env, cfg.Env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r := SeedResult{Seed: seed, Passed: err == nil, Duration: time.Since(start)}
	if err == nil && !runLine.Match(out) {
		// go test passes a run that matched no test: here that is a regression that did nothing.
		r.Passed, err = false, fmt.Errorf("no test matched -run %s", cfg.Run)
	}
	if err != nil {
		r.Output = string(out)
		for _, m := range failLine.FindAllStringSubmatch(r.Output, -1) {
			if !strings.HasSuffix(m[1], rerunSuffix) {
				r.Failed = append(r.Failed, m[1])
			}
		}
		if m := waveformLine.FindStringSubmatch(r.Output); m != nil {
			r.Waveform = m[1]
		}
		r.Failed = leaves(r.Failed)
		if len(r.Failed) == 0 {
			r.Failed = []string{"(test binary: " + err.Error() + ")"}
		}
		if ctx.Err() == context.DeadlineExceeded {
			r.Failed = append(r.Failed, fmt.Sprintf("(timed out after %s)", cfg.Timeout))
		}
	}
	return r
}

// leaves keeps the innermost failed tests: a failed subtest fails its parents too.
func leaves(names []string) []string {
	var out []string
	for _, n := range names {
		parent := false
		for _, m := range names {
			if strings.HasPrefix(m, n+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, n)
		}
	}
	return out
}

// Run runs every seed, cfg.Jobs at a time, calling progress after each.
func Run(ctx context.Context, cfg Config, progress Progress) (*Report, error) {
	cfg = cfg.withDefaults()
	if _, err := os.Stat(cfg.Binary); err != nil {
		return nil, fmt.Errorf("regress: no test binary (Build first): %w", err)
	}
	start := time.Now()
	seeds := make(chan uint64)
	results := make(chan SeedResult)
	var wg sync.WaitGroup
	for i := 0; i < cfg.Jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range seeds {
				results <- runSeed(ctx, cfg, s)
			}
		}()
	}
	go func() {
		defer close(seeds)
		for _, s := range cfg.Seeds {
			select {
			case seeds <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	r := &Report{Config: cfg}
	failed := 0
	for res := range results {
		r.Results = append(r.Results, res)
		if !res.Passed {
			failed++
		}
		if progress != nil {
			progress(len(r.Results), len(cfg.Seeds), failed, res)
		}
	}
	sort.Slice(r.Results, func(i, j int) bool { return r.Results[i].Seed < r.Results[j].Seed })
	r.Elapsed = time.Since(start)
	return r, ctx.Err()
}

// Replay is the command that runs a failed seed again, with its waveform.
func (r *Report) Replay(s SeedResult) string {
	run := r.Config.Run
	if len(s.Failed) > 0 && !strings.HasPrefix(s.Failed[0], "(") {
		run = "^" + strings.ReplaceAll(s.Failed[0], "/", "$/^") + "$"
	}
	model := ""
	for _, e := range r.Config.deviceEnv() {
		model += e + " "
	}
	tags := ""
	if r.Config.Tags != "" {
		tags = " -tags " + r.Config.Tags
	}
	return fmt.Sprintf("SEED=%d %sWAVES=1 go test%s %s -run '%s' -v", s.Seed, model, tags, r.Config.Package, run)
}

// seedRanges writes seeds compactly: 1-4, 6, 8-200.
func seedRanges(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(seeds[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Print writes the summary table: the passed seeds, then each failed seed with the tests it
// failed and its replay command.
func (r *Report) Print(w io.Writer) error {
	where := fmt.Sprintf("%d processes at a time", r.Config.Jobs)
	if r.Where != "" {
		where = r.Where
	}
	fmt.Fprintf(w, "%s -run %s: %d seeds, %d passed, %d failed in %.1f s on %s\n",
		r.Config.Package, r.Config.Run, len(r.Results), r.Passed(), r.Failed(), r.Elapsed.Seconds(), where)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("result", "seeds", "tests", "replay (with its waveform)")
	var passed []uint64
	for _, s := range r.Results {
		if s.Passed {
			passed = append(passed, s.Seed)
		}
	}
	if len(passed) > 0 {
		if err := t.Append("passed", fmt.Sprintf("%d: %s", len(passed), seedRanges(passed)), r.Config.Run, ""); err != nil {
			return err
		}
	}
	for _, s := range r.Results {
		if s.Passed {
			continue
		}
		if err := t.Append("FAILED", fmt.Sprint(s.Seed), strings.Join(s.Failed, " "), r.Replay(s)); err != nil {
			return err
		}
	}
	return t.Render()
}

// reportJSON is the regression as --json prints it and --out writes it.
type reportJSON struct {
	Package  string     `json:"package"`
	Run      string     `json:"run"`
	Model    string     `json:"model,omitempty"`
	Bridge   string     `json:"bridge,omitempty"`
	Tags     string     `json:"tags,omitempty"`
	Seeds    int        `json:"seeds"`
	Passed   int        `json:"passed"`
	Failed   int        `json:"failed"`
	ElapsedS float64    `json:"elapsed_s"`
	Where    string     `json:"where"`
	Results  []seedJSON `json:"results"`
}

type seedJSON struct {
	Seed      uint64   `json:"seed"`
	Passed    bool     `json:"passed"`
	Failed    []string `json:"failed,omitempty"`
	DurationS float64  `json:"duration_s"`
	Replay    string   `json:"replay,omitempty"`
	Waveform  string   `json:"waveform,omitempty"`
	Output    string   `json:"output,omitempty"`
}

// MarshalJSON writes the report: the choices that make the run, a record per seed (with the
// replay command of a failed one), the counts.
func (r *Report) MarshalJSON() ([]byte, error) {
	where := r.Where
	if where == "" {
		where = fmt.Sprintf("%d processes at a time", r.Config.Jobs)
	}
	out := reportJSON{Package: r.Config.Package, Run: r.Config.Run, Model: r.Config.Model, Bridge: r.Config.Bridge, Tags: r.Config.Tags,
		Seeds: len(r.Results), Passed: r.Passed(), Failed: r.Failed(), ElapsedS: r.Elapsed.Seconds(), Where: where,
		Results: make([]seedJSON, len(r.Results))}
	for i, s := range r.Results {
		out.Results[i] = seedJSON{Seed: s.Seed, Passed: s.Passed, Failed: s.Failed, DurationS: s.Duration.Seconds(), Waveform: s.Waveform, Output: s.Output}
		if !s.Passed {
			out.Results[i].Replay = r.Replay(s)
		}
	}
	return json.Marshal(out)
}

// JUnit is the regression as a JUnit report: a case per seed.
func (r *Report) JUnit() *JUnit {
	s := junit.Testsuite{Name: "regress " + r.Config.Package + " -run " + r.Config.Run,
		Time: fmt.Sprintf("%.3f", r.Elapsed.Seconds())}
	s.SetTimestamp(time.Now().UTC())
	for _, res := range r.Results {
		c := junit.Testcase{Classname: "regress." + strings.Trim(filepath.Base(r.Config.Package), "./"),
			Name: fmt.Sprintf("seed %d", res.Seed), Time: fmt.Sprintf("%.3f", res.Duration.Seconds())}
		if !res.Passed {
			var body bytes.Buffer
			fmt.Fprintf(&body, "replay: %s\n\n%s", r.Replay(res), res.Output)
			c.Failure = &junit.Result{Message: "failed: " + strings.Join(res.Failed, " "), Data: body.String()}
		}
		s.AddTestcase(c)
	}
	out := &JUnit{}
	out.AddSuite(s)
	out.Time = s.Time
	return out
}
