package formal

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Select is the proofs to run: the fast ones only (make test) or all (make formal), those
// whose name matches only when it is set.
func Select(fast bool, only *regexp.Regexp) []Proof {
	var out []Proof
	for _, p := range Proofs {
		if fast && !p.Fast {
			continue
		}
		if only != nil && !only.MatchString(p.Name) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Text is a result as the table shows it.
func (r Result) Text() string {
	var s string
	switch r.Outcome {
	case Proven:
		s = fmt.Sprintf("proven (%d-induction)", r.Proof.Depth)
	case Bounded:
		s = fmt.Sprintf("no counterexample in %d steps", r.Proof.Depth)
	case Reached:
		s = "reached: " + strings.Join(r.Reached, " ")
	case Counterexample:
		s = fmt.Sprintf("counterexample at step %d (%s)", r.Step, r.Failed)
	case InductionFails:
		s = fmt.Sprintf("induction fails at k=%d (%s)", r.Proof.Depth, r.Failed)
	case Unreached:
		s = "unreached: " + r.Failed
	default:
		s = string(r.Outcome)
	}
	if r.Pass && r.Proof.Expect == Counterexample {
		s += ", as expected"
	}
	if !r.Pass {
		s = "FAIL: " + s
	}
	return s
}

// Table prints the results: property, module, method, depth, result, seconds; then where
// each counterexample's waveform is, and what went wrong where a proof did not end as
// expected.
func Table(w io.Writer, results []Result) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("property", "module", "method", "depth", "result", "seconds")
	for _, r := range results {
		if err := t.Append(r.Proof.Name, r.Proof.Module, string(r.Proof.Method), fmt.Sprint(r.Proof.Depth), r.Text(), fmt.Sprintf("%.1f", r.Seconds)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome == Counterexample && r.Save != "" {
			fmt.Fprintf(w, "%s: %s\n  gtkwave %s %s\n", r.Proof.Name, r.Proof.Note, here(r.VCD), here(r.Save))
		}
		if r.Detail != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Proof.Name, r.Detail)
		}
	}
	return nil
}

// Passed reports whether every result ended as its proof expects.
func Passed(results []Result) bool {
	for _, r := range results {
		if !r.Pass {
			return false
		}
	}
	return len(results) > 0
}

// here names a path from the current folder when it is below it.
func here(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
