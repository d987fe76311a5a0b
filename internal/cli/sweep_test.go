package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/memlimit"
)

type sum struct{ items []int }

func mergeSums(rs []*sum) (*sum, error) {
	var all sum
	for _, r := range rs {
		all.items = append(all.items, r.items...)
	}
	return &all, nil
}

// Parts run at once merge in Parts order whatever order they finish in; the error of the
// first part that fails in Parts order is the sweep's, as one run would meet it.
func TestRunJobs(t *testing.T) {
	var parts []experiment.Part[int]
	for i := range 12 {
		parts = append(parts, experiment.Part[int]{Label: fmt.Sprint(i), Config: i})
	}
	run := func(i int) (*sum, error) {
		time.Sleep(time.Duration(12-i) * time.Millisecond) // the later parts finish first
		return &sum{items: []int{i}}, nil
	}
	for _, jobs := range []int{1, 3, 12} {
		res, err := RunJobs(jobs, parts, run, mergeSums)
		require.NoError(t, err)
		require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, res.items, "--jobs %d", jobs)
	}

	failing := func(i int) (*sum, error) {
		if i == 4 || i == 7 {
			return nil, fmt.Errorf("part %d failed", i)
		}
		return &sum{items: []int{i}}, nil
	}
	_, err := RunJobs(1, parts, failing, mergeSums)
	require.EqualError(t, err, "part 4 failed")
	_, err = RunJobs(4, parts, failing, mergeSums)
	require.EqualError(t, err, "part 4 failed")
}

type hungry struct{ bytes int64 }

func (h hungry) JobMemory() int64 { return h.bytes }

// A part whose estimate passes the memory limit even alone is refused before any work, with
// the estimate and the limit; --jobs is lowered to what the limit holds, with a line saying so.
func TestMemoryFits(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20)) // as GOMEMLIMIT=64MiB does
	parts := []experiment.Part[hungry]{{Config: hungry{20 << 20}}, {Config: hungry{30 << 20}}, {Config: hungry{1 << 20}}}
	require.NoError(t, PartFits(parts))
	require.Equal(t, 2, FitJobs("t", 8, parts), "64 MiB holds two parts of 30 MiB")
	require.Equal(t, 1, FitJobs("t", 1, parts))
	err := PartFits([]experiment.Part[hungry]{{Config: hungry{3 << 30}}})
	require.Error(t, err)
	require.True(t, strings.HasSuffix(err.Error(), "a part of this run may take about 3.0 GiB (its estimate: docs/performance.md), and the limit is 64.0 MiB (GOMEMLIMIT)"), err.Error())
	require.ErrorIs(t, err, memlimit.ErrTooBig)
}
