package apptrace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/goal"
)

const lapHello = "testdata/liballprof/hello"

// writeLap writes one file per rank (PREFIX-RANK.txt) into a new directory.
func writeLap(t *testing.T, ranks ...string) string {
	t.Helper()
	dir := t.TempDir()
	for r, text := range ranks {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pmpi-trace-rank-"+itoa(r)+".txt"), []byte(text), 0o644))
	}
	return dir
}

func itoa(i int) string { return strconv.Itoa(i) }

// lapEnd converts t and runs it in LogGOPSim's model, in LogGOPSim's order (--stdsort).
func lapEnd(t *testing.T, tr *Trace, opt Options) uint64 {
	t.Helper()
	var b bytes.Buffer
	_, err := Convert(&b, tr, opt)
	require.NoError(t, err)
	s, err := goal.Parse(&b)
	require.NoError(t, err)
	r, err := goal.RunLogGP(s, goal.DefaultParams(), goal.Options{StdSort: true})
	require.NoError(t, err)
	require.Empty(t, r.Unmatched)
	return r.End
}

// The calls of testdata/liballprof/hello as hello.c makes them: requests by value from their
// variables' addresses (Waitall's array at 8-byte strides in Open MPI's C binding), the
// any-source receive, the gaps between calls as computation.
func TestLiballprofHello(t *testing.T) {
	require.True(t, IsLiballprof(lapHello))
	tr, err := ReadDir(lapHello)
	require.NoError(t, err)
	require.Equal(t, "liballprof, Open MPI (C)", tr.Source)
	require.True(t, tr.CPUIsWall)
	require.Len(t, tr.Ranks, 4)
	calls := tr.Ranks[0]
	require.Equal(t, KInit, calls[0].Kind)
	require.Equal(t, KFinalize, calls[len(calls)-1].Kind)
	// MPI_Init ends at 86 µs; MPI_Comm_rank 89-90 and MPI_Comm_size 91-92 keep nothing and pass
	// their time on; the first MPI_Irecv starts at 93.
	require.Equal(t, uint64(3000), calls[1].CPU)
	require.Equal(t, uint64(1000+1000), calls[2].CPU)
	ir := calls[3]
	require.Equal(t, Call{Func: "MPI_Irecv", Kind: KIrecv, Comm: CommWorld, Peer: 3, Tag: 5, Size: 4, Req: ir.Req, CPU: 1000 + 1000}, ir)
	require.Equal(t, AnySource, calls[4].Peer)
	require.Equal(t, int32(6), calls[4].Tag)
	require.Equal(t, KIsend, calls[5].Kind)
	require.Equal(t, int32(1), calls[5].Peer)
	wa := calls[7]
	require.Equal(t, KComplete, wa.Kind)
	require.Equal(t, []uint64{calls[3].Req, calls[4].Req, calls[5].Req, calls[6].Req}, wa.Reqs, "Waitall completes the four requests of its array")
	require.Equal(t, Allreduce, calls[8].Coll)
	require.Equal(t, uint64(4), calls[8].Size)
	require.NotEqual(t, calls[3].Req, calls[9].Req, "the next Irecv on the same variable is a new request")
	var total uint64
	for _, r := range tr.Ranks {
		for _, c := range r {
			total += c.CPU
		}
	}
	require.Equal(t, uint64(25151000), total, "every µs between MPI_Init's end and MPI_Finalize's start")
}

// End times as LogGOPSim gives them for Schedgen's conversion of the same trace
// (testdata/liballprof/README.md): the point-to-point calls alone, and the whole trace with
// Schedgen's collective algorithms (as ATLAHS's Schedgen converts it).
func TestLiballprofAgainstSchedgen(t *testing.T) {
	// p2p copies dir's trace without its collective calls.
	p2p := func(dir string) string {
		out := t.TempDir()
		colls := regexp.MustCompile(`(?m)^MPI_Allreduce:.*\n`)
		for r := 0; r < 4; r++ {
			name := "pmpi-trace-rank-" + itoa(r) + ".txt"
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(out, name), colls.ReplaceAll(b, nil), 0o644))
		}
		return out
	}
	tr, err := ReadDir(p2p(lapHello))
	require.NoError(t, err)
	require.Equal(t, uint64(21965626_000), lapEnd(t, tr, Options{}))
	// Open MPI's Fortran binding: Waitall's INTEGER requests 4 bytes apart, as ATLAHS's Schedgen
	// takes them (LogGOPSim's, taking 8, loses two of the four and ends at 9378752 ns).
	tr, err = ReadDir(p2p("testdata/liballprof/ringf"))
	require.NoError(t, err)
	require.Equal(t, "liballprof, Open MPI (Fortran)", tr.Source)
	require.Equal(t, uint64(9381130_000), lapEnd(t, tr, Options{}))

	tr, err = ReadDir(lapHello)
	require.NoError(t, err)
	sg := Options{Collectives: map[Coll]string{Barrier: "bruck", Allreduce: "recursive_doubling", Bcast: "binomial", Reduce: "binomial"}}
	require.Equal(t, uint64(21759324_000), lapEnd(t, tr, sg))
}

