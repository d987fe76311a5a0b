package memlimit

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

// The process's own cgroup is found through its /proc/self/cgroup, v1 and v2, and the least
// limit on the way up to the root binds (a parent's limit bounds its children); "max" and
// v1's "unlimited" are no limit.
func TestCgroupLimits(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc-cgroup")
	write(t, proc, "12:cpu,cpuacct:/x\n4:memory:/slurm/job7/step0\n0::/user.slice/job7\n")
	write(t, filepath.Join(root, "memory/slurm/job7/step0/memory.limit_in_bytes"), "9223372036854771712\n")
	write(t, filepath.Join(root, "memory/slurm/job7/memory.limit_in_bytes"), "3221225472\n")
	write(t, filepath.Join(root, "memory/memory.limit_in_bytes"), "9223372036854771712\n")
	write(t, filepath.Join(root, "user.slice/job7/memory.max"), "max\n")
	write(t, filepath.Join(root, "user.slice/memory.max"), "2147483648\n")
	ls := cgroup(root, proc)
	require.Len(t, ls, 2)
	require.Equal(t, int64(3<<30), ls[0].Bytes)
	require.Contains(t, ls[0].Source, "cgroup memory.limit_in_bytes")
	require.Contains(t, ls[0].Source, "slurm/job7/memory.limit_in_bytes")
	require.Equal(t, int64(2<<30), ls[1].Bytes)
	require.Contains(t, ls[1].Source, "cgroup memory.max")

	// Through the environment, as a process finds it: the least of all limits binds.
	t.Setenv(CgroupRootEnv, root)
	write(t, filepath.Join(root, "memory.max"), "1073741824\n") // v2 at the root: every path passes it
	old := debug.SetMemoryLimit(4 << 30)
	defer debug.SetMemoryLimit(old)
	l := Current()
	require.Equal(t, int64(1<<30), l.Bytes, "%v", All())
	require.Contains(t, l.Source, "cgroup memory.max")
}

// The estimate names its parts and the limit that binds, and doubles for the collector.
func TestEstimateCheck(t *testing.T) {
	var e Estimate
	e.Add("the network", 3<<29)
	e.Add("bins:65536's tables", 1<<29)
	require.Equal(t, int64(4<<30), e.Need())
	require.NoError(t, e.Check(Limit{4 << 30, "GOMEMLIMIT"}))
	err := e.Check(Limit{3 << 30, "cgroup memory.max"})
	require.ErrorIs(t, err, ErrTooBig)
	require.EqualError(t, err, "does not fit in memory: the network (1.5 GiB) + bins:65536's tables (0.5 GiB), doubled for the collector, need about 4.0 GiB, and the limit is 3.0 GiB (cgroup memory.max)")
}
