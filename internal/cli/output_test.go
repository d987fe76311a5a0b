package cli

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func paths(t *testing.T, flags ...any) []PathFlag {
	t.Helper()
	var ps []PathFlag
	for i := 0; i < len(flags); i += 3 {
		v := flags[i+1].(string)
		ps = append(ps, PathFlag{Name: flags[i].(string), Value: &v, Input: flags[i+2].(bool)})
	}
	return ps
}

// No output may name an input or another output, by any spelling or link; a folder or a
// folder that does not exist cannot be written; a path that can be written passes and
// leaves nothing behind.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.goal")
	require.NoError(t, os.WriteFile(in, []byte("x"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(in, link))
	out := filepath.Join(dir, "out.json")
	for _, c := range []struct {
		paths []PathFlag
		says  string
	}{
		{paths(t, "schedule", in, true, "out", link, false), "--out and --schedule name the same file " + link + ": --out would overwrite an input"},
		{paths(t, "out", out, false, "json", filepath.Join(dir, ".", "out.json"), false), "--out and --json name the same file"},
		{paths(t, "out", dir, false), "--out: " + dir + " is a folder"},
		{paths(t, "out", filepath.Join(dir, "no", "out.json"), false), "--out: open " + filepath.Join(dir, "no", "out.json") + ": no such file or directory"},
		{paths(t, "plot", filepath.Join(dir, "p.txt"), false), "--plot: "},
	} {
		err := CheckPaths(c.paths)
		var pe PathError
		require.ErrorAs(t, err, &pe, c.says)
		require.ErrorContains(t, err, c.says)
	}
	require.NoError(t, CheckPaths(paths(t, "schedule", in, true, "out", out, false, "json", "", false)))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, left, 2, "the check leaves no file behind")
}

// A file is written beside its name and renamed once whole: a failed write leaves the old
// file as it was and no other file, and its error names the user's file under the flag.
func TestWriteFileBesideAndRenamed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o600))
	err := WriteTo("--out", out, func(w io.Writer) error {
		_, err := w.Write([]byte("half"))
		return errors.Join(err, &os.PathError{Op: "write", Path: w.(*os.File).Name(), Err: errors.New("disk full")})
	})
	require.EqualError(t, err, "--out "+out+": disk full")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "old", string(b))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, left, 1)

	require.NoError(t, WriteBytes("--out", out, []byte("new")))
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))
	st, err := os.Stat(out)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// A value JSON cannot hold fails the command before --out is written.
func TestWriteResultNothingHalf(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	err := WriteResult(false, &out, map[string]float64{"x": math.NaN()}, func(io.Writer) error { return nil })
	require.ErrorContains(t, err, "the result cannot be written as JSON")
	require.NoFileExists(t, out)
}
