package plugin

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"net/rpc"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// WatchdogEnv overrides the default watchdog (a Go duration, e.g. "2m").
const WatchdogEnv = "LHSIM_PLUGIN_WATCHDOG"

// DefaultWatchdog is how long a call may go without a single cycle of progress before the
// harness calls the plugin hung and kills it. A cycle takes microseconds, so this is only
// ever reached by a process that is stuck.
const DefaultWatchdog = 30 * time.Second

// Options are the harness's choices for one plugin process.
type Options struct {
	// Build is the harness's build identity (Fingerprint); the plugin must report the same.
	Build string
	// Path is the plugin binary; "" finds or builds it (Locate).
	Path string
	// Label names the process in error reports, e.g. the test's name.
	Label string
	// Watchdog: a call that makes no cycle of progress for this long is a hang. 0 means
	// $LHSIM_PLUGIN_WATCHDOG, or DefaultWatchdog.
	Watchdog time.Duration
	// Env is added to the plugin process's environment (tests put FaultEnv here).
	Env []string
	// History is how many recent calls a crash report lists; 0 means 16.
	History int
}

// Conn is the harness's end of one plugin process: calls go out one at a time and wait for
// their reply; a process that dies or hangs during one turns it into a *CrashError. Like the
// simulator it reaches, a Conn is for one goroutine at a time.
type Conn struct {
	opts   Options
	gp     *goplugin.Client
	cmd    *exec.Cmd
	rpc    *rpc.Client // go-plugin's connection: the build check
	ch     *os.File    // the call channel
	w      *bufio.Writer
	enc    *gob.Encoder
	dec    *gob.Decoder
	page   *statusPage
	pid    int
	build  string
	stderr *tail
	limit  time.Duration

	cycle uint64
	seq   uint64
	hist  []Record
	dead  error

	inflight atomic.Uint64 // seq of the call waiting for its reply, 0 when none
	hung     atomic.Bool
	wdStop   chan struct{}
	wdDone   chan struct{}
}

// ErrCrashed is wrapped by every error that reports a dead plugin process; ErrHung by those
// where the watchdog killed it.
var (
	ErrCrashed = errors.New("plugin process died")
	ErrHung    = errors.New("plugin process hung")
)

// Start starts a plugin process and checks that it is the harness's build.
func Start(opts Options) (*Conn, error) {
	path := opts.Path
	if path == "" {
		var err error
		if path, err = Locate(); err != nil {
			return nil, err
		}
	}
	if opts.History <= 0 {
		opts.History = 16
	}
	limit := opts.Watchdog
	if limit <= 0 {
		limit = DefaultWatchdog
		if s := os.Getenv(WatchdogEnv); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("plugin: %s=%q is not a positive duration", WatchdogEnv, s)
			}
			limit = d
		}
	}
	page, err := newStatusFile()
	if err != nil {
		return nil, err
	}
	// The call channel: one end for us, one for the plugin as its file descriptor 3.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		page.close(true)
		return nil, fmt.Errorf("plugin: call channel: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "lhsim call channel"), os.NewFile(uintptr(fds[1]), "lhsim call channel (plugin)")
	cmd := exec.Command(path)
	cmd.Env = append(append(os.Environ(), opts.Env...), StatusEnv+"="+page.path, ChannelEnv+"=3")
	cmd.ExtraFiles = []*os.File{theirs}
	logger := hclog.NewNullLogger()
	if os.Getenv("LHSIM_PLUGIN_LOG") != "" {
		logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Debug, Output: os.Stderr})
	}
	c := &Conn{opts: opts, cmd: cmd, page: page, stderr: newTail(64 << 10), limit: limit,
		hist: make([]Record, 0, opts.History), wdStop: make(chan struct{}), wdDone: make(chan struct{})}
	c.gp = goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          goplugin.PluginSet{pluginName: &rpcPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env has it, with ours after it so that ours win
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolNetRPC},
		Logger:           logger,
		Stderr:           c.stderr,
		StartTimeout:     time.Minute,
	})
	fail := func(err error) (*Conn, error) {
		c.gp.Kill()
		theirs.Close()
		ours.Close()
		page.close(true)
		return nil, err
	}
	proto, err := c.gp.Client()
	theirs.Close() // the plugin has its copy: when it dies, our reads see the end
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "incompatible api version") {
			return fail(fmt.Errorf("plugin: %s speaks another protocol version (%v): harness and plugin come from different builds; rebuild the plugin with `make plugin`", path, err))
		}
		return fail(fmt.Errorf("plugin: starting %s: %v%s", path, err, c.stderr.report("plugin stderr")))
	}
	raw, err := proto.Dispense(pluginName)
	if err != nil {
		return fail(fmt.Errorf("plugin: %s: %v", path, err))
	}
	c.rpc = raw.(*rpc.Client)
	var hello HelloReply
	if err := c.rpc.Call("Plugin.Hello", opts.Build, &hello); err != nil {
		return fail(fmt.Errorf("plugin: %s: build check: %v", path, err))
	}
	c.build = hello.Build
	if hello.Build != opts.Build {
		return fail(fmt.Errorf("plugin: harness and plugin come from different builds: harness %s, plugin %s (%s); rebuild the plugin with `make plugin`",
			opts.Build, hello.Build, path))
	}
	c.pid = hello.Pid
	c.ch = ours
	c.w = bufio.NewWriterSize(ours, 64<<10)
	c.enc, c.dec = gob.NewEncoder(c.w), gob.NewDecoder(bufio.NewReaderSize(ours, 64<<10))
	go c.watchdog()
	return c, nil
}

