package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lhsim/lhsim/apptrace"
)

// mpiTools are the commands a test of the tracer under one MPI library needs.
func mpiTools(t *testing.T, mpi string, fortran bool) {
	t.Helper()
	pkg := map[string]string{"openmpi": "openmpi-bin and libopenmpi-dev", "mpich": "mpich and libmpich-dev"}[mpi]
	tools := []string{"mpirun." + mpi, "mpicc." + mpi}
	if fortran {
		tools = append(tools, "mpif90."+mpi, "gfortran")
	}
	for _, c := range tools {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not installed (%s; bash scripts/setup.sh --mpi installs them): the tracer under %s is not tested", c, pkg, mpi)
		}
	}
	tracerOnce.Do(func() {
		out, err := exec.Command("make", "-C", "../..", "--no-print-directory", "tracer").CombinedOutput()
		if err != nil {
			tracerErr = string(out)
		}
	})
	if tracerErr != "" {
		t.Fatalf("make tracer: %s", tracerErr)
	}
}

var (
	tracerOnce sync.Once
	tracerErr  string
)

func compile(t *testing.T, compiler, src, out string, flags ...string) {
	t.Helper()
	args := append(append([]string{"-O1", "-o", out, src}, flags...), "-w")
	if b, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, src, err, b)
	}
}

// recordConvertRun records prog on np ranks under mpi, converts the trace, and runs the schedule
// in lhsim goal on both networks: every receive must be matched (lhsim goal exits 1 otherwise).
func recordConvertRun(t *testing.T, mpi, prog string, np string) *apptrace.Trace {
	tr, _ := recordConvertSay(t, mpi, prog, np)
	return tr
}

