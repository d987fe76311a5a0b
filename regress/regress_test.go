package regress_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	require.NoError(t, r.JUnit().Write(&x))
	var j regress.JUnitSuites
	require.NoError(t, xml.Unmarshal(x.Bytes(), &j))
	require.Equal(t, 10, j.Tests)
	require.Equal(t, 4, j.Failures)
	require.Equal(t, "seed 3", j.Suites[0].Cases[2].Name)
	require.Contains(t, j.Suites[0].Cases[2].Failure.Body, "seed 3 fails")
}

func TestFromTestJSON(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"start","Package":"p/a"}`,
		`{"Action":"run","Package":"p/a","Test":"TestX"}`,
		`{"Action":"output","Package":"p/a","Test":"TestX","Output":"=== RUN   TestX\n"}`,
		`{"Action":"run","Package":"p/a","Test":"TestX/1"}`,
		`{"Action":"output","Package":"p/a","Test":"TestX/1","Output":"    x_test.go:9: bytes differ\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestX/1","Elapsed":0.5}`,
		`{"Action":"output","Package":"p/a","Test":"TestX","Output":"--- FAIL: TestX (0.50s)\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestX","Elapsed":0.5}`,
		`{"Action":"run","Package":"p/a","Test":"TestY"}`,
		`{"Action":"output","Package":"p/a","Test":"TestY","Output":"    y_test.go:3: needs gtkwave\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestY","Elapsed":0}`,
		`{"Action":"run","Package":"p/a","Test":"TestZ"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestZ","Elapsed":0.25}`,
		`{"Action":"output","Package":"p/a","Output":"FAIL\tp/a\t1.0s\n"}`,
		`{"Action":"fail","Package":"p/a","Elapsed":1.0}`,
		`# p/b`,
		`b.go:3:1: syntax error`,
		`{"Action":"start","Package":"p/b"}`,
		`{"Action":"output","Package":"p/b","Output":"FAIL\tp/b [build failed]\n"}`,
		`{"Action":"fail","Package":"p/b","Elapsed":0}`,
		`{"Action":"output","Package":"p/c","Output":"ok  \tp/c\t0.1s\n"}`,
		`{"Action":"pass","Package":"p/c","Elapsed":0.1}`,
	}, "\n")
	var echo bytes.Buffer
	r, err := regress.FromTestJSON(strings.NewReader(stream), &echo)
	require.NoError(t, err)
	require.Equal(t, 5, r.Tests, "TestX, TestX/1, TestY, TestZ and p/b's build")
	require.Equal(t, 3, r.Failures)
	require.Equal(t, 1, r.Skipped)
	a := r.Suites[0]
	require.Equal(t, "p/a", a.Name)
	require.Equal(t, "TestX/1", a.Cases[1].Name)
	require.Contains(t, a.Cases[1].Failure.Body, "bytes differ")
	require.Equal(t, "needs gtkwave", a.Cases[2].Skipped.Message)
	require.Nil(t, a.Cases[3].Failure)
	b := r.Suites[1]
	require.Equal(t, "[package]", b.Cases[0].Name)
	require.Len(t, r.Suites, 2, "a package without tests that passed is left out")
	require.Contains(t, echo.String(), "--- FAIL: TestX")
	require.Contains(t, echo.String(), "b.go:3:1: syntax error")
	require.Contains(t, echo.String(), "ok  \tp/c")

	var x bytes.Buffer
	require.NoError(t, r.Write(&x))
	require.True(t, strings.HasPrefix(x.String(), xml.Header))
	var back regress.JUnitSuites
	require.NoError(t, xml.Unmarshal(x.Bytes(), &back))
	require.Equal(t, 3, back.Failures)
}

// A -run pattern that matches no test is a failure of every seed, not a pass, and List finds
// it before any seed runs.
func TestRegressionOfNoTests(t *testing.T) {
	cfg := regress.Config{Package: "./testdata/seeded", Run: "NoSuchTest", Jobs: 2, Binary: filepath.Join(t.TempDir(), "seeded.test"),
		Seeds: []uint64{1, 2}}
	ctx := context.Background()
	cfg, err := regress.Build(ctx, cfg)
	require.NoError(t, err)
	names, err := regress.List(ctx, cfg)
	require.NoError(t, err)
	require.Empty(t, names)
	cfg.Run = "Random/3"
	names, err = regress.List(ctx, cfg)
	require.NoError(t, err)
	require.Equal(t, []string{"TestRandom"}, names)

	cfg.Run = "NoSuchTest"
	r, err := regress.Run(ctx, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, 0, r.Passed())
	require.Equal(t, 2, r.Failed())
	require.Equal(t, []string{"(test binary: no test matched -run NoSuchTest)"}, r.Results[0].Failed)
}