// gzip-compressed files (liballprof's wrapper.sh compresses them) read the same.
func TestLiballprofGzip(t *testing.T) {
	dir := t.TempDir()
	for r := 0; r < 4; r++ {
		name := "pmpi-trace-rank-" + itoa(r) + ".txt"
		b, err := os.ReadFile(filepath.Join(lapHello, name))
		require.NoError(t, err)
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, err = w.Write(b)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".gz"), z.Bytes(), 0o644))
	}
	a, err := ReadLiballprof(lapHello)
	require.NoError(t, err)
	b, err := ReadLiballprof(dir)
	require.NoError(t, err)
	require.Equal(t, a, b)
}

const lapHead = "# htor's PMPI Tracer 0.9 Output File\nMPI_Init:-:1:2:10\n"

// The library decides what -1, -2 and Waitall's stride mean: MPICH (world handle 0x44000000)
// has MPI_ANY_SOURCE -2 and 4-byte requests, Open MPI's Fortran binding (handle 0) INTEGER
// requests.
func TestLiballprofLibraries(t *testing.T) {
	for _, c := range []struct {
		world, any, null string
		source           string
	}{
		{"1140850688", "-2", "-1", "liballprof, MPICH"},
		{"0", "-1", "-2", "liballprof, Open MPI (Fortran)"},
	} {
		rank := func(r, peer string) string {
			comm := c.world + "," + r + ",2"
			return lapHead +
				"MPI_Irecv:11:500:1:1,4,4:" + c.any + ":3:" + comm + ":1000:12\n" +
				"MPI_Irecv:13:500:1:1,4,4:" + peer + ":4:" + comm + ":1004:14\n" +
				"MPI_Send:15:500:1:1,4,4:" + c.null + ":3:" + comm + ":16\n" +
				"MPI_Send:17:500:1:1,4,4:" + peer + ":3:" + comm + ":18\n" +
				"MPI_Send:19:500:1:1,4,4:" + peer + ":4:" + comm + ":20\n" +
				"MPI_Waitall:21:2:1000:0:30\n" +
				"MPI_Finalize:31:-\n"
		}
		tr, err := ReadLiballprof(writeLap(t, rank("0", "1"), rank("1", "0")))
		require.NoError(t, err)
		require.Equal(t, c.source, tr.Source)
		calls := tr.Ranks[1]
		require.Equal(t, AnySource, calls[1].Peer, c.source)
		require.Equal(t, ProcNull, calls[3].Peer, c.source)
		require.Equal(t, []uint64{calls[1].Req, calls[2].Req}, calls[6].Reqs, "%s: the requests at 1000 and 1004", c.source)
	}
}

// Persistent requests stay on their variable after a Wait; Test, Waitany and Iprobe are not
// known (liballprof records no flag or index), and the conversion refuses them unless told to
// approximate; a communicator of other members makes its calls unknown too.
func TestLiballprofPersistentAndUnknown(t *testing.T) {
	world := func(r string) string { return "777," + r + ",2" }
	rank := func(r, peer string) string {
		return lapHead +
			"MPI_Send_init:11:500:1:1,4,4:" + peer + ":3:" + world(r) + ":900:12\n" +
			"MPI_Recv_init:13:500:1:1,4,4:" + peer + ":3:" + world(r) + ":908:14\n" +
			"MPI_Startall:15:2:900:16\n" +
			"MPI_Waitall:17:2:900:0:18\n" +
			"MPI_Start:19:900:20\n" + "MPI_Start:21:908:22\n" +
			"MPI_Wait:23:900:0:24\n" + "MPI_Wait:25:908:0:26\n" +
			"MPI_Request_free:27:900:28\n" + "MPI_Request_free:29:908:30\n" +
			"MPI_Wait:31:908:0:32\n" +
			"MPI_Finalize:40:-\n"
	}
	tr, err := ReadLiballprof(writeLap(t, rank("0", "1"), rank("1", "0")))
	require.NoError(t, err)
	c := tr.Ranks[0]
	require.Equal(t, KSendInit, c[1].Kind)
	require.Equal(t, []uint64{c[1].Req, c[2].Req}, c[3].Reqs)
	require.Equal(t, []uint64{c[1].Req, c[2].Req}, c[4].Reqs)
	require.Equal(t, []uint64{c[1].Req}, c[7].Reqs, "the persistent request is still on its variable")
	require.Equal(t, KRequestFree, c[9].Kind)
	require.Equal(t, KNop, c[11].Kind, "a Wait on a freed request waits for nothing")
	require.Equal(t, uint64(1000), c[11].CPU)
	require.Equal(t, uint64(8000+1000), c[12].CPU, "the empty Wait's own µs go on to MPI_Finalize")
	_ = lapEnd(t, tr, Options{})

	unknown := func(r, peer string) string {
		return lapHead +
			"MPI_Isend:11:500:1:1,4,4:" + peer + ":3:" + world(r) + ":900:12\n" +
			"MPI_Test:13:900:950:0:14\n" +
			"MPI_Send:15:500:1:1,4,4:" + peer + ":3:555," + r + ",1:16\n" +
			"MPI_Recv:17:500:1:1,4,4:" + peer + ":3:" + world(r) + ":0:18\n" +
			"MPI_Wait:19:900:0:20\n" +
			"MPI_Finalize:40:-\n"
	}
	tr, err = ReadLiballprof(writeLap(t, unknown("0", "1"), unknown("1", "0")))
	require.NoError(t, err)
	c = tr.Ranks[0]
	require.Equal(t, KOther, c[2].Kind)
	require.Contains(t, c[2].Func, "MPI_Test (liballprof does not record its flag)")
	require.Equal(t, KOther, c[3].Kind)
	require.Contains(t, c[3].Func, "on a communicator other than the world's ranks in order")
	var b bytes.Buffer
	_, err = Convert(&b, tr, Options{})
	require.True(t, errors.Is(err, ErrRefused), "%v", err)
	require.Zero(t, b.Len(), "nothing written when refused")
}

