package apptrace

// Record runs an MPI program under mpirun with the tracer (tracer/lht.c) preloaded into every
// rank and leaves the trace directory only when every rank's trace is whole.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// MPI is an MPI library the tracer is built for.
type MPI string

// The libraries: Debian's packages of Open MPI 4.1 and MPICH 4.0.
const (
	OpenMPI MPI = "openmpi"
	MPICH   MPI = "mpich"
)

// Package is the Debian package that installs the library's mpirun.
func (m MPI) Package() string {
	if m == MPICH {
		return "mpich"
	}
	return "openmpi-bin"
}

// TracerLib is the tracer built for m under the build folder (make tracer).
func TracerLib(buildDir string, m MPI) string {
	return filepath.Join(buildDir, "tracer", string(m), "liblhtrace.so")
}

// RecordConfig is what Record runs.
type RecordConfig struct {
	Out      string   // the trace directory, empty or not there yet (default PROGRAM.trace)
	Command  []string // mpirun and its arguments: mpirun -np N PROGRAM ARGS...
	BuildDir string   // where make put the tracer (build/)
	// BuildDirs, when BuildDir is "", are the folders to look in, in order: the first that
	// holds the tracer for the program's MPI library is taken (default: searchDirs).
	BuildDirs []string
	Stdout    io.Writer
	Stderr    io.Writer
}

// findTracer is the tracer for m in cfg.BuildDir, else in the first of cfg.BuildDirs that
// holds one; the error names every path tried and the make target that builds it.
func findTracer(cfg RecordConfig, m MPI) (string, error) {
	dirs := cfg.BuildDirs
	if cfg.BuildDir != "" {
		dirs = []string{cfg.BuildDir}
	} else if len(dirs) == 0 {
		dirs = searchDirs()
	}
	var tried []string
	for _, d := range dirs {
		lib, err := filepath.Abs(TracerLib(d, m))
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(lib); err == nil && st.Mode().IsRegular() {
			return lib, nil
		}
		if !slices.Contains(tried, lib) {
			tried = append(tried, lib)
		}
	}
	return "", fmt.Errorf("the tracer for %s is not built: tried %s; build it with make tracer in the lhsim source tree (build/tracer/%s/liblhtrace.so), or name its build folder with --build",
		m, strings.Join(tried, ", "), m)
}

// searchDirs are the folders the tracer is looked for in: the build/ that holds the
// executable (make puts build/bin/lhsim beside build/tracer), and the folder it is in; then
// the build/ of the working folder and of each folder above it (a checkout's, when lhsim runs
// inside it).
func searchDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(filepath.Dir(exe)), filepath.Dir(exe))
		}
	}
	dir, err := os.Getwd()
	for err == nil {
		dirs = append(dirs, filepath.Join(dir, "build"))
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return dirs
}

