package regress_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/lhsim/lhsim/regress"
	"github.com/stretchr/testify/require"
)

func TestRegression(t *testing.T) {
	cfg := regress.Config{Package: "./testdata/seeded", Jobs: 2, Binary: filepath.Join(t.TempDir(), "seeded.test")}
	for s := uint64(1); s <= 10; s++ {
		cfg.Seeds = append(cfg.Seeds, s)
	}
	ctx := context.Background()
	cfg, err := regress.Build(ctx, cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	var calls []int
	r, err := regress.Run(ctx, cfg, func(done, total, failed int, _ regress.SeedResult) {
		mu.Lock()
		calls = append(calls, done)
		mu.Unlock()
		require.Equal(t, 10, total)
	})
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, calls)
	require.Equal(t, 6, r.Passed())
	require.Equal(t, 4, r.Failed())
	var failed []uint64
	for _, s := range r.Results {
		if !s.Passed {
			failed = append(failed, s.Seed)
		}
	}
	require.Equal(t, []uint64{3, 6, 7, 9}, failed)
	require.Equal(t, []string{"TestRandom/3"}, r.Results[2].Failed)
	require.Equal(t, "SEED=3 WAVES=1 go test ./testdata/seeded -run '^TestRandom$/^3$' -v", r.Replay(r.Results[2]))
	require.Contains(t, r.Results[6].Output, "panic: seed 7")

	var out bytes.Buffer
	require.NoError(t, r.Print(&out))
	table := out.String()
	require.Contains(t, table, "10 seeds, 6 passed, 4 failed")
	require.Contains(t, table, "6: 1-2, 4-5, 8, 10")
	require.Contains(t, table, "SEED=9 WAVES=1 go test ./testdata/seeded -run '^TestRandom$/^9$' -v")

	var x bytes.Buffer
	require.NoError(t, regress.WriteJUnit(&x, r.JUnit()))
	var j junit.Testsuites
	require.NoError(t, xml.Unmarshal(x.Bytes(), &j))
	require.Equal(t, 10, j.Tests)
	require.Equal(t, 4, j.Failures)
	require.Equal(t, "seed 3", j.Suites[0].Testcases[2].Name)
	require.Contains(t, j.Suites[0].Testcases[2].Failure.Data, "seed 3 fails")
}

// `go test -json` of real packages — passes, a skip, a failed subtest, a 100 KiB output line,
// a package that does not build and one whose binary exits before its tests — becomes a JUnit
// report in which nothing that failed reads as green, with progress echoed as go test prints.
func TestFromTestJSON(t *testing.T) {
	cmd := exec.Command("go", "test", "-count=1", "-json", "./testdata/junitcases/...")
	stream, err := cmd.Output()
	require.Error(t, err, "the stand-in packages fail")
	var echo bytes.Buffer
	r, err := regress.FromTestJSON(bytes.NewReader(stream), &echo)
	require.NoError(t, err)
	tests, failed, skipped := regress.Counts(r)
	require.Equal(t, 8, tests, "six in mixed, the build failure, the crash")
	require.Equal(t, 5, failed, "TestSub, TestSub/bad, TestLongLine, the build, the crash")
	require.Equal(t, 1, skipped)

	suites := map[string]junit.Testsuite{}
	for _, s := range r.Suites {
		suites[path.Base(s.Name)] = s
	}
	require.Len(t, suites, 3)
	cases := map[string]junit.Testcase{}
	for _, c := range suites["mixed"].Testcases {
		cases[c.Name] = c
	}
	require.Nil(t, cases["TestPass"].Failure)
	require.Contains(t, cases["TestSkip"].Skipped.Data, "needs gtkwave")
	require.Contains(t, cases["TestSub/bad"].Failure.Data, "bytes differ")
	require.NotNil(t, cases["TestSub"].Failure, "a parent fails with its subtest")
	require.Nil(t, cases["TestSub/ok"].Failure)
	require.Contains(t, cases["TestLongLine"].Failure.Data, "a failure after a 100 KiB line")
	require.GreaterOrEqual(t, strings.Count(cases["TestLongLine"].Failure.Data, "x"), 100<<10, "the long line whole (test2json cuts it in 4 KiB pieces)")
	require.Equal(t, "Build error", suites["broken"].Testcases[0].Error.Message)
	require.Contains(t, suites["broken"].Testcases[0].Error.Data, "undefined: undefined")
	require.Equal(t, "Runtime error", suites["crash"].Testcases[0].Error.Message)
	require.Contains(t, suites["crash"].Testcases[0].Error.Data, "crashed before the tests")

	e := echo.String()
	require.Contains(t, e, "--- FAIL: TestSub/bad")
	require.Contains(t, e, "undefined: undefined")
	require.Contains(t, e, "FAIL\tgithub.com/lhsim/lhsim/regress/testdata/junitcases/crash")
	require.NotContains(t, e, "=== RUN")
	require.NotContains(t, e, "--- PASS: TestPass", "passing tests are quiet, as in go test")

	var x bytes.Buffer
	require.NoError(t, regress.WriteJUnit(&x, r))
	require.True(t, strings.HasPrefix(x.String(), xml.Header))
	var back junit.Testsuites
	require.NoError(t, xml.Unmarshal(x.Bytes(), &back))
	require.Equal(t, 3, back.Failures)
	require.Equal(t, 2, back.Errors)
}