// recordConvertSay is recordConvertRun that also returns what goal convert printed.
func recordConvertSay(t *testing.T, mpi, prog string, np string) (*apptrace.Trace, string) {
	t.Helper()
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace")
	code, out, errs := run(t, nil, "goal", "record", "--build", "../../build", "--out", trace, "--", "mpirun."+mpi, "-np", np, prog)
	if code != 0 {
		t.Fatalf("goal record: status %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "lhsim goal record: "+trace+": "+np+" ranks") {
		t.Errorf("goal record said %q", out)
	}
	tr, err := apptrace.ReadDir(trace)
	if err != nil {
		t.Fatal(err)
	}
	sched := filepath.Join(dir, "prog.goal")
	code, said, errs := run(t, nil, "goal", "convert", trace, "--out", sched)
	if code != 0 {
		t.Fatalf("goal convert: status %d\n%s\n%s", code, said, errs)
	}
	for _, net := range [][]string{{"--network", "loggp"}, {"--network", "packet"}, {"--network", "packet", "--rtl-nodes", "0"}} {
		code, out, errs = run(t, nil, append([]string{"goal", "--schedule", sched}, net...)...)
		if code != 0 {
			t.Fatalf("goal %v: status %d\n%s\n%s", net, code, out, errs)
		}
	}
	return tr, said
}

func funcs(calls []apptrace.Call) string {
	var s []string
	for _, c := range calls {
		s = append(s, strings.TrimPrefix(c.Func, "MPI_"))
	}
	return strings.Join(s, " ")
}

// TestGoalRecordEndToEnd records the C test program (tracer/testdata/ring.c: a ring,
// Irecv/Isend/Waitall, a probe, a cancelled wildcard receive, Allreduce, Bcast, a split
// communicator) and the Fortran one under Open MPI and under MPICH, converts them and runs the
// schedules. Each rank's calls are the program's, once each, under both libraries: Open MPI's
// Fortran calls PMPI_* (the Fortran wrappers see them), MPICH's calls MPI_* (the C wrappers do).
func TestGoalRecordEndToEnd(t *testing.T) {
	rank1C := "Init" + strings.Repeat(" Recv Send Irecv Irecv Isend Isend Waitall", 3) +
		" Send Irecv Cancel Wait Allreduce Bcast Comm_split Allreduce Sendrecv Barrier Comm_free Finalize"
	rank1F := "Init" + strings.Repeat(" Recv Send Irecv Irecv Isend Isend Waitall", 3) + " Allreduce Comm_split Allreduce Comm_free Finalize"
	for _, mpi := range []string{"openmpi", "mpich"} {
		t.Run(mpi+"/C", func(t *testing.T) {
			mpiTools(t, mpi, false)
			prog := filepath.Join(t.TempDir(), "ring")
			compile(t, "mpicc."+mpi, "../../tracer/testdata/ring.c", prog)
			tr := recordConvertRun(t, mpi, prog, "4")
			if got := funcs(tr.Ranks[1]); got != rank1C {
				t.Errorf("rank 1's calls:\n%s\nwant\n%s", got, rank1C)
			}
			// The cancelled receive is from MPI_ANY_SOURCE: -1 in Open MPI, -2 in MPICH.
			for _, c := range tr.Ranks[1] {
				if c.Func == "MPI_Irecv" && c.Tag == 42 && c.Peer != apptrace.AnySource {
					t.Errorf("the wildcard receive's source is %d", c.Peer)
				}
			}
			if len(tr.Comms) != 2 {
				t.Errorf("communicators %v, want the two halves", tr.Comms)
			}
		})
		t.Run(mpi+"/Fortran", func(t *testing.T) {
			mpiTools(t, mpi, true)
			prog := filepath.Join(t.TempDir(), "fring")
			compile(t, "mpif90."+mpi, "../../tracer/testdata/ring.f90", prog)
			tr := recordConvertRun(t, mpi, prog, "4")
			if got := funcs(tr.Ranks[1]); got != rank1F {
				t.Errorf("rank 1's calls:\n%s\nwant\n%s", got, rank1F)
			}
			// Fortran's handles, counts and ranks as C's: 32 INTEGERs from rank 0, tag 1.
			if c := tr.Ranks[1][3]; c.Func != "MPI_Irecv" || c.Peer != 0 || c.Tag != 1 || c.Size != 128 || c.Req == 0 {
				t.Errorf("rank 1's first Irecv: %+v", c)
			}
		})
	}
}

// TestGoalRecordFailures: a program that is not an MPI program, one that crashes midway, a
// missing mpirun and a trace that is not whole: one line each, exit 1 for a failed run and 2
// for a bad trace; a crashed rank leaves what it did, and it is not presented as a trace.
func TestGoalRecordFailures(t *testing.T) {
	mpiTools(t, "openmpi", false)
	dir := t.TempDir()
	code, _, errs := run(t, nil, "goal", "record", "--build", "../../build", "--out", filepath.Join(dir, "true"), "--", "mpirun.openmpi", "-np", "2", "/bin/true")
	if code != 1 || !strings.Contains(errs, "recorded no MPI call: not an MPI program") {
		t.Errorf("a program that is not an MPI program: status %d, %q", code, errs)
	}
	code, _, errs = run(t, nil, "goal", "record", "--out", filepath.Join(dir, "x"), "--", "mpirun.nowhere", "-np", "2", "/bin/true")
	if code != 1 || !strings.Contains(errs, "install openmpi-bin") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("a missing mpirun: status %d, %q", code, errs)
	}
	src := filepath.Join(dir, "crash.c")
	os.WriteFile(src, []byte(`#include <mpi.h>
#include <signal.h>
int main(int argc, char **argv) {
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 1)
		raise(SIGSEGV);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`), 0o644)
	prog := filepath.Join(dir, "crash")
	compile(t, "mpicc.openmpi", src, prog)
	out := filepath.Join(dir, "crash.trace")
	code, _, errs = run(t, nil, "goal", "record", "--build", "../../build", "--out", out, "--", "mpirun.openmpi", "-np", "2", prog)
	if code != 1 || !strings.Contains(errs, "what the ranks recorded is in "+out+".partial, not a trace") {
		t.Fatalf("a crash: status %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a crashed run left a trace directory")
	}
	// Each rank's file holds its calls up to the crash (rank 0 was stopped by mpirun after
	// rank 1 crashed): Init and Allreduce. convert refuses them (exit 2).
	for r := 0; r < 2; r++ {
		if st, err := os.Stat(apptrace.RankFile(out+".partial", r)); err != nil || st.Size() < 100 {
			t.Errorf("rank %d left no trace of what it did: %v", r, err)
		}
	}
	code, _, errs = run(t, nil, "goal", "convert", out+".partial", "--out", filepath.Join(dir, "crash.goal"))
	if code != 2 || !strings.Contains(errs, "ends after 2 calls without its end record") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("converting a crashed run: status %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "crash.goal")); err == nil {
		t.Error("a refused conversion left a schedule")
	}
}

