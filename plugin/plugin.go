// Package plugin is the transport of the out-of-process bridge (hashicorp/go-plugin).
package plugin

// plugin is the transport of the out-of-process bridge: it runs a simulator in a
// child process started and checked by hashicorp/go-plugin, so that a $fatal, an assertion,
// a segfault or a hang there kills that process and not the harness. It knows nothing of
// what it carries: package device puts the receive path's board on it (device.Remote on the
// harness side, device.Serve in cmd/lhsim-plugin).
//
// go-plugin does the handshake (protocol version), the build check (a net/rpc call), the
// process's lifecycle and its output. The calls themselves travel on a socket pair of their
// own (Conn.Call on one side, Serve's Handler on the other), served by one locked thread with
// no goroutine in between: a call costs a third of a go-plugin net/rpc round trip. A shared
// status page tells the harness how far the child got, for the watchdog and crash reports.
// docs/plugin.md describes the protocol, its versioning and what a crash looks like.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/rpc"
	"os"
	"reflect"

	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the go-plugin protocol version: bump it on any incompatible change to
// the framing below or to the calls a Handler serves. go-plugin refuses a plugin that speaks
// another version.
const ProtocolVersion = 1

// handshake is what harness and plugin must agree on before anything else. The cookie only
// tells a user who runs the plugin binary by hand that it is not a command.
var handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "LHSIM_PLUGIN_COOKIE",
	MagicCookieValue: "lhs_top receive path",
}

// pluginName is the one plugin the binary serves.
const pluginName = "lhs"

// ChannelEnv tells the plugin process which file descriptor is its end of the call channel.
const ChannelEnv = "LHSIM_PLUGIN_CHANNEL"

// HelloReply is the plugin's answer to the build check, its only net/rpc call.
type HelloReply struct {
	Build string
	Pid   int
}

// Calls on the channel: a header naming the method, then its arguments; the plugin answers
// with the method's reply, which embeds Status. Both directions are one gob stream each.
type header struct {
	Method string
}

// Status ends every reply: how far the child's simulation got and the call's own error.
// Errors travel in the reply, so that a reply can carry both a partial result and the error
// that cut it short.
type Status struct {
	Cycle uint64 // the child's progress counter after the call (Server.Progress)
	Err   string // "" when the call worked
}

// rpcPlugin is the go-plugin glue: the server side hands out the build check, the client
// side keeps the raw *rpc.Client.
type rpcPlugin struct{ build string }

func (p *rpcPlugin) Server(*goplugin.MuxBroker) (any, error) { return &RPC{build: p.build}, nil }

func (p *rpcPlugin) Client(_ *goplugin.MuxBroker, c *rpc.Client) (any, error) { return c, nil }

// RPC is what go-plugin registers as "Plugin": the build check.
type RPC struct{ build string }

// Hello tells the harness which build answers, and which process.
func (r *RPC) Hello(harness string, rep *HelloReply) error {
	rep.Build, rep.Pid = r.build, os.Getpid()
	return nil
}

// Fingerprint names a build for the handshake: the protocol version, a digest of the
// methods and of every type that crosses the channel (so that a change the version number
// forgot is still caught), and what the caller adds (the simulated design's hash). Harness
// and plugin must report the same one.
func Fingerprint(methods []string, wireTypes []any, design string) string {
	h := sha256.New()
	seen := map[reflect.Type]bool{}
	for _, v := range append([]any{header{}, Status{}, HelloReply{}}, wireTypes...) {
		describe(h, reflect.TypeOf(v), seen)
	}
	for i, m := range methods {
		fmt.Fprintf(h, "%d=%s,", i, m)
	}
	return fmt.Sprintf("p%d-%s-%s", ProtocolVersion, hex.EncodeToString(h.Sum(nil))[:12], design)
}

// describe writes a type's shape (field names and types, recursively) into w.
func describe(w interface{ Write([]byte) (int, error) }, t reflect.Type, seen map[reflect.Type]bool) {
	fmt.Fprintf(w, "%s:%s;", t.String(), t.Kind())
	if seen[t] {
		return
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fmt.Fprintf(w, "%s=", f.Name)
			describe(w, f.Type, seen)
		}
	case reflect.Slice, reflect.Array, reflect.Pointer:
		describe(w, t.Elem(), seen)
	}
}
