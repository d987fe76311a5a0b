package regress

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// JUnit XML, the report format CI systems read (Jenkins, GitLab, GitHub actions): testsuites
// of testcases, each passed, failed (with its output) or skipped.

// JUnitSuites is a JUnit report.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one package (or one regression).
type JUnitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      float64     `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []JUnitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out,omitempty"`
}

// JUnitCase is one test.
type JUnitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *JUnitMessage `xml:"failure,omitempty"`
	Skipped   *JUnitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitMessage is a failure or a skip.
type JUnitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func (s *JUnitSuite) add(c JUnitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

// total fills in the report's totals from its suites.
func (r *JUnitSuites) total() {
	r.Tests, r.Failures, r.Skipped, r.Time = 0, 0, 0, 0
	for _, s := range r.Suites {
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Skipped += s.Skipped
		r.Time += s.Time
	}
}

// Write writes the report as XML.
func (r *JUnitSuites) Write(w io.Writer) error {
	r.total()
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// testState gathers one test's events.
type testState struct {
	output strings.Builder
	action string
	time   float64
}

// FromTestJSON reads `go test -json` and builds a JUnit report: a suite per package, a case
// per test and subtest, a failure holding the test's output. A package that did not build or
// whose binary failed outside any test gets a failed case of its own, so that the report never
// looks green when the run was not. Human-readable progress goes to echo as the events come
// (package results, and the output of every failed test), like `go test` without -v.
func FromTestJSON(r io.Reader, echo io.Writer) (*JUnitSuites, error) {
	type pkgState struct {
		tests  map[string]*testState
		order  []string
		output strings.Builder
		action string
		time   float64
		start  time.Time
	}
	pkgs := map[string]*pkgState{}
	var pkgOrder []string
	pkg := func(name string) *pkgState {
		p, ok := pkgs[name]
		if !ok {
			p = &pkgState{tests: map[string]*testState{}}
			pkgs[name] = p
			pkgOrder = append(pkgOrder, name)
		}
		return p
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev testEvent
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// go test writes build errors and the like as plain text.
			fmt.Fprintln(echo, string(line))
			continue
		}
		if ev.Package == "" {
			continue
		}
		p := pkg(ev.Package)
		if p.start.IsZero() {
			p.start = ev.Time
		}
		if ev.Test == "" {
			switch ev.Action {
			case "output", "build-output":
				p.output.WriteString(ev.Output)
				if out := strings.TrimSpace(ev.Output); out != "PASS" && out != "FAIL" && !strings.HasPrefix(out, "=== ") {
					fmt.Fprint(echo, ev.Output)
				}
			case "pass", "fail", "skip":
				p.action, p.time = ev.Action, ev.Elapsed
			}
			continue
		}
		t, ok := p.tests[ev.Test]
		if !ok {
			t = &testState{}
			p.tests[ev.Test] = t
			p.order = append(p.order, ev.Test)
		}
		switch ev.Action {
		case "output":
			t.output.WriteString(ev.Output)
		case "pass", "fail", "skip":
			t.action, t.time = ev.Action, ev.Elapsed
			if ev.Action == "fail" && !strings.Contains(ev.Test, "/") {
				fmt.Fprint(echo, t.output.String())
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}

	report := &JUnitSuites{}
	sort.Strings(pkgOrder)
	for _, name := range pkgOrder {
		p := pkgs[name]
		s := JUnitSuite{Name: name, Time: p.time}
		if !p.start.IsZero() {
			s.Timestamp = p.start.UTC().Format(time.RFC3339)
		}
		failedTest := false
		for _, tn := range p.order {
			t := p.tests[tn]
			c := JUnitCase{Classname: name, Name: tn, Time: t.time}
			switch t.action {
			case "fail":
				c.Failure = &JUnitMessage{Message: "Failed", Body: t.output.String()}
				failedTest = true
			case "skip":
				c.Skipped = &JUnitMessage{Message: skipReason(t.output.String())}
			case "pass":
			default: // never finished: the binary crashed or timed out inside it
				c.Failure = &JUnitMessage{Message: "did not finish", Body: t.output.String() + p.output.String()}
				failedTest = true
			}
			s.add(c)
		}
		if p.action == "fail" && !failedTest {
			s.add(JUnitCase{Classname: name, Name: "[package]", Time: p.time,
				Failure: &JUnitMessage{Message: "package failed outside any test (build error, crash or timeout)", Body: p.output.String()}})
		}
		if len(s.Cases) == 0 { // no tests (and no failure): nothing to report
			continue
		}
		if out := p.output.String(); p.action != "fail" {
			s.SystemOut = out
		}
		report.Suites = append(report.Suites, s)
	}
	report.total()
	return report, nil
}

// skipReason is the message a skipped test logged.
func skipReason(out string) string {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		if _, msg, ok := strings.Cut(line, ": "); ok && strings.Contains(line, ".go:") {
			return msg
		}
		return line
	}
	return "skipped"
}
