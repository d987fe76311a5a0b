package testseed

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	t.Setenv("SEED", "")
	require.Equal(t, []uint64{1, 2, 3}, List(t, 3))
	t.Setenv("SEED", "0x11")
	require.Equal(t, []uint64{17}, List(t, 3))
}

func TestOne(t *testing.T) {
	t.Setenv("SEED", "")
	require.Equal(t, uint64(39), One(t, 39))
	t.Setenv("SEED", "7")
	require.Equal(t, uint64(7), One(t, 39))
}

func TestReplayNamesTheTopLevelTest(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		require.Equal(t, "seed 5: replay with SEED=5 go test ./x -run '^TestReplayNamesTheTopLevelTest$'", Replay(t, 5, "./x"))
	})
}
