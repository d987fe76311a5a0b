package session_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/checkpoint"
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

// A host that waits for an entry longer than the run's patience stops with an error that
// names what it waited for, rather than running on for ever.
func TestRunEndsWhenWaitingTooLong(t *testing.T) {
	cfg := session.DefaultConfig(50)
	cfg.Model = device.Go
	cfg.Board.IdlePercent = 95
	cfg.Patience = 40
	s, err := session.New(cfg, "")
	require.NoError(t, err)
	defer s.Close()
	done, err := s.Run(context.Background(), ^uint64(0))
	require.False(t, done)
	require.Error(t, err)
	require.Contains(t, err.Error(), "session: waited ")
	require.Regexp(t, `for LH entry \d+, message \d+ of 50 \(\d+ bytes\), to commit; \d+ messages queued at the input, input idle 95%`, err.Error())

	for _, idle := range []int{-1, 100} {
		cfg := session.DefaultConfig(10)
		cfg.Board.IdlePercent = idle
		_, err := session.New(cfg, "")
		require.ErrorContains(t, err, "outside 0..99", "idle %d", idle)
	}
	_, err = session.New(session.DefaultConfig(0), "")
	require.ErrorContains(t, err, "a run of no messages")
}

// A checkpoint whose checksum holds but whose contents were edited by hand is refused with
// an error: a description that is not a run, a state past the run's end.
func TestResumeRefusesEditedCheckpoints(t *testing.T) {
	cfg := session.DefaultConfig(100)
	cfg.Model = device.Go
	s, err := session.New(cfg, "")
	require.NoError(t, err)
	_, err = s.Run(context.Background(), 5000)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	require.NoError(t, s.Save(path))
	require.NoError(t, s.Close())
	f, err := checkpoint.Read(path)
	require.NoError(t, err)
	require.Positive(t, jsonInt(t, f.Run, "Checked"))

	edit := func(name string, change func(f *checkpoint.File)) string {
		g := *f
		change(&g)
		p := filepath.Join(dir, name)
		require.NoError(t, g.Write(p))
		return p
	}
	for name, c := range map[string]struct {
		change func(f *checkpoint.File)
		says   string
	}{
		"null meta":    {func(f *checkpoint.File) { f.Meta = json.RawMessage("null") }, "does not describe a run"},
		"fewer msgs":   {func(f *checkpoint.File) { f.Meta = setField(t, f.Meta, "Messages", 1) }, "not a point of this run"},
		"zero msgs":    {func(f *checkpoint.File) { f.Meta = setField(t, f.Meta, "Messages", 0) }, "a run of no messages"},
		"idle 100":     {func(f *checkpoint.File) { f.Meta = setBoardIdle(t, f.Meta, 100) }, "outside 0..99"},
		"checked > in": {func(f *checkpoint.File) { f.Run = setField(t, f.Run, "Checked", 99) }, "not a point of this run"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := session.Resume(edit(name+".ckpt", c.change), "")
			require.ErrorContains(t, err, c.says)
		})
	}
}

func jsonInt(t *testing.T, raw []byte, key string) int {
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return int(m[key].(float64))
}

func setField(t *testing.T, raw []byte, key string, v any) []byte {
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	m[key] = v
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

func setBoardIdle(t *testing.T, raw []byte, idle int) []byte {
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	m["Board"].(map[string]any)["IdlePercent"] = idle
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}