// CheckBuild asks the plugin, over go-plugin's net/rpc connection, which build it is, and
// fails if it is not the harness's. Start has done it once; it is also the cost of one
// go-plugin round trip, which the call channel exists to avoid.
func (c *Conn) CheckBuild() error {
	var hello HelloReply
	if err := c.rpc.Call("Plugin.Hello", c.opts.Build, &hello); err != nil {
		return err
	}
	if hello.Build != c.opts.Build {
		return fmt.Errorf("plugin: build %s, harness %s", hello.Build, c.opts.Build)
	}
	return nil
}

// Pid is the plugin process's id.
func (c *Conn) Pid() int { return c.pid }

// Build is the plugin's build identity.
func (c *Conn) Build() string { return c.build }

// Cycle is the child's progress counter as of the last reply.
func (c *Conn) Cycle() uint64 { return c.cycle }

// ResetCycle starts the progress counter again (the child built a fresh simulation).
func (c *Conn) ResetCycle() { c.cycle = 0 }

// Err is the crash that ended the process, or nil while it lives.
func (c *Conn) Err() error { return c.dead }

// Call makes one call and waits for its reply; st must point at the Status inside reply.
// It returns the transport's error only: a dead or hung process (a *CrashError, and every
// call after it returns the same), never st.Err, which the caller interprets. r describes
// the call for crash reports; Call fills in its sequence number, cycles and time.
func (c *Conn) Call(r Record, args any, st *Status, reply any) error {
	if c.dead != nil {
		return c.dead
	}
	c.seq++
	r.Seq, r.From = c.seq, c.cycle
	start := time.Now()
	c.inflight.Store(c.seq)
	err := c.enc.Encode(&header{Method: r.Call})
	if err == nil {
		err = c.enc.Encode(args)
	}
	if err == nil {
		err = c.w.Flush()
	}
	if err == nil {
		err = c.dec.Decode(reply)
	}
	c.inflight.Store(0)
	r.Took = time.Since(start)
	if err != nil {
		r.Err = "no reply"
		c.record(r)
		c.dead = c.crashed(r, err)
		return c.dead
	}
	c.cycle = max(c.cycle, st.Cycle)
	r.To, r.Err = c.cycle, st.Err
	c.record(r)
	return nil
}

// Close ends the process and frees what the Conn holds.
func (c *Conn) Close() {
	select {
	case <-c.wdStop:
		return // closed before
	default:
		close(c.wdStop)
	}
	if c.ch != nil {
		<-c.wdDone
		// The plugin leaves when its end of the channel closes. Let it go before go-plugin's
		// Kill, whose graceful quit otherwise races the exit and has yamux log broken pipes.
		c.ch.Close()
		for deadline := time.Now().Add(2 * time.Second); !c.gp.Exited() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	c.gp.Kill()
	c.page.close(true)
}
