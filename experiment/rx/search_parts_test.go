package rx

import (
	"encoding/json"
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
	var mu sync.Mutex
	steps := 0
	for i, p := range parts {
		p.Config.Progress = func(int, int, string) { mu.Lock(); steps++; mu.Unlock() }
		wg.Go(func() { results[i], errs[i] = RunSearch(p.Config) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, parts[i].Label)
	}
	require.Equal(t, SearchSteps(len(cfg.Depths)), steps, "every part's steps add up to the whole's")
	a, err := json.Marshal(whole)
	require.NoError(t, err)
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 2, 0, 3, 1}} {
		in := make([]*SearchResult, len(order))
		for i, j := range order {
			in[i] = results[j]
		}
		merged, err := MergeSearch(cfg, in)
		require.NoError(t, err)
		b, err := json.Marshal(merged)
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), "parts merged in the order %v", order)
	}
	_, err = MergeSearch(cfg, results[1:])
	require.ErrorContains(t, err, "no part gave the curve no_lhs")
	_, err = MergeSearch(cfg, append(results, results[0]))
	require.ErrorContains(t, err, "twice among the parts")
}