// programOf is the program in an mpirun command line: the first word after the options
// (an option of Open MPI's or MPICH's that takes a value takes the word after it).
func programOf(cmd []string) string {
	withValue := map[string]bool{"-np": true, "-n": true, "-c": true, "--np": true, "-x": true, "-genv": true,
		"-env": true, "--map-by": true, "--bind-to": true, "--host": true, "-host": true, "-H": true,
		"--hostfile": true, "-hostfile": true, "-f": true, "-ppn": true, "--mca": true, "-mca": true}
	for i := 1; i < len(cmd); i++ {
		a := cmd[i]
		switch {
		case a == "-genv" || a == "--mca" || a == "-mca":
			i += 2
		case withValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return "mpi"
}

// RecordResult is a recorded trace.
type RecordResult struct {
	Dir   string `json:"dir"`
	MPI   MPI    `json:"mpi"`
	Ranks int    `json:"ranks"`
	Calls int    `json:"calls"`
	Bytes int64  `json:"bytes"`
}

// ErrRunFailed is wrapped by Record's error when the program (or mpirun) failed.
var ErrRunFailed = errors.New("the MPI run failed")

// DetectMPI says which library an mpirun belongs to, by its --version.
func DetectMPI(ctx context.Context, mpirun string) (MPI, error) {
	out, err := exec.CommandContext(ctx, mpirun, "--version").CombinedOutput()
	s := string(out)
	switch {
	case strings.Contains(s, "Open MPI") || strings.Contains(s, "OpenRTE"):
		return OpenMPI, nil
	case strings.Contains(s, "HYDRA") || strings.Contains(strings.ToLower(s), "mpich"):
		return MPICH, nil
	}
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", mpirun, err)
	}
	return "", fmt.Errorf("%s is neither Open MPI's nor MPICH's mpirun (its --version: %q)", mpirun, firstLine(s))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// mpirunArgs puts the tracer into every rank: Open MPI's -x exports, MPICH's -genv.
func mpirunArgs(m MPI, args []string, lib, dir string) []string {
	preload := lib
	if old := os.Getenv("LD_PRELOAD"); old != "" {
		preload = lib + ":" + old
	}
	env := [][2]string{{"LD_PRELOAD", preload}, {"LHSIM_TRACE_DIR", dir}, {"OMP_NUM_THREADS", "1"}}
	var extra []string
	for _, e := range env {
		if m == MPICH {
			extra = append(extra, "-genv", e[0], e[1])
		} else {
			extra = append(extra, "-x", e[0]+"="+e[1])
		}
	}
	if m == OpenMPI {
		if !slices.Contains(args, "--oversubscribe") {
			extra = append(extra, "--oversubscribe") // more ranks than cores is what tracing on a small machine does
		}
		if os.Geteuid() == 0 && !slices.Contains(args, "--allow-run-as-root") {
			extra = append(extra, "--allow-run-as-root")
		}
	}
	return append(extra, args...)
}

// Record runs cfg.Command with the tracer and returns the trace's size. The ranks write into
// OUT.partial; only when mpirun succeeded and every rank's trace is whole does it become OUT.
// A failed run leaves OUT.partial (what the ranks did) and says so.
func Record(ctx context.Context, cfg RecordConfig) (*RecordResult, error) {
	if len(cfg.Command) == 0 {
		return nil, fmt.Errorf("no command: want -- mpirun -np N PROGRAM ARGS...")
	}
	base := filepath.Base(cfg.Command[0])
	if !strings.HasPrefix(base, "mpirun") && !strings.HasPrefix(base, "mpiexec") && base != "orterun" {
		return nil, fmt.Errorf("%s: the command must start with mpirun or mpiexec (lhsim goal record -- mpirun -np N PROGRAM ARGS...)", cfg.Command[0])
	}
	mpirun, err := exec.LookPath(cfg.Command[0])
	if err != nil {
		return nil, fmt.Errorf("%s: not found: install openmpi-bin (Open MPI) or mpich (MPICH), or run scripts/setup.sh --mpi", cfg.Command[0])
	}
	m, err := DetectMPI(ctx, mpirun)
	if err != nil {
		return nil, err
	}
	lib, err := findTracer(cfg, m)
	if err != nil {
		return nil, err
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Base(programOf(cfg.Command)) + ".trace"
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty: give another --out", cfg.Out)
	}
	partial := out + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, mpirun, mpirunArgs(m, cfg.Command[1:], lib, partial)...)
	cmd.Stdout, cmd.Stderr = cfg.Stdout, cfg.Stderr
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	} else {
		cmd.Stderr = io.MultiWriter(cfg.Stderr, &stderr)
	}
	runErr := cmd.Run()
	if runErr != nil {
		why := runErr.Error()
		if ee, ok := runErr.(*exec.ExitError); ok && ee.ExitCode() >= 0 {
			why = fmt.Sprintf("mpirun exited with status %d", ee.ExitCode())
		}
		if l := lastLine(stderr.String()); l != "" {
			why += ": " + l
		}
		return nil, fmt.Errorf("%w: %s; what the ranks recorded is in %s, not a trace", ErrRunFailed, why, partial)
	}
	if _, err := os.Stat(RankFile(partial, 0)); err != nil {
		os.RemoveAll(partial)
		return nil, fmt.Errorf("%w: %s recorded no MPI call: not an MPI program, or one built against another MPI than %s's (%s)", ErrRunFailed, strings.Join(cfg.Command[1:], " "), cfg.Command[0], m)
	}
	t, err := ReadDir(partial)
	if err != nil {
		return nil, fmt.Errorf("%w: %v; what the ranks recorded is in %s, not a trace", ErrRunFailed, err, partial)
	}
	res := &RecordResult{Dir: cfg.Out, MPI: m, Ranks: len(t.Ranks), Calls: t.Folded}
	for r := range t.Ranks {
		res.Calls += len(t.Ranks[r])
		if st, err := os.Stat(RankFile(partial, r)); err == nil {
			res.Bytes += st.Size()
		}
	}
	os.Remove(out) // an empty directory given as --out
	if err := os.Rename(partial, out); err != nil {
		return nil, err
	}
	return res, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
