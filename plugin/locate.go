package plugin

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// PathEnv names an explicit plugin binary.
const PathEnv = "LHSIM_PLUGIN"

// BinaryName is the plugin binary's file name.
const BinaryName = "lhsim-plugin"

// modulePath identifies the lhsim source tree.
const modulePath = "github.com/lhsim/lhsim"

var locate struct {
	once sync.Once
	path string
	err  error
}

// Locate finds the plugin binary, in this order: $LHSIM_PLUGIN; lhsim-plugin beside the
// running executable; inside the lhsim source tree (the working directory or one above it),
// build/bin/lhsim-plugin, which Locate brings up to date with `go build` once per process,
// so that a test run never meets a plugin older than its own sources. `make plugin` builds
// the same file.
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
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), BinaryName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	root, ok := sourceRoot()
	if !ok {
		return "", fmt.Errorf("plugin: no %s: not beside %s, %s is unset, and the working directory is not in the lhsim source tree", BinaryName, executable(), PathEnv)
	}
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
	if err := build(goCmd, root, out); err != nil {
		return "", err
	}
	return out, nil
}

// build runs go build into a temporary name and renames it into place, so that test
// processes building at the same time never see half a binary.
func build(goCmd, root, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
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