// TestGoalRecordShapes records tracer/testdata/calls.c (every record shape) under both
// libraries and checks the fields the conversion relies on: requests by value through
// Waitsome, Testany, persistent requests, matched probes, whether each cancel took effect;
// sizes, roots and counts of the v
// collectives; communicators from Cart_sub. The schedule runs on both networks.
func TestGoalRecordShapes(t *testing.T) {
	for _, mpi := range []string{"openmpi", "mpich"} {
		t.Run(mpi, func(t *testing.T) {
			mpiTools(t, mpi, false)
			prog := filepath.Join(t.TempDir(), "calls")
			compile(t, "mpicc."+mpi, "../../tracer/testdata/calls.c", prog)
			tr, said := recordConvertSay(t, mpi, prog, "4")
			for r, calls := range tr.Ranks {
				checkShapes(t, r, calls, tr)
			}
			// Each rank's first cancel failed and its second took effect (checkShapes): the
			// summary line says both, and that no outcome was assumed.
			if !strings.Contains(said, "4 cancelled, 4 cancels that failed (kept)") {
				t.Errorf("goal convert said %q, want 4 cancelled and 4 cancels that failed", said)
			}
		})
	}
}

func checkShapes(t *testing.T, r int, calls []apptrace.Call, tr *apptrace.Trace) {
	t.Helper()
	by := map[string][]apptrace.Call{}
	for _, c := range calls {
		by[c.Func] = append(by[c.Func], c)
	}
	made := map[uint64]int{}
	for _, c := range append(by["MPI_Irecv"][:2:2], by["MPI_Isend"][0]) {
		made[c.Req]++
	}
	for _, c := range by["MPI_Waitsome"] {
		for _, q := range c.Reqs {
			made[q]--
		}
	}
	for q, n := range made {
		if n != 0 {
			t.Errorf("rank %d: request %#x made and completed by Waitsome %+d times", r, q, n)
		}
	}
	done := 0
	for _, c := range by["MPI_Testany"] {
		done += len(c.Reqs)
	}
	if done != 2 {
		t.Errorf("rank %d: Testany completed %d requests, want 2", r, done)
	}
	si, ri := by["MPI_Send_init"], by["MPI_Recv_init"]
	if len(si) != 1 || len(ri) != 1 || len(by["MPI_Startall"]) != 2 {
		t.Fatalf("rank %d: persistent requests %v %v %v", r, si, ri, by["MPI_Startall"])
	}
	for _, c := range by["MPI_Startall"] {
		if len(c.Reqs) != 2 || c.Reqs[0] != si[0].Req || c.Reqs[1] != ri[0].Req {
			t.Errorf("rank %d: Startall of %v, want %#x %#x", r, c.Reqs, si[0].Req, ri[0].Req)
		}
	}
	mp, mr := by["MPI_Mprobe"], by["MPI_Mrecv"]
	if len(mp) != 1 || len(mr) != 1 || mp[0].Peer != apptrace.AnySource || mp[0].Tag != 14 || mr[0].Req != mp[0].Req || mr[0].Size != 12 {
		t.Errorf("rank %d: Mprobe %+v, Mrecv %+v", r, mp, mr)
	}
	var found []apptrace.Call
	for _, c := range by["MPI_Improbe"] {
		if c.Flag {
			found = append(found, c)
		}
	}
	im := by["MPI_Imrecv"]
	if len(found) != 1 || len(im) != 1 || im[0].Req != found[0].Req || im[0].Size != 20 || len(im[0].Reqs) != 1 {
		t.Errorf("rank %d: Improbe found %+v, Imrecv %+v", r, found, im)
	}
	if sr := by["MPI_Sendrecv_replace"]; len(sr) != 1 || sr[0].Size != 24 || sr[0].RecvSize != 24 || sr[0].Peer != int32((r+1)%4) || sr[0].RecvPeer != int32((r+3)%4) {
		t.Errorf("rank %d: Sendrecv_replace %+v", r, sr)
	}
	// The first cancel failed (its receive had matched the left rank's message, which the
	// schedule must then receive), the second took effect.
	if cn := by["MPI_Cancel"]; len(cn) != 2 || cn[0].Cancel != apptrace.CancelFailed || cn[1].Cancel != apptrace.CancelTookEffect {
		t.Errorf("rank %d: cancels %+v, want one that failed, then one that took effect", r, cn)
	}
	if g := by["MPI_Gatherv"]; len(g) != 1 || g[0].Root != 1 || (r == 1) != (len(g[0].Counts) == 4) || r == 1 && g[0].Counts[3] != 16 {
		t.Errorf("rank %d: Gatherv %+v", r, g)
	}
	if a := by["MPI_Alltoallv"]; len(a) != 1 || len(a[0].Counts) != 8 {
		t.Errorf("rank %d: Alltoallv %+v", r, a)
	}
	subs := by["MPI_Cart_sub"]
	if len(subs) != 1 {
		t.Fatalf("rank %d: Cart_sub %v", r, subs)
	}
	row := tr.Comms[subs[0].NewComm].Members
	if len(row) != 2 || row[0] != int32(r&^1) || row[1] != int32(r|1) {
		t.Errorf("rank %d: its row is %v", r, row)
	}
}

