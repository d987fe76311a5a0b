package rx

import (
	"encoding/json"
	"github.com/lhsim/lhsim/experiment"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The search's parts, all run at once on goroutines of their own and merged, give what
// RunSearch gives run whole, whatever order they end in; a part missing is an error.
func TestSearchPartsAtOnce(t *testing.T) {
	cfg := DefaultSearch()
	cfg.Model = "go"
	cfg.Depths = []int{0, 1, 3, 8, 32, 160}
	whole, err := RunSearch(cfg)
	require.NoError(t, err)
	parts := cfg.Parts()
	require.Len(t, parts, 3+2*(len(SearchLoops)-1))
	results := make([]*SearchResult, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	var steps, expected int64
	progress := experiment.NewProgress(func(done, total int64, _ string) { steps, expected = done, total })
	for i, p := range parts {
		p.Config.Progress = progress
		wg.Go(func() { results[i], errs[i] = RunSearch(p.Config) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, parts[i].Label)
	}
	require.Equal(t, int64(SearchSteps(len(cfg.Depths))), steps, "every part's steps add up to the whole's")
	require.Equal(t, steps, expected, "the parts expect the steps they take")
	a, err := json.Marshal(whole)
	require.NoError(t, err)
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 2, 0, 3, 1}} {
		in := make([]*SearchResult, len(order))
		for i, j := range order {
			in[i] = results[j]
		}
		merged, err := cfg.Merge(in)
		require.NoError(t, err)
		b, err := json.Marshal(merged)
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), "parts merged in the order %v", order)
	}
	_, err = cfg.Merge(results[1:])
	require.ErrorContains(t, err, "no part gave the curve no_lhs")
	_, err = cfg.Merge(append(results, results[0]))
	require.ErrorContains(t, err, "twice among the parts")
}
