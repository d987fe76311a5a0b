package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The edge sweeps' runs (make edges): the built binary, from a folder outside the source
// tree, each run counted by its exit status for the summary the sweeps print.

// BinEnv names the built lhsim the edge sweeps run (make edges builds build/bin/lhsim);
// unset, they run this test binary as lhsim.
const binEnv = "LHSIM_BIN"

// edgeCmd is lhsim args as the sweeps run it, in dir (a folder outside the source tree):
// LHSIM_BIN, else this test binary; shell, when set, is a sh line run before it (ulimit -v).
func edgeCmd(dir, shell string, env, args []string) *exec.Cmd {
	argv := []string{os.Args[0], "-test.run=^TestLhsimProcess$", "-test.count=1"}
	env = append(append([]string{}, env...), "LHSIM_ARGS="+strings.Join(args, "\x1f"))
	if bin := os.Getenv(binEnv); bin != "" {
		argv = append([]string{bin}, args...)
	} else if p, err := filepath.Abs("../../build/bin/lhsim-plugin"); err == nil && os.Getenv("LHSIM_PLUGIN") == "" {
		// The test binary is not beside the plugin as make's build/bin/lhsim is.
		if _, err := os.Stat(p); err == nil {
			env = append(env, "LHSIM_PLUGIN="+p)
		}
	}
	var cmd *exec.Cmd
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + ` && exec "$0" "$@"`}, argv...)...)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// edgeRun runs lhsim args (edgeCmd) with a limit of two minutes and counts it in tally.
func edgeRun(t *testing.T, tally *edgeTally, dir, shell string, env, args []string) (int, string, string) {
	t.Helper()
	cmd := edgeCmd(dir, shell, env, args)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("lhsim %v: still running after 2 minutes", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, "lhsim %v", args)
	}
	tally.add(code, e.String())
	return code, strings.TrimSuffix(strings.TrimSpace(o.String()), "PASS"), e.String()
}

// edgeTally counts a sweep's runs by exit status, and the stack traces among them.
type edgeTally struct {
	mu     sync.Mutex
	runs   int
	exits  map[int]int
	traces int
}

func (c *edgeTally) add(code int, stderr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exits == nil {
		c.exits = map[int]int{}
	}
	c.runs++
	c.exits[code]++
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "SIGBUS") || strings.Contains(stderr, "SIGSEGV") {
		c.traces++
	}
}

// String is the summary line make edges prints (t.Log at the end of each sweep).
func (c *edgeTally) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	other := c.runs - c.exits[0] - c.exits[1] - c.exits[2]
	return fmt.Sprintf("%d runs: exit 0 %d, exit 1 %d, exit 2 %d, other %d; stack traces %d", c.runs, c.exits[0], c.exits[1], c.exits[2], other, c.traces)
}

// report logs the tally at the end of a sweep, whatever its outcome, and appends it to the
// file LHSIM_EDGES_SUMMARY names, which make edges prints at its end.
func (c *edgeTally) report(t *testing.T, sweep string) {
	t.Cleanup(func() {
		line := fmt.Sprintf("%s: %s (%s)", sweep, c, edgeBinary())
		t.Log(line)
		if p := os.Getenv("LHSIM_EDGES_SUMMARY"); p != "" {
			if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, line)
				f.Close()
			}
		}
	})
}

// edgeBinary says which lhsim the sweeps ran.
func edgeBinary() string {
	if bin := os.Getenv(binEnv); bin != "" {
		return bin + ", from outside the source tree"
	}
	return "the test binary as lhsim, from outside the source tree"
}
