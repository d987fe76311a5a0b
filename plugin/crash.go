package plugin

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Record is one call in the crash report's list of recent calls.
type Record struct {
	Seq      uint64
	Call     string // the method
	Desc     string // the call with its arguments, as the caller words it ("" means Call())
	Posted   int    // requests queued ahead of it that it carried
	From, To uint64 // progress (cycles) before and after
	Took     time.Duration
	Err      string // "" when it worked; "no reply" when the process died under it
}

func (r Record) String() string {
	s := fmt.Sprintf("#%d %s", r.Seq, r.call())
	if r.Posted > 0 {
		s += fmt.Sprintf(" after %d posted ops", r.Posted)
	}
	switch {
	case r.Err == "no reply":
		return s + fmt.Sprintf(" from cycle %d: no reply", r.From)
	case r.Err != "":
		s += " failed: " + r.Err
	}
	return s + fmt.Sprintf(", cycles %d..%d, %v", r.From, r.To, r.Took.Round(time.Microsecond))
}

// call is the call with its arguments.
func (r Record) call() string {
	if r.Desc != "" {
		return r.Desc
	}
	return r.Call + "()"
}

// History returns the recent calls, oldest first.
func (c *Conn) History() []Record {
	n := len(c.hist)
	out := make([]Record, 0, n)
	for i := range n {
		if c.seq <= uint64(n) {
			out = append(out, c.hist[i])
		} else {
			out = append(out, c.hist[(int(c.seq)+i)%n])
		}
	}
	return out
}

func (c *Conn) record(r Record) {
	if len(c.hist) < cap(c.hist) {
		c.hist = append(c.hist, r)
		return
	}
	c.hist[int(r.Seq-1)%len(c.hist)] = r
}

// crashed builds the report of a process that stopped answering during call r.
func (c *Conn) crashed(r Record, cause error) error {
	deadline := time.Now().Add(5 * time.Second)
	for !c.gp.Exited() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if !c.gp.Exited() { // alive but out of step: it cannot be trusted any more
		c.cmd.Process.Kill()
	}
	e := &CrashError{Label: c.opts.Label, Pid: c.pid, Call: r, Cycle: c.page.cycle(), Hung: c.hung.Load(),
		Watchdog: c.limit, Recent: c.History()}
	if c.gp.Exited() && c.cmd.ProcessState != nil {
		e.Exit = c.cmd.ProcessState.String()
	} else {
		e.Exit = "connection lost: " + cause.Error()
	}
	e.Stderr, e.StderrFile = c.stderr.keep(c.pid)
	return e
}

// CrashError reports a plugin process that died or hung: which device, which call, which
// cycle, how it ended, what it printed and the calls before.
type CrashError struct {
	Label      string        // Options.Label
	Pid        int           // the plugin process
	Call       Record        // the call in flight
	Cycle      uint64        // cycles the board had completed (from the status page)
	Hung       bool          // the watchdog killed it
	Watchdog   time.Duration // the watchdog's limit
	Exit       string        // how the process ended ("exit status 2", "signal: killed")
	Stderr     []string      // the first lines it wrote to stderr (the crash message)
	StderrFile string        // all of its stderr, when there was more than Stderr shows
	Recent     []Record      // recent calls, oldest first, the fatal one last
}

func (e *CrashError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin: RTL process %d", e.Pid)
	if e.Label != "" {
		fmt.Fprintf(&b, " [%s]", e.Label)
	}
	if e.Hung {
		fmt.Fprintf(&b, " hung at cycle %d during %s: no cycle of progress for %v; the watchdog stopped it (SIGQUIT for a stack dump, then SIGKILL): %s",
			e.Cycle, e.Call.call(), e.Watchdog, e.Exit)
	} else {
		fmt.Fprintf(&b, " died at cycle %d during %s: %s", e.Cycle, e.Call.call(), e.Exit)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("\nplugin stderr:")
		for _, l := range e.Stderr {
			b.WriteString("\n    " + l)
		}
		if e.StderrFile != "" {
			b.WriteString("\n    ... (all of it in " + e.StderrFile + ")")
		}
	}
	b.WriteString("\nlast calls, oldest first:")
	for _, r := range e.Recent {
		b.WriteString("\n    " + r.String())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrCrashed) (and ErrHung for a hang) true.
func (e *CrashError) Is(target error) bool {
	return target == ErrCrashed || (e.Hung && target == ErrHung)
}

// tail keeps the start and the last bytes of a stream (the plugin's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut int // bytes dropped from the front
}

func newTail(max int) *tail {
	return &tail{max: max}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut += over
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// stderrLines is about how many lines a report shows.
const stderrLines = 16

// keep picks the lines of the stream a report shows: what comes before the first blank line
// (Verilator's message, the signal or the panic) and, from a Go crash dump, the stack of the
// goroutine locked to its thread, the board's, which says where the RTL stopped. When that
// leaves something out, all of it goes to a file, whose path keep returns too.
func (t *tail) keep(pid int) ([]string, string) {
	s := strings.TrimRight(t.String(), "\n")
	if s == "" {
		return nil, ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) <= stderrLines && t.cut == 0 {
		return lines, ""
	}
	var out []string
	for _, l := range lines {
		if l == "" || len(out) == stderrLines/2 {
			break
		}
		out = append(out, l)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "goroutine ") && strings.Contains(l, "locked to thread") {
			for _, b := range lines[i:] {
				if b == "" || len(out) >= stderrLines+stderrLines/2 {
					break
				}
				out = append(out, b)
			}
			break
		}
	}
	f, err := os.CreateTemp("", fmt.Sprintf("lhsim-plugin-%d-*.stderr", pid))
	if err != nil {
		return out, ""
	}
	defer f.Close()
	io.WriteString(f, s+"\n")
	return out, f.Name()
}

// report formats the stream for an error message ("" when empty).
func (t *tail) report(what string) string {
	s := strings.TrimSpace(t.String())
	if s == "" {
		return ""
	}
	return "\n" + what + ":\n    " + strings.ReplaceAll(s, "\n", "\n    ")
}
