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

// ended is a test that has ended, failed or not, and keeps what it was asked to log and
// clean up.
type ended struct {
	testing.TB
	failed   bool
	logged   []any
	cleanups []func()
}

func (e *ended) Helper()           {}
func (e *ended) Name() string      { return "TestX/sub" }
func (e *ended) Failed() bool      { return e.failed }
func (e *ended) Log(args ...any)   { e.logged = append(e.logged, args...) }
func (e *ended) Cleanup(fn func()) { e.cleanups = append(e.cleanups, fn) }

func TestReplayOnFailureLogsOnlyWhenTheTestFailed(t *testing.T) {
	for _, failed := range []bool{true, false} {
		e := &ended{failed: failed}
		ReplayOnFailure(e, 9, "./y")
		require.Empty(t, e.logged, "nothing is logged before the test ends")
		require.Len(t, e.cleanups, 1)
		e.cleanups[0]()
		if failed {
			require.Equal(t, []any{"seed 9: replay with SEED=9 go test ./y -run '^TestX$'"}, e.logged)
		} else {
			require.Empty(t, e.logged, "a test that passed logs no replay")
		}
	}
}