// Bad directories and files: each one error naming the file and line, a FormatError (exit 2).
func TestLiballprofBadInput(t *testing.T) {
	end := "MPI_Finalize:40:-\n"
	send := func(r string) string { return "MPI_Send:15:500:1:1,4,4:1:3:777," + r + ",2:16\n" }
	for name, c := range map[string]struct {
		ranks []string
		want  string
	}{
		"copies":    {[]string{lapHead + send("0") + end, lapHead + send("0") + end}, "pmpi-trace-rank-1.txt: line 3 (MPI_Send): the first communicator of the world's size says this is its rank 0, but the file is rank 1's"},
		"truncated": {[]string{lapHead + send("0") + end, lapHead + send("1")}, "pmpi-trace-rank-1.txt: line 3: the trace ends without MPI_Finalize"},
		"cut line":  {[]string{lapHead + send("0") + end, lapHead + "MPI_Send:15:500:1:1,4,4:1:3:777,1,2\n" + end}, "line 3 (MPI_Send): its last field \"777,1,2\" is not its end time (a truncated line?)"},
		"arguments": {[]string{lapHead + send("0") + end, lapHead + "MPI_Send:15:1:1,4,4:1:3:777,1,2:16\n" + end}, "line 3 (MPI_Send): 5 arguments, liballprof prints 6 for MPI_Send"},
		"garbage":   {[]string{lapHead + send("0") + end, lapHead + "hello\n" + end}, `line 3: "hello" is not a call`},
		"no init":   {[]string{lapHead + send("0") + end, "# x\n" + send("1") + end}, "line 2: MPI_Send before MPI_Init"},
		"peer":      {[]string{lapHead + send("0") + end, lapHead + "MPI_Send:15:500:1:1,4,4:7:3:777,1,2:16\n" + end}, "rank 7: the world has ranks 0 to 1"},
	} {
		_, err := ReadDir(writeLap(t, c.ranks...))
		var fe *FormatError
		require.True(t, errors.As(err, &fe), "%s: %v", name, err)
		require.Contains(t, err.Error(), c.want, name)
	}
	dir := writeLap(t, lapHead+send("0")+end, lapHead+send("1")+end)
	require.NoError(t, os.Rename(filepath.Join(dir, "pmpi-trace-rank-1.txt"), filepath.Join(dir, "pmpi-trace-rank-2.txt")))
	_, err := ReadLiballprof(dir)
	require.ErrorContains(t, err, "2 trace files but one of rank 2: the ranks must be 0 to 1")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other-0.txt"), []byte(lapHead), 0o644))
	_, err = ReadLiballprof(dir)
	require.ErrorContains(t, err, "trace files of 2 runs (other, pmpi-trace-rank): one run per directory")
	require.False(t, IsLiballprof(t.TempDir()))
}

// A trace too large for the memory given is refused before it is read.
func TestLiballprofTooLarge(t *testing.T) {
	_, err := ReadDirLimit(lapHello, 1<<10)
	require.ErrorContains(t, err, "trace too large for memory: 6805 bytes of liballprof text take about")
	var fe *FormatError
	require.True(t, errors.As(err, &fe))
	tr, err := ReadDirLimit(lapHello, 1<<30)
	require.NoError(t, err)
	require.Len(t, tr.Ranks, 4)
}