// TestGoalRecordF08: a program of the Fortran 2008 bindings (use mpi_f08) is traced under
// Open MPI (they call ompi_*_f, which the tracer wraps); MPICH's call its internal MPIR_*
// functions, which it does not, and goal record says it recorded no MPI call.
func TestGoalRecordF08(t *testing.T) {
	want := "Init Irecv Isend Waitall Allreduce Finalize"
	t.Run("openmpi", func(t *testing.T) {
		mpiTools(t, "openmpi", true)
		prog := filepath.Join(t.TempDir(), "f08")
		compile(t, "mpif90.openmpi", "../../tracer/testdata/ring_f08.f90", prog)
		tr := recordConvertRun(t, "openmpi", prog, "2")
		for r := range tr.Ranks {
			if got := funcs(tr.Ranks[r]); got != want {
				t.Errorf("rank %d: %s, want %s", r, got, want)
			}
		}
	})
	t.Run("mpich", func(t *testing.T) {
		mpiTools(t, "mpich", true)
		prog := filepath.Join(t.TempDir(), "f08")
		compile(t, "mpif90.mpich", "../../tracer/testdata/ring_f08.f90", prog)
		code, _, errs := run(t, nil, "goal", "record", "--build", "../../build", "--out", filepath.Join(t.TempDir(), "tr"), "--", "mpirun.mpich", "-np", "2", prog)
		if code != 1 || !strings.Contains(errs, "recorded no MPI call") {
			t.Errorf("status %d, %q", code, errs)
		}
	})
}
