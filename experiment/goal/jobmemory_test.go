package goal

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// JobMemory counts a generated workload's operations as the generator writes them: the
// count is the parsed schedule's, for every pattern of the study.
func TestPatternOpsCountsTheSchedule(t *testing.T) {
	cfg := MatchersConfig{Ranks: 24, Size: 8, Seed: 1}
	for _, w := range MatchersWorkloads {
		s, err := cfg.generate(w)
		require.NoError(t, err, w)
		require.Positive(t, s.NumOps, w)
		require.EqualValues(t, s.NumOps, cfg.patternOps(w), w)
	}
}
