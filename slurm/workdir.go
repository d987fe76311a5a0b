package slurm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// manifestVersion changes when the work directory's layout does: a new one is made then.
const manifestVersion = 1

// manifest is the work directory's description, written by the submitting side and checked
// by every task before it runs anything.
type manifest struct {
	Version  int               `json:"version"`
	Sweep    string            `json:"sweep"` // the hash in the directory's name
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      []string          `json:"env"` // LHSIM_* of the submitting shell, exported by the job script
	Noun     string            `json:"noun"`
	Units    []Unit            `json:"units"`
	Identity map[string]string `json:"identity"` // file -> sha256 of its contents
	Jobs     []jobRecord       `json:"jobs"`
}

// jobRecord is one submission.
type jobRecord struct {
	ID         int       `json:"id"`
	Submission int       `json:"submission"` // the submit-N folder
	Tasks      int       `json:"tasks"`
	Units      int       `json:"units"`
	At         time.Time `json:"submitted_at"`
}

// lhsimEnv is the LHSIM_* environment, sorted: part of a run's identity (LHSIM_MODEL,
// LHSIM_BRIDGE and the test hooks change what the tasks compute).
func lhsimEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "LHSIM_") {
			env = append(env, e)
		}
	}
	sort.Strings(env)
	return env
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// workDir is one sweep's directory.
type workDir struct {
	path string
	m    manifest
	lock *os.File
}

func (w *workDir) results() string              { return filepath.Join(w.path, "results") }
func (w *workDir) resultFile(key string) string { return filepath.Join(w.results(), key+".json") }
func (w *workDir) bin(name string) string       { return filepath.Join(w.path, "bin", name) }
func (w *workDir) submitDir(n int) string       { return filepath.Join(w.path, fmt.Sprintf("submit-%d", n)) }

// openWorkDir finds or makes the sweep's work directory under parent, locked against another
// lhsim submitting the same sweep at the same time, with the binaries copied in.
func openWorkDir(parent, binary string, sw Sweep) (*workDir, error) {
	identity := map[string]string{}
	files := map[string]string{"lhsim": binary}
	for name, p := range sw.Files {
		files[name] = p
	}
	for name, p := range files {
		h, err := fileHash(p)
		if err != nil {
			return nil, fmt.Errorf("slurm: %s for the tasks: %w", name, err)
		}
		identity["bin/"+name] = h
	}
	for _, p := range sw.Identity {
		h, err := fileHash(p)
		if err != nil {
			return nil, fmt.Errorf("slurm: %w", err)
		}
		identity[filepath.ToSlash(p)] = h
	}
	m := manifest{Version: manifestVersion, Command: sw.Command, Args: sw.Args, Env: lhsimEnv(), Noun: sw.Noun,
		Units: sw.Units, Identity: identity}
	h := sha256.New()
	fmt.Fprintf(h, "lhsim slurm %d\x00%s\x00", manifestVersion, sw.Command)
	for _, list := range [][]string{sw.Args, m.Env} {
		for _, a := range list {
			fmt.Fprintf(h, "%s\x00", a)
		}
		h.Write([]byte{1})
	}
	keys := make([]string, 0, len(identity))
	for k := range identity {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, identity[k])
	}
	m.Sweep = hex.EncodeToString(h.Sum(nil))[:12]

	abs, err := filepath.Abs(parent)
	if err != nil {
		return nil, err
	}
	w := &workDir{path: filepath.Join(abs, strings.Join(strings.Fields(sw.Command), "-")+"-"+m.Sweep), m: m}
	for _, d := range []string{w.results(), filepath.Join(w.path, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("slurm: work directory: %w", err)
		}
	}
	if w.lock, err = os.OpenFile(filepath.Join(w.path, ".lock"), os.O_CREATE|os.O_RDWR, 0o644); err != nil {
		return nil, fmt.Errorf("slurm: work directory: %w", err)
	}
	if err := syscall.Flock(int(w.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		w.lock.Close()
		return nil, fmt.Errorf("slurm: another lhsim is submitting this sweep now (lock %s held): wait for it", filepath.Join(w.path, ".lock"))
	}
	old, err := readManifest(w.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		w.close()
		return nil, err
	case old.Sweep != m.Sweep || old.Command != m.Command || strings.Join(old.Args, "\x00") != strings.Join(m.Args, "\x00"):
		w.close()
		return nil, fmt.Errorf("slurm: %s holds another sweep (%s %s): move it away", w.path, old.Command, strings.Join(old.Args, " "))
	default:
		w.m.Jobs = old.Jobs
	}
	for name, p := range files {
		dst := w.bin(name)
		if h, err := fileHash(dst); err == nil && h == identity["bin/"+name] {
			continue
		}
		if err := copyFile(p, dst); err != nil {
			w.close()
			return nil, fmt.Errorf("slurm: copying %s into the work directory: %w", name, err)
		}
	}
	if err := w.save(); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *workDir) close() {
	if w.lock != nil {
		w.lock.Close() // releases the flock
	}
}

func (w *workDir) save() error {
	data, err := json.MarshalIndent(w.m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(w.path, "manifest.json"), append(data, '\n'), 0o644)
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("slurm: %s/manifest.json: %w", dir, err)
	}
	if m.Version != manifestVersion {
		return m, fmt.Errorf("slurm: %s/manifest.json is version %d, this lhsim writes %d: use a new --slurm-dir", dir, m.Version, manifestVersion)
	}
	return m, nil
}

// writeAtomic writes a file whole or not at all: a temporary file beside it, synced, renamed.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	return writeAtomic(dst, data, 0o755)
}

// envelope is a result file: the unit's result with what it belongs to, so that a file from
// another sweep or unit is never merged.
type envelope struct {
	Sweep  string          `json:"sweep"`
	Key    string          `json:"key"`
	Result json.RawMessage `json:"result"`
}

// readResult reads a unit's result, or says why there is none usable.
func (w *workDir) readResult(key string) (json.RawMessage, error) {
	data, err := os.ReadFile(w.resultFile(key))
	if err != nil {
		return nil, err
	}
	var e envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("slurm: %s: %w", w.resultFile(key), err)
	}
	if e.Sweep != w.m.Sweep || e.Key != key || len(e.Result) == 0 {
		return nil, fmt.Errorf("slurm: %s belongs to sweep %s unit %q, not %s %q", w.resultFile(key), e.Sweep, e.Key, w.m.Sweep, key)
	}
	return e.Result, nil
}

// done are the units with a result.
func (w *workDir) done() map[string]bool {
	out := map[string]bool{}
	entries, err := os.ReadDir(w.results())
	if err != nil {
		return out
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, u := range w.m.Units {
		if names[u.Key+".json"] {
			out[u.Key] = true
		}
	}
	return out
}

func (w *workDir) writeResult(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data, err := json.Marshal(envelope{Sweep: w.m.Sweep, Key: key, Result: raw})
	if err != nil {
		return err
	}
	return writeAtomic(w.resultFile(key), append(data, '\n'), 0o644)
}
