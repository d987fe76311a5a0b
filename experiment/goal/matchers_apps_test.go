package goal

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goalsim "github.com/lhsim/lhsim/netsim/goal"
)

// testApp is the application schedule checked in under traces/ (make traces makes the others).
const testApp = "lammps-melt-50steps.8"

// The study on a real program's schedule: every matcher ends it with every receive matched
// once; the queue-depth distribution counts every search; an ALPU larger than every queue
// serves every match in hardware, a small one falls back to software and back; software
// matchers have no hardware share; the application table and the depth plot say what they
// show.
func TestMatchersOnApplication(t *testing.T) {
	file := AppSchedule(testApp)
	if file == "" {
		t.Fatalf("no schedule %s under %v", testApp, AppDirs)
	}
	if !slices.Contains(AppWorkloads(), testApp) {
		t.Fatalf("AppWorkloads %v lacks %s", AppWorkloads(), testApp)
	}
	s, err := ReadSchedule(file, 0)
	if err != nil {
		t.Fatal(err)
	}
	recvs := 0
	for _, r := range s.Ranks {
		for _, op := range r.Ops {
			if op.Kind == goalsim.Recv {
				recvs++
			}
		}
	}
	matchers := []string{"list", "bins:8", "alpu:2", "alpu:1024", "lhs", "lhs+alpu:2/onload"}
	r, err := RunMatchers(MatchersConfig{Ranks: 16, Size: 8, Workloads: []string{testApp}, Matchers: matchers})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != len(matchers) {
		t.Fatalf("%d cells, want %d", len(r.Cells), len(matchers))
	}
	longest := 0
	for _, c := range r.Cells {
		a := c.App
		if a == nil || a.Program != "lammps-melt-50steps" || a.Ranks != len(s.Ranks) {
			t.Fatalf("%s: application figures %+v", c.Matcher, a)
		}
		if a.Matches != recvs {
			t.Errorf("%s: %d matches, want one per receive, %d", c.Matcher, a.Matches, recvs)
		}
		sum := 0
		for _, b := range a.Depth {
			sum += b.Searches
		}
		if sum != a.Searches || a.Searches != c.Matching.Steps || a.Searches < a.Matches {
			t.Errorf("%s: depth distribution sums to %d, searches %d, steps %d, matches %d", c.Matcher, sum, a.Searches, c.Matching.Steps, a.Matches)
		}
		if c.Software != (a.HWShare == nil) {
			t.Errorf("%s: software %v, hardware share %v", c.Matcher, c.Software, a.HWShare)
		}
		if a.HWShare != nil && (*a.HWShare < 0 || *a.HWShare > 1) {
			t.Errorf("%s: hardware share %v", c.Matcher, *a.HWShare)
		}
		longest = max(longest, c.Matching.MaxPosted, c.Matching.MaxUnexpected)
	}
	cell := func(m string) MatchersCell { return r.Cells[slices.Index(matchers, m)] }
	if longest < 3 {
		t.Fatalf("queues of at most %d entries: the schedule does not fill a 2-cell ALPU", longest)
	}
	if big := cell("alpu:1024").App; *big.HWShare != 1 || big.Fallbacks != 0 || big.HWMatches != big.Matches {
		t.Errorf("alpu:1024 (queues of at most %d): %+v, want every match in hardware", longest, big)
	}
	if small := cell("alpu:2").App; *small.HWShare >= 1 || small.Fallbacks == 0 || small.Switches == 0 || small.HWMatches+small.Fallbacks != small.Matches {
		t.Errorf("alpu:2: %+v, want fallbacks to software and back", small)
	}
	// lhs's LH buffer of 512 entries holds every unexpected message: the posted queue's
	// matches are the host's, the others the NIC's.
	if l := cell("lhs").App; l.Fallbacks != 0 || l.HWMatches == 0 || l.HWMatches >= l.Matches {
		t.Errorf("lhs: %+v", l)
	}
	var out bytes.Buffer
	if err := r.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"matchers on application schedules", "simulated", "lammps-melt", "100.0 %", "0 (software)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "matchers on the packet network,") {
		t.Errorf("an application study printed the generated workloads' table:\n%s", out.String())
	}
	names, pts := r.DepthPoints("list")
	if len(names) != 1 || len(pts[testApp]) != len(cell("list").App.Depth) {
		t.Errorf("depth points %v %v", names, pts)
	}
	file = filepath.Join(t.TempDir(), "d.svg")
	if err := r.WriteDepthPlot(file); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(file)
	if !strings.Contains(string(svg), testApp) || !strings.Contains(string(svg), "simulated") {
		t.Errorf("depth plot, %d bytes, without the workload or the figures' source", len(svg))
	}
}

// An application workload is PROGRAM.RANKS with a schedule under AppDirs; anything else is not.
func TestAppSchedule(t *testing.T) {
	for _, w := range []string{"incast", "lammps-melt", "lammps-melt.x", "../traces/lammps-melt.8", "no-such.8", ""} {
		if f := AppSchedule(w); f != "" {
			t.Errorf("AppSchedule(%q) = %s", w, f)
		}
	}
}

// A compressed schedule reads as its text; one cut short or corrupt is an error naming the
// file, never a shorter schedule.
func TestReadScheduleGzip(t *testing.T) {
	file := AppSchedule(testApp)
	s, err := ReadSchedule(file, 0)
	if err != nil || len(s.Ranks) != 8 || s.NumOps != 37126 {
		t.Fatalf("%s: %v, %+v", file, err, s)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"cut.goal.gz": data[:len(data)/2], "header.goal.gz": data[:4]} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := ReadSchedule(f, 0); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: %v, %v ops", name, err, s)
		}
	}
}
