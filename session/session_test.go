package session_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/session"
	"github.com/stretchr/testify/require"
)

// A run stopped into a checkpoint several times and resumed each time from the file ends
// exactly as the uninterrupted run: same cycles, counters, messages and memory.
func TestResumeMatchesUninterrupted(t *testing.T) {
	for _, model := range []device.Model{device.RTL, device.Go, device.Lockstep} {
		t.Run(string(model), func(t *testing.T) {
			cfg := session.DefaultConfig(400)
			cfg.Model = model
			cfg.Seed = 3
			cfg.Board.IdlePercent = 25
			ctx := context.Background()

			s, err := session.New(cfg, "")
			require.NoError(t, err)
			done, err := s.Run(ctx, ^uint64(0))
			require.NoError(t, err)
			require.True(t, done)
			want := s.Result()
			require.NoError(t, s.Close())
			require.EqualValues(t, 400, want.Messages)

			path := filepath.Join(t.TempDir(), "run.ckpt")
			s, err = session.New(cfg, "")
			require.NoError(t, err)
			for _, at := range []uint64{want.Cycles / 5, want.Cycles / 2, want.Cycles * 9 / 10} {
				done, err := s.Run(ctx, at)
				require.NoError(t, err)
				require.False(t, done)
				require.GreaterOrEqual(t, s.Cycle(), at)
				require.NoError(t, s.Save(path))
				require.NoError(t, s.Close())
				s, err = session.Resume(path, "")
				require.NoError(t, err)
			}
			done, err = s.Run(ctx, ^uint64(0))
			require.NoError(t, err)
			require.True(t, done)
			got := s.Result()
			require.NoError(t, s.Close())
			require.NotZero(t, got.ResumedAt)
			got.ResumedAt = 0
			require.Equal(t, want, got)
		})
	}
}

func TestMessagesCoverTheRule(t *testing.T) {
	cfg := session.DefaultConfig(1)
	rng := session.NewStream(cfg.Seed)
	var inline, split, long int
	for i := uint64(0); i < 2000; i++ {
		m := session.Message(i, rng, 4096)
		require.GreaterOrEqual(t, len(m), 16)
		switch {
		case len(m) <= 56:
			inline++
		case len(m) <= 512:
			split++
		default:
			long++
		}
	}
	require.Positive(t, inline)
	require.Positive(t, split)
	require.Positive(t, long)
}
