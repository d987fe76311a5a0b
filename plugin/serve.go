package plugin

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// Handler serves the calls that reach a plugin process, on one locked OS thread.
type Handler interface {
	// Serve decodes the arguments of one call to method from dec, runs it and returns its
	// reply (a value whose first field is a Status). An error means the channel is out of
	// step: the process stops.
	Serve(method string, dec *gob.Decoder) (reply any, err error)
	// Idle runs before the next call is read: work an earlier call queued.
	Idle()
}

// Server is the plugin process's side: the status page it publishes progress on and the
// test-only fault hook (FaultEnv).
type Server struct {
	fault fault
	page  *statusPage
}

// NewServer reads the environment the harness started the process with.
func NewServer() (*Server, error) {
	f, err := parseFault(os.Getenv(FaultEnv))
	if err != nil {
		return nil, err
	}
	s := &Server{fault: f}
	if path := os.Getenv(StatusEnv); path != "" {
		if s.page, err = openStatusFile(path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Progress publishes that cycle cycles are done (the watchdog and crash reports read it),
// and fires the fault hook when its cycle comes.
func (s *Server) Progress(cycle uint64) {
	if s.page != nil {
		s.page.setCycle(cycle)
	}
	if cycle == s.fault.at {
		s.fault.fire(cycle)
	}
}

// ExactCycles reports whether Progress must see every cycle: a cycle fault is set, and it
// fires when its cycle is published, not after a stretch of cycles that passed it.
func (s *Server) ExactCycles() bool { return s.fault.at != 0 }

// Serve answers the handshake and the build check through go-plugin, and serves h on the
// call channel until the harness closes it or goes away. It does not return.
func (s *Server) Serve(build string, h Handler) {
	if os.Getenv("GOGC") == "" {
		// A plugin's garbage is mostly the requests it has served; collecting it half as
		// often saves a fifth of the process's time on the benchmark workload.
		debug.SetGCPercent(200)
	}
	if s.fault.kind == "build" {
		build += "-other"
	}
	if v := os.Getenv(ChannelEnv); v != "" {
		fd, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: %s=%q is not a file descriptor\n", ChannelEnv, v)
			os.Exit(2)
		}
		go s.serve(os.NewFile(uintptr(fd), "lhsim call channel"), h)
	}
	hs := handshake
	if s.fault.kind == "protocol" {
		hs.ProtocolVersion++
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         goplugin.PluginSet{pluginName: &rpcPlugin{build: build}},
		// go-plugin's own messages: only errors, on the stderr the harness keeps.
		Logger: hclog.New(&hclog.LoggerOptions{Name: "lhsim-plugin", Level: hclog.Error, Output: os.Stderr, JSONFormat: true}),
	})
}

// serve is the simulation's thread: a Verilated model must stay on one OS thread, so this
// goroutine, locked to its thread, reads each call, runs it and writes the answer, with no
// other goroutine on the way.
func (s *Server) serve(ch *os.File, h Handler) {
	runtime.LockOSThread()
	r, w := bufio.NewReaderSize(ch, 64<<10), bufio.NewWriterSize(ch, 64<<10)
	dec, enc := gob.NewDecoder(r), gob.NewEncoder(w)
	redirected := false
	for {
		h.Idle()
		var hd header
		if err := dec.Decode(&hd); err != nil {
			if errors.Is(err, io.EOF) {
				os.Exit(0) // the harness has gone
			}
			fmt.Fprintf(os.Stderr, "plugin: reading a call: %v\n", err)
			os.Exit(2)
		}
		if !redirected {
			stdoutToStderr() // go-plugin has written the handshake before a call can come
			redirected = true
		}
		if s.page != nil {
			s.page.startCall()
		}
		rep, err := h.Serve(hd.Method, dec)
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: call %s: %v\n", hd.Method, err)
			os.Exit(2)
		}
		if err := enc.Encode(rep); err == nil {
			err = w.Flush()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "plugin: answering call %s: %v\n", hd.Method, err)
			os.Exit(2)
		}
	}
}
