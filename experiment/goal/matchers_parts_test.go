package goal

import (
	"encoding/json"
	"github.com/lhsim/lhsim/experiment"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The study's parts, all run at once on goroutines of their own (sharing each workload's
// schedule: under -race this checks that the runs only read it) and merged, give what
// RunMatchers gives run whole; each part tells Progress of its one run.
func TestMatchersPartsAtOnce(t *testing.T) {
	cfg := MatchersConfig{Ranks: 16, Size: 8, Seed: 1, Workloads: []string{"incast", "random_bisect"},
		Matchers: []string{"list", "bins:8", "alpu:64"}}
	whole, err := RunMatchers(cfg)
	require.NoError(t, err)
	// Made when the first part needs it, or before (Prepare), as lhsim matchers does.
	lazy := cfg.Parts()
	cfg, err = cfg.Prepare()
	require.NoError(t, err)
	parts := cfg.Parts()
	require.Len(t, lazy, len(parts))
	require.Len(t, parts, cfg.runs())
	require.Len(t, parts, 6)
	results := make([]*MatchersResult, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	var told [][2]int64
	progress := experiment.NewProgress(func(done, total int64, _ string) { told = append(told, [2]int64{done, total}) })
	for i, p := range parts {
		p.Config.Progress = progress // shared by the parts run at once, as lhsim --jobs shares it
		wg.Go(func() { results[i], errs[i] = RunMatchers(p.Config) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, parts[i].Label)
	}
	require.Len(t, told, len(parts))
	require.Equal(t, [2]int64{int64(len(parts)), int64(len(parts))}, told[len(told)-1], "the parts' steps add up to the whole's")
	merged, err := MatchersConfig{}.Merge(results)
	require.NoError(t, err)
	a, err := json.Marshal(whole)
	require.NoError(t, err)
	b, err := json.Marshal(merged)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(b))
	for i := range lazy {
		results[i], err = RunMatchers(lazy[i].Config)
		require.NoError(t, err)
	}
	merged, err = MatchersConfig{}.Merge(results)
	require.NoError(t, err)
	b, err = json.Marshal(merged)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(b))
	// In another order the rows are out of the study's order: the merge keeps Parts order.
	results[0], results[1] = results[1], results[0]
	swapped, err := MatchersConfig{}.Merge(results)
	require.NoError(t, err)
	c, err := json.Marshal(swapped)
	require.NoError(t, err)
	require.NotEqual(t, string(a), string(c))
}
