package plugin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The plugin is built once and then reused while the sources are as they were: a stamp
// names the inputs and the binary it was built from. A change to either rebuilds it.
func TestEnsureReusesUpToDatePlugin(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), BinaryName)
	built := func() time.Time {
		st, err := os.Stat(out)
		require.NoError(t, err)
		return st.ModTime()
	}

	t0 := time.Now()
	require.NoError(t, ensure(goCmd, root, out))
	t.Logf("first: built in %v", time.Since(t0))
	first := built()

	t0 = time.Now()
	require.NoError(t, ensure(goCmd, root, out))
	took := time.Since(t0)
	t.Logf("second: up to date, checked in %v", took)
	require.Equal(t, first, built(), "an up-to-date plugin is not rebuilt")
	require.Less(t, took, time.Second)

	// Sources that changed (as the stamp sees it): rebuilt.
	stamp, err := os.ReadFile(out + ".stamp")
	require.NoError(t, err)
	other := byte('0') // a first digit the stamp does not have (the digest may start with 0)
	if stamp[0] == other {
		other = '1'
	}
	require.NoError(t, os.WriteFile(out+".stamp", append([]byte{other}, stamp[1:]...), 0o644))
	require.NoError(t, ensure(goCmd, root, out))
	require.NotEqual(t, first, built(), "a plugin from other sources is rebuilt")

	// Another binary in its place (a `make plugin` of other sources): rebuilt.
	second := built()
	self, err := os.Executable()
	require.NoError(t, err)
	b, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, b, 0o755))
	require.NoError(t, ensure(goCmd, root, out))
	require.NotEqual(t, second, built())
	id, err := goBuildID(out)
	require.NoError(t, err)
	selfID, err := goBuildID(self)
	require.NoError(t, err)
	require.NotEqual(t, selfID, id)

	v, err := exec.Command(out, "-version").Output()
	require.NoError(t, err)
	require.Regexp(t, `^p\d+-[0-9a-f]{12}-rtl`, string(v))
}
