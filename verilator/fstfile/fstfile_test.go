package fstfile_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/session"
	"github.com/lhsim/lhsim/verilator/fstfile"
)

// record runs messages messages of lhsim run on the RTL with a waveform at path and returns
// the run's cycles.
func record(t *testing.T, path string, messages uint64) uint64 {
	t.Helper()
	s, err := session.New(session.DefaultConfig(messages), path)
	require.NoError(t, err)
	done, err := s.Run(context.Background(), math.MaxUint64)
	require.NoError(t, err)
	require.True(t, done)
	cycles := s.Cycle()
	require.NoError(t, s.Close())
	return cycles
}

// The sizes the reserve and the estimate are built on (fstfile.go's comment) hold for real
// waveforms of the receive path: the parts the close writes fit in Reserve with room, and
// the estimate covers the whole file without being more than twice it (and the reserve).
func TestEstimateCoversRealWaveforms(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []uint64{20, 300} {
		path := filepath.Join(dir, "w.fst")
		cycles := record(t, path, n)
		in, err := fstfile.Check(path)
		require.NoError(t, err)
		t.Logf("%d messages, %d cycles: %+v; %.4f bytes per signal and cycle", n, cycles, in,
			float64(in.Bytes)/float64(in.Signals)/float64(cycles))
		require.Equal(t, 605, in.Signals, "lhs_top's signals changed: measure the sizes again")
		close := in.Names + in.NamesBlock + in.Geometry + in.MaxBlock
		require.LessOrEqual(t, 4*close, int64(fstfile.Reserve), "the close's parts outgrew a quarter of the reserve")
		est := fstfile.Estimate(in.Signals, cycles)
		require.GreaterOrEqual(t, est, uint64(in.Bytes), "the estimate is under the real size")
		require.LessOrEqual(t, est, 2*uint64(in.Bytes)+fstfile.Reserve, "the estimate is more than twice the real size")
		_, err = os.Stat(path + ".reserve")
		require.ErrorIs(t, err, os.ErrNotExist, "the reserve was left beside the waveform")
	}
}

// With a free-space figure given, the check refuses what does not fit with one line naming
// the file, what is free and what is needed, and takes what fits; the guard refuses to start
// a writer whose close would not fit.
func TestCheckSpaceWithAFigure(t *testing.T) {
	free := uint64(0)
	was := fstfile.FreeBytes
	fstfile.FreeBytes = func(string) (uint64, error) { return free, nil }
	t.Cleanup(func() { fstfile.FreeBytes = was })
	path := filepath.Join(t.TempDir(), "not", "yet", "w.fst") // checked at its nearest folder
	need := fstfile.Estimate(605, 1_000_000)
	require.Equal(t, uint64(fstfile.Reserve+60_500_000), need)
	free = need - 1
	err := fstfile.CheckSpace(path, need)
	require.ErrorIs(t, err, fstfile.ErrNoSpace)
	require.EqualError(t, err, "waveform "+path+": no space left on device: 57.9 MiB free on its file system, and the waveform needs about 57.9 MiB (docs/waves.md)")
	free = need
	require.NoError(t, fstfile.CheckSpace(path, need))

	free = fstfile.Reserve - 1
	_, err = fstfile.Open(filepath.Join(t.TempDir(), "w.fst"))
	require.ErrorIs(t, err, fstfile.ErrNoSpace)
}

// A waveform cut anywhere (as a file system that fills cuts it) fails the check, naming it,
// and the guard removes it; the whole one passes.
func TestCheckFindsACutWaveform(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.fst")
	record(t, path, 20)
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, keep := range []int{0, 100, 330, 331, 2000, len(whole) / 2, len(whole) - 1} {
		cut := filepath.Join(dir, "cut.fst")
		require.NoError(t, os.WriteFile(cut, whole[:keep], 0o644))
		_, err := fstfile.Check(cut)
		require.ErrorIs(t, err, fstfile.ErrNoSpace, "cut at %d", keep)
		require.Contains(t, err.Error(), "waveform "+cut+": no space left on device: the file system filled while it was written")
	}
	// A block of zeros where a block was (a write the file system refused, the writer's
	// position moved on): the file has its length but not its blocks.
	holed := append([]byte{}, whole...)
	clear(holed[330:4000])
	require.NoError(t, os.WriteFile(path, holed, 0o644))
	_, err = fstfile.Check(path)
	require.True(t, errors.Is(err, fstfile.ErrNoSpace), "%v", err)
}
