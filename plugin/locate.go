package plugin

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// PathEnv names an explicit plugin binary.
const PathEnv = "LHSIM_PLUGIN"

// BinaryName is the plugin binary's file name.
const BinaryName = "lhsim-plugin"

// ErrNoBinary is a plugin binary Locate cannot find (errors.Is).
var ErrNoBinary = errors.New("no " + BinaryName)

// modulePath identifies the lhsim source tree.
const modulePath = "github.com/lhsim/lhsim"

var locate struct {
	once sync.Once
	path string
	err  error
}

// Locate finds the plugin binary, in this order: $LHSIM_PLUGIN; lhsim-plugin beside the
// running executable; inside the lhsim source tree (the one that holds the executable, else
// the working directory's or one above it), build/bin/lhsim-plugin, brought up to date once per process: reused when its stamp says it
// was built from the sources as they are now (upToDate), else built with `go build`, so that
// a test run never meets a plugin older than its own sources and never pays for a link it
// does not need. `make plugin` builds the same file.
func Locate() (string, error) {
	locate.once.Do(func() { locate.path, locate.err = find() })
	return locate.path, locate.err
}

func find() (string, error) {
	if p := os.Getenv(PathEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("plugin: %s=%s: %w", PathEnv, p, err)
		}
		return p, nil
	}
	beside := filepath.Join(filepath.Dir(executable()), BinaryName)
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return beside, nil
		}
		// A binary that make or go build put in a checkout (build/bin/lhsim) knows its tree
		// from where it is, wherever it runs.
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if root, ok := sourceRootFrom(filepath.Dir(exe)); ok {
				return ensured(root)
			}
		}
	}
	root, ok := sourceRoot()
	if !ok {
		return "", fmt.Errorf("plugin: %w: tried %s (beside lhsim) and %s (unset); neither %s nor the working directory is in the lhsim source tree: build it with make plugin (build/bin/%s) and put it beside lhsim, or name it in %s",
			ErrNoBinary, beside, PathEnv, filepath.Dir(executable()), BinaryName, PathEnv)
	}
	return ensured(root)
}

// ensured is the plugin binary of the source tree at root, build/bin/lhsim-plugin, brought up
// to date (ensure), or what make plugin left there when there is no Go toolchain.
func ensured(root string) (string, error) {
	out := filepath.Join(root, "build", "bin", BinaryName)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if _, err := os.Stat(goCmd); err != nil {
		if _, err := os.Stat(out); err == nil {
			return out, nil // no Go toolchain: use what `make plugin` left
		}
		return "", fmt.Errorf("plugin: no %s and no go command to build it: run `make plugin`", out)
	}
	if err := ensure(goCmd, root, out); err != nil {
		return "", err
	}
	return out, nil
}

// ensure brings out up to date: nothing when its stamp matches, else a build. Processes that
// start at once (go test ./... runs packages in parallel) take turns, under a lock, so that
// one builds and the others find its stamp.
func ensure(goCmd, root, out string) error {
	fp, err := inputs(goCmd, root)
	if err != nil {
		return err
	}
	if upToDate(out, fp) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(out+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("plugin: locking %s: %w", out, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if upToDate(out, fp) {
		return nil // built by another process while this one waited
	}
	if err := build(goCmd, root, out); err != nil {
		return err
	}
	id, err := goBuildID(out)
	if err != nil {
		return fmt.Errorf("plugin: %s: %w", out, err)
	}
	return writeAtomic(out+".stamp", []byte(fp+"\n"+id+"\n"))
}

// upToDate reports whether out's stamp names the inputs fp and out is the binary the stamp
// was written for (its Go build ID: `make plugin` from the same sources gives the same one).
func upToDate(out, fp string) bool {
	stamp, err := os.ReadFile(out + ".stamp")
	if err != nil {
		return false
	}
	want, id, _ := strings.Cut(strings.TrimSpace(string(stamp)), "\n")
	if want != fp {
		return false
	}
	got, err := goBuildID(out)
	return err == nil && got == id
}

// inputs is a digest of what the plugin is built from: every Go, C and C++ source of the
// module (tests and testdata aside; the RTL library is in it through the hash file
// scripts/verilate.sh writes), go.mod and go.sum, the go command, and the environment that
// steers a build. It over-approximates (a change anywhere in the module rebuilds), which
// costs a build, never a stale plugin.
func inputs(goCmd, root string) (string, error) {
	h := sha256.New()
	if st, err := os.Stat(goCmd); err == nil {
		fmt.Fprintf(h, "go %s %d %d\n", goCmd, st.Size(), st.ModTime().UnixNano())
	}
	for _, k := range []string{"GOFLAGS", "GOOS", "GOARCH", "GOAMD64", "CGO_ENABLED", "CGO_CFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "CC", "CXX", "GOROOT", "GOTOOLCHAIN"} {
		fmt.Fprintf(h, "%s=%s\n", k, os.Getenv(k))
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "build" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".c", ".h", ".cpp", ".cc", ".s", ".S", ".syso":
			if strings.HasSuffix(name, "_test.go") {
				return nil
			}
		case ".mod", ".sum":
			if name != "go.mod" && name != "go.sum" {
				return nil
			}
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("plugin: reading the sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// goBuildID reads the Go build ID the linker puts in an executable's ELF note.
func goBuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return "", errors.New("no Go build ID")
	}
	note, err := sec.Data()
	if err != nil {
		return "", err
	}
	// An ELF note: name size, description size, type, then the name ("Go\x00\x00") and the ID.
	if len(note) < 16 {
		return "", errors.New("short Go build ID note")
	}
	nameSize, descSize := binary.LittleEndian.Uint32(note[0:]), binary.LittleEndian.Uint32(note[4:])
	start := 12 + (nameSize+3)&^3
	if uint64(start)+uint64(descSize) > uint64(len(note)) {
		return "", errors.New("malformed Go build ID note")
	}
	return string(note[start : start+descSize]), nil
}

// writeAtomic writes data to path through a temporary file renamed into place.
func writeAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// build runs go build into a temporary name and renames it into place, so that a test
// process starting a plugin at that moment never sees half a binary.
func build(goCmd, root, out string) error {
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.Command(goCmd, "build", "-o", tmp, "./cmd/lhsim-plugin")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("plugin: building %s (go build ./cmd/lhsim-plugin in %s): %v\n%s", out, root, err, msg)
	}
	return os.Rename(tmp, out)
}

// sourceRoot finds the lhsim module's root at or above the working directory.
func sourceRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return sourceRootFrom(dir)
}

// sourceRootFrom is the lhsim source tree that holds dir, if one does.
func sourceRootFrom(dir string) (string, bool) {
	for {
		if isRoot(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

func isRoot(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(m) == modulePath
		}
	}
	return false
}

func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return "the running executable"
	}
	return exe
}
