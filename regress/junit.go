package regress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/jstemmer/go-junit-report/v2/parser/gotest"
)

// JUnit XML, the report format CI systems read (Jenkins, GitLab, GitHub actions): testsuites
// of testcases, each passed, failed (with its output), in error or skipped. The conversion of
// `go test -json` is go-junit-report's (github.com/jstemmer/go-junit-report/v2), the one Go
// CI users know; lhsim adds only what `make test` needs around it: progress on the terminal
// as plain `go test` prints it while the events come.

// JUnit is a JUnit report: go-junit-report's types.
type JUnit = junit.Testsuites

// testEvent is one line of `go test -json` (cmd/test2json), as far as the echo needs it.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// FromTestJSON reads `go test -json` and builds a JUnit report with go-junit-report: a suite
// per package, a case per test and subtest, a failure holding the test's output; a package
// that did not build, or whose binary failed outside any test, gets a case in error of its
// own, so that the report never looks green when the run was not. Human-readable progress
// goes to echo as the events come (package results, and the output of every failed test),
// like `go test` without -v.
func FromTestJSON(r io.Reader, echo io.Writer) (*JUnit, error) {
	var stream bytes.Buffer
	running := map[string]*strings.Builder{} // output of the tests running, by package and name
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev testEvent
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// go test writes some build errors as plain text.
			fmt.Fprintln(echo, string(line))
			stream.Write(line)
			stream.WriteByte('\n')
			continue
		}
		echoEvent(echo, ev, running)
		stream.Write(line)
		stream.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	report, err := gotest.NewJSONParser().Parse(&stream)
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	host, _ := os.Hostname()
	suites := junit.CreateFromReport(report, host)
	return &suites, nil
}

// echoEvent prints what plain `go test` would: package lines (ok, FAIL, build errors) and
// the whole output of a top-level test that failed.
func echoEvent(echo io.Writer, ev testEvent, running map[string]*strings.Builder) {
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(echo, ev.Output)
	case ev.Test == "" && ev.Action == "output":
		if out := strings.TrimSpace(ev.Output); out != "PASS" && out != "FAIL" && !strings.HasPrefix(out, "=== ") {
			fmt.Fprint(echo, ev.Output)
		}
	case ev.Test != "" && !strings.Contains(ev.Test, "/"):
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "run":
			running[key] = &strings.Builder{}
		case "output":
			if b := running[key]; b != nil && !strings.HasPrefix(ev.Output, "=== ") {
				b.WriteString(ev.Output)
			}
		case "fail":
			if b := running[key]; b != nil {
				fmt.Fprint(echo, b.String())
			}
			delete(running, key)
		case "pass", "skip":
			delete(running, key)
		}
	case ev.Test != "" && ev.Action == "output" && !strings.HasPrefix(ev.Output, "=== "):
		// A subtest's output is its parent's too.
		top, _, _ := strings.Cut(ev.Test, "/")
		if b := running[ev.Package+" "+top]; b != nil {
			b.WriteString(ev.Output)
		}
	}
}

// Counts are a report's totals: failed counts failures and errors (a package that did not
// build or crashed outside its tests).
func Counts(j *JUnit) (tests, failed, skipped int) {
	return j.Tests, j.Failures + j.Errors, j.Skipped
}

// WriteJUnit writes j as an XML document.
func WriteJUnit(w io.Writer, j *JUnit) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return j.WriteXML(w)
}
