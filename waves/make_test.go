package waves_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// makeWaves runs `make waves TEST=test` in the repository with the waveforms in dir and no
// display, and returns its exit status and output.
func makeWaves(t *testing.T, dir, test string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("make", "-s", "waves", "TEST="+test)
	cmd.Dir = ".."
	for _, e := range os.Environ() {
		switch k, _, _ := strings.Cut(e, "="); k {
		case "DISPLAY", "WAYLAND_DISPLAY", "LHSIM_MODEL", "LHSIM_WAVES_DIR", "MAKEFLAGS", "MAKELEVEL":
			continue
		}
		cmd.Env = append(cmd.Env, e)
	}
	cmd.Env = append(cmd.Env, append(env, "LHSIM_WAVES_DIR="+dir)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	require.NoError(t, err, "%s", out)
	return 0, string(out)
}

// make waves presents the waveform this run recorded, never one an earlier run left, and
// says what went wrong when there is none: no such test, no such subtest, no RTL to record.
func TestMakeWaves(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "TestVectorRoundTrip")
	for _, ext := range []string{".fst", ".gtkw"} {
		require.NoError(t, os.WriteFile(old+ext, []byte("an earlier run's"), 0o644))
	}

	code, out := makeWaves(t, dir, "TestVectorRoundTrip", "LHSIM_MODEL=go")
	require.NotZero(t, code, out)
	require.Contains(t, out, "waves: LHSIM_MODEL=go has no RTL to record")
	require.NotContains(t, out, "gtkwave ", "an old waveform presented as new")

	code, out = makeWaves(t, dir, "TestNope")
	require.NotZero(t, code, out)
	require.Contains(t, out, "waves: no test in ./testbench matches TEST=TestNope")
	require.NotContains(t, out, "LHSIM_MODEL")

	code, out = makeWaves(t, dir, "TestVectorRoundTrip/nope")
	require.NotZero(t, code, out)
	require.Contains(t, out, "waves: TestVectorRoundTrip has no subtest nope")

	code, out = makeWaves(t, dir, "TestVectorRoundTrip")
	require.Zero(t, code, out)
	require.Contains(t, out, "gtkwave "+old+".fst "+old+".gtkw\n")
	require.Contains(t, out, "waves: no display here")
	save, err := os.ReadFile(old + ".gtkw")
	require.NoError(t, err)
	require.Contains(t, string(save), "[dumpfile] \""+old+".fst\"", "this run's save file")
	st, err := os.Stat(old + ".fst")
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(1000), "this run's waveform")
}
