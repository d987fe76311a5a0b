package apptrace

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The default trace is named after the program, found past mpirun's options (Open MPI's and
// MPICH's, those that take a value taking the word after them).
func TestProgramOf(t *testing.T) {
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"mpirun", "-np", "4", "./ring", "10"}, "./ring"},
		{[]string{"mpirun", "--oversubscribe", "-x", "A=1", "--mca", "btl", "self", "bin/lu.x"}, "bin/lu.x"},
		{[]string{"mpiexec", "-genv", "A", "1", "-n", "2", "prog"}, "prog"},
		{[]string{"mpirun", "-np", "4"}, "mpi"},
	} {
		require.Equal(t, c.want, programOf(c.cmd), "%q", c.cmd)
	}
}

// --collectives takes COLLECTIVE=ALGORITHM items; anything else is named as typed.
func TestParseCollectives(t *testing.T) {
	algs, err := ParseCollectives([]string{"allreduce=ring", "bcast=binomial"})
	require.NoError(t, err)
	require.Equal(t, map[Coll]string{mustColl(t, "allreduce"): "ring", mustColl(t, "bcast"): "binomial"}, algs)
	for _, bad := range []string{"allreduce", "nosuch=ring"} {
		_, err := ParseCollectives([]string{bad})
		require.EqualError(t, err, `"`+bad+`": want COLLECTIVE=ALGORITHM, as allreduce=ring`)
	}
}

func mustColl(t *testing.T, name string) Coll {
	c, ok := ParseColl(name)
	require.True(t, ok, name)
	return c
}

// The conversion's lines: its counts, cancels and collectives by name, "none" for none; the
// approximation line only when --approximate let something through.
func TestStatsSummary(t *testing.T) {
	st := Stats{Ranks: 4, Calls: 10, Ops: 12, WildcardRecvs: 1, Comms: 2, Cancelled: 3, CancelUnknown: 1, CancelFailed: 2,
		Collectives: map[string]int{"bcast/binomial": 1, "allreduce/ring": 2}}
	require.Equal(t, "4 ranks, 10 calls, 12 operations, 1 wildcard receives, 2 communicators, 3 cancelled (1 with no outcome in the trace, taken as cancelled), 2 cancels that failed (kept), collectives: allreduce/ring x2, bcast/binomial x1", st.Summary())
	require.Empty(t, st.Approximated())
	st.Unknown = map[string]int{"MPI_Foo": 2}
	require.Equal(t, "0 any-tag receives that could take another tag space's message; unknown calls dropped: MPI_Foo x2", st.Approximated())
	require.Contains(t, Stats{}.Summary(), "collectives: none")
}
