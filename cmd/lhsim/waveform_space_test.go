package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/verilator/fstfile"
)

// tinyFS mounts a tmpfs of size bytes for the test and fills it to leave about free bytes.
func tinyFS(t *testing.T, size, free int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs: %v: %s", err, b)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	if fill := size - free; fill > 0 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "fill"), make([]byte, fill), 0o644))
	}
	return dir
}

// A waveform on a full or filling file system (issue 37, class 1): the FST writer inside
// Verilator reports no failed write, and a file system full at its close ended the process
// with SIGBUS; one that filled during the run left a truncated waveform and exit 0. Now a
// file system without room for the close is refused before the run (exit 2, one line), one
// that fills during the run fails it (exit 1, one line, the cut waveform removed), and a
// waveform that fits is whole. Needs root (a 1 MiB tmpfs); skipped otherwise.
func TestWaveformOnAFullFileSystem(t *testing.T) {
	nothingLeft := func(dir string, names ...string) {
		t.Helper()
		for _, n := range names {
			require.NoFileExists(t, filepath.Join(dir, n))
		}
	}
	oneLine := func(args []string, code, want int, stderr, says string) {
		t.Helper()
		require.Equal(t, want, code, "lhsim %v: %s", args, stderr)
		require.NotContains(t, stderr, "SIGBUS", "lhsim %v", args)
		require.NotContains(t, stderr, "goroutine ", "lhsim %v", args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "lhsim %v: one line: %s", args, stderr)
		require.Contains(t, stderr, says, "lhsim %v", args)
	}
	// Full: 8 KiB left, under the close's reserve. Before: SIGBUS in the writer's close.
	for _, cmd := range [][]string{
		{"demo", "--model", "rtl", "--trace"},
		{"run", "--model", "rtl", "--messages", "10", "--trace"},
		{"incast", "--topology", "crossbar:4", "--messages", "2", "--speed=false", "--trace", "0", "--trace-file"},
	} {
		dir := tinyFS(t, 1<<20, 8<<10)
		w := filepath.Join(dir, "w.fst")
		args := append(append([]string{}, cmd...), w)
		code, _, stderr := run(t, nil, args...)
		oneLine(args, code, 2, stderr, "waveform "+w+": no space left on device: 8.0 KiB free on its file system, and the waveform needs about")
		nothingLeft(dir, "w.fst", "w.fst.hier", "w.fst.reserve", "w.gtkw")
	}
	// Filling: 1 MiB for a waveform of about 20 MiB. Before: exit 0 and a cut file.
	dir := tinyFS(t, 1<<20, 1<<20)
	w := filepath.Join(dir, "w.fst")
	args := []string{"run", "--model", "rtl", "--messages", "2000", "--trace", w}
	code, _, stderr := run(t, nil, args...)
	oneLine(args, code, 1, stderr, "lhsim run: waveform "+w+": no space left on device: the file system filled while it was written")
	nothingLeft(dir, "w.fst", "w.fst.hier", "w.fst.reserve")
	// Room enough: the demo's waveform (49 KB) is whole, the reserve gone.
	args = []string{"demo", "--model", "rtl", "--trace", w}
	code, _, stderr = run(t, nil, args...)
	require.Equal(t, 0, code, stderr)
	in, err := fstfile.Check(w)
	require.NoError(t, err)
	require.Positive(t, in.Blocks)
	nothingLeft(dir, "w.fst.hier", "w.fst.reserve")
}
