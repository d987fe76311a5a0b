package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/formal"
)

// readmePath is the README, found before a test changes directory.
var readmePath, _ = filepath.Abs("../../README.md")

// readmeOutput is the output the README shows for the command line "$ cmd": the lines after
// it, up to the next "$ " line or the end of its code block.
func readmeOutput(t *testing.T, cmd string) []string {
	t.Helper()
	b, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if l != "$ "+cmd {
			continue
		}
		var out []string
		for _, o := range lines[i+1:] {
			if strings.HasPrefix(o, "$ ") || strings.HasPrefix(o, "```") {
				return out
			}
			out = append(out, o)
		}
	}
	t.Fatalf("README.md shows no %q", "$ "+cmd)
	return nil
}

// inOrder requires every line of want but "..." to be a line of got, in the same order.
func inOrder(t *testing.T, want []string, got string) {
	t.Helper()
	lines := strings.Split(got, "\n")
	k := 0
	for _, w := range want {
		if w == "..." {
			continue
		}
		for k < len(lines) && lines[k] != w {
			k++
		}
		require.Less(t, k, len(lines), "the output has no line %q (after the ones before it); it is:\n%s", w, got)
		k++
	}
}

var wallTime = regexp.MustCompile(`[0-9.]+ s wall`)

// The README's examples, run: the lines of their output that do not depend on the machine
// (rates, wall times, paths) must be the README's, so that the README stays true.
func TestREADMEExamples(t *testing.T) {
	t.Run("demo", func(t *testing.T) {
		want := readmeOutput(t, "go run ./cmd/lhsim demo")
		code, out, stderr := run(t, nil, "demo")
		require.Equal(t, 0, code, stderr)
		require.Equal(t, strings.Join(want, "\n"), strings.TrimSpace(out))
	})
	t.Run("area -cached", func(t *testing.T) {
		want := readmeOutput(t, "go run ./cmd/lhsim area -cached")
		for i, l := range want {
			if strings.HasPrefix(l, "(then every synthesized design") {
				want = want[:i]
				break
			}
		}
		code, out, stderr := run(t, nil, "area", "-cached")
		require.Equal(t, 0, code, stderr)
		require.True(t, strings.HasPrefix(out, strings.Join(want, "\n")+"\n"), "README:\n%s\nnow:\n%s", strings.Join(want, "\n"), out)
	})
	t.Run("search", func(t *testing.T) {
		want := readmeOutput(t, "go run ./cmd/lhsim search")
		code, out, stderr := run(t, nil, "search")
		require.Equal(t, 0, code, stderr)
		inOrder(t, want, out)
	})
	t.Run("bench (its cycles)", func(t *testing.T) {
		want := readmeOutput(t, "go run ./cmd/lhsim bench")
		code, out, stderr := run(t, nil, "bench", "--repeats", "1") // rates vary; the cycles do not
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want[0], strings.SplitN(out, "\n", 2)[0])
	})
	// The network commands: every line but the machine-dependent ones (wall time, rates).
	machine := regexp.MustCompile(`s wall|per wall second|^speed:|^│ (rtl|rtl-plugin|go|tlm) +│`)
	network := func(t *testing.T, cmd string) {
		want := readmeOutput(t, cmd)
		var keep []string
		for _, l := range want {
			if !machine.MatchString(l) {
				keep = append(keep, l)
			}
		}
		code, out, stderr := run(t, nil, strings.Fields(strings.TrimPrefix(cmd, "lhsim "))...)
		require.Equal(t, 0, code, stderr)
		inOrder(t, keep, out)
	}
	t.Run("barrier", func(t *testing.T) {
		network(t, "lhsim barrier --topology crossbar:64 --node-latency 1.0 --processes 8,9,16,17,32,33,64")
	})
	t.Run("alltoall", func(t *testing.T) { network(t, "lhsim alltoall --torus 8x8x8 --sizes 8,64") })
	t.Run("traffic", func(t *testing.T) { network(t, "lhsim traffic --topology torus:4x4x4 --load 0.1,0.3,0.5") })
	t.Run("incast", func(t *testing.T) { network(t, "lhsim incast") })
	t.Run("goal gen and the three levels", func(t *testing.T) {
		t.Chdir(t.TempDir())
		code, out, stderr := run(t, nil, "goal", "gen", "dissemination", "--ranks", "8", "--size", "1024", "--out", "diss.goal")
		require.Equal(t, 0, code, stderr)
		require.Empty(t, readmeOutput(t, "lhsim goal gen dissemination --ranks 8 --size 1024 --out diss.goal"))
		require.Empty(t, out)
		for _, cmd := range []string{"lhsim goal --network loggp --schedule diss.goal", "lhsim goal --schedule diss.goal",
			"lhsim goal --schedule diss.goal --rtl-nodes 0,1"} {
			network(t, cmd)
		}
	})
	t.Run("matchers", func(t *testing.T) { network(t, "lhsim matchers") })
	t.Run("matchers fig6", func(t *testing.T) { network(t, "lhsim matchers --workloads fig6 --matchers list,lhs") })
	t.Run("matchers on a real program", func(t *testing.T) {
		network(t, "lhsim matchers --workloads lammps-melt-50steps.8 --matchers list,alpu:8,alpu:64,lhs")
	})
	t.Run("mbcf", func(t *testing.T) { network(t, "lhsim mbcf") })
	t.Run("ib rtt", func(t *testing.T) { network(t, "lhsim ib rtt") })
	t.Run("ib run, checkpoint, resume", func(t *testing.T) {
		ckpt := filepath.Join(t.TempDir(), "ib.ckpt")
		stop := readmeOutput(t, "lhsim ib run --checkpoint-at 1000 --checkpoint ib.ckpt")
		code, _, stderr := run(t, nil, "ib", "run", "--checkpoint-at", "1000", "--checkpoint", ckpt)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, strings.ReplaceAll(strings.Join(stop, "\n"), "ib.ckpt", ckpt), strings.TrimSpace(stderr))
		resume := readmeOutput(t, "lhsim ib run --resume ib.ckpt")
		code, out, stderr := run(t, nil, "ib", "run", "--resume", ckpt)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, strings.Join(resume, "\n"), strings.TrimSpace(out))
	})
	t.Run("run, checkpoint, resume", func(t *testing.T) {
		ckpt := filepath.Join(t.TempDir(), "run.ckpt")
		stop := readmeOutput(t, "lhsim run --messages 3000 --checkpoint-at 100000 --checkpoint run.ckpt")
		code, _, stderr := run(t, nil, "run", "--messages", "3000", "--checkpoint-at", "100000", "--checkpoint", ckpt)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, strings.ReplaceAll(strings.Join(stop, "\n"), "run.ckpt", ckpt), strings.TrimSpace(stderr))

		resume := readmeOutput(t, "lhsim run --resume run.ckpt")
		code, out, stderr := run(t, nil, "run", "--resume", ckpt)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, wallTime.ReplaceAllString(strings.Join(resume, "\n"), "N s wall"), wallTime.ReplaceAllString(strings.TrimSpace(out), "N s wall"))
	})
}

// Every command that opens a device says in its help which models there are, lockstep too.
func TestModelHelpNamesEveryModel(t *testing.T) {
	for _, c := range []string{"demo", "search", "run"} {
		code, out, _ := run(t, nil, c, "-h")
		require.Equal(t, 0, code)
		require.Regexp(t, `-model string\n\s+rtl \(Verilated RTL\), go \(golden model\) or lockstep`, out, c)
	}
}

// Every test the README's bad-input table names exists in the repository.
func TestReadmeBadInputTestsExist(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(readme)
	start := strings.Index(text, "## What happens to bad input")
	require.GreaterOrEqual(t, start, 0, "the README has its bad-input table")
	table := text[start:]
	table = table[:strings.Index(table[3:], "\n## ")+3]
	names := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`").FindAllStringSubmatch(table, -1)
	require.Greater(t, len(names), 20)
	defined := map[string]bool{}
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range funcs.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	require.NoError(t, err)
	for _, n := range names {
		require.True(t, defined[n[1]], "the README's bad-input table names %s, which no test file defines", n[1])
	}
}

// The formal table that the README and docs/formal.md show lists every proof of `lhsim
// formal`, with its module, method and depth, ended as the proof expects.
func TestReadmeFormalTable(t *testing.T) {
	for _, file := range []string{"../../README.md", "../../docs/formal.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		text := string(b)
		start := strings.Index(text, "\n$ make formal\n")
		require.GreaterOrEqual(t, start, 0, "%s shows the output of make formal", file)
		block := text[start:]
		block = block[:strings.Index(block, "```")]
		for _, p := range formal.Proofs {
			row := regexp.MustCompile(`(?m)^│ ` + regexp.QuoteMeta(p.Name) + ` +│ ` + regexp.QuoteMeta(p.Module) + ` +│ ` +
				regexp.QuoteMeta(string(p.Method)) + ` +│ ` + strconv.Itoa(p.Depth) + ` +│ ([^│]+)│ [0-9.]+ +│$`)
			m := row.FindStringSubmatch(block)
			require.NotNil(t, m, "%s: no row for %q", file, p.Name)
			res := strings.TrimSpace(m[1])
			switch p.Expect {
			case formal.Proven:
				require.Equal(t, fmt.Sprintf("proven (%d-induction)", p.Depth), res, "%s: %s", file, p.Name)
			case formal.Counterexample:
				require.Regexp(t, `^counterexample at step \d+ \(`+strings.Join(p.Asserts, "|")+`\), as expected$`, res, "%s: %s", file, p.Name)
			case formal.Bounded:
				require.Equal(t, fmt.Sprintf("no counterexample in %d steps", p.Depth), res, "%s: %s", file, p.Name)
			case formal.Reached:
				require.True(t, strings.HasPrefix(res, "reached: "), "%s: %s: %s", file, p.Name, res)
				for _, c := range p.Covers {
					require.Regexp(t, c+`@\d+`, res, "%s: %s", file, p.Name)
				}
			default:
				t.Fatalf("%s: %s expects %s", file, p.Name, p.Expect)
			}
		}
	}
}
