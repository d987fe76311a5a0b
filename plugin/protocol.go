// Package plugin is the out-of-process bridge to the receive path's RTL: the Verilated model
// runs in a child process (cmd/lhsim-plugin) started and checked by hashicorp/go-plugin, so
// that a $fatal, an assertion, a segfault or a hang in the RTL kills that process and not the
// harness. The board around the RTL (SO-DIMM model, network source, host bus) lives in the
// plugin process with it, and the protocol works at the transaction level: one call reads a
// block, runs n cycles, or injects a batch of messages and hands back the entries they made.
//
// go-plugin does the handshake (protocol version), the build check (a net/rpc call), the
// process's lifecycle and its output. The device calls themselves travel on a socket pair
// of their own, served by the board's locked thread with no goroutine in between: a call
// costs a third of a go-plugin net/rpc round trip.
//
// The client implements drivers.Device, so every test and experiment runs on either bridge;
// docs/plugin.md describes the protocol, its versioning and what a crash looks like.
package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sync"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/verilator"
)

// ProtocolVersion is the go-plugin protocol version: bump it on any incompatible change to
// the calls below. go-plugin refuses a plugin that speaks another version.
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
// with the method's reply. Both directions are one gob stream each.
type header struct {
	Method uint8
}

// The methods, numbered for the header.
const (
	mOpen uint8 = iota + 1
	mFlush
	mReadReg
	mReadBlock
	mRun
	mRunUntilIdle
	mMemRead
	mMemWrite
	mReceive
	mFeed
	mExchange
	mStats
	mClose
)

// methodCodes numbers the methods by name.
var methodCodes = func() map[string]uint8 {
	m := map[string]uint8{}
	for k, v := range methodNames {
		m[v] = k
	}
	return m
}()

// methodNames names the methods, for reports and the protocol digest.
var methodNames = map[uint8]string{mOpen: "Open", mFlush: "Flush", mReadReg: "ReadReg",
	mReadBlock: "ReadBlock", mRun: "Run", mRunUntilIdle: "RunUntilIdle", mMemRead: "MemRead",
	mMemWrite: "MemWrite", mReceive: "Receive", mFeed: "Feed", mExchange: "Exchange",
	mStats: "Stats", mClose: "Close"}

// Spec says which receive path the plugin builds: the fields of nic.Config that make sense
// in another process.
type Spec struct {
	Model   string // "rtl", "go" or "lockstep"
	Entries int    // LH buffer entries; 0 for the default build
	Trace   string // FST waveform written by the plugin process ("" for none)
	Board   gosim.BoardConfig
}

// Op is a call the client posts without waiting for its result (Inject, WriteReg,
// WriteBlock): it travels with the next call that needs an answer, and the plugin runs the
// posted ops in order before that call, so the cycle-by-cycle behaviour is the same as
// calling them one at a time.
type Op struct {
	Kind uint8
	Addr uint32
	Val  uint32
	Data []byte
}

const (
	opInject uint8 = iota + 1
	opWriteReg
	opWriteBlock
	opWatch // start reporting event pulses (Client.Watch)
)

// Event is a cycle in which event outputs pulsed: EvCommit, EvMsgDone and EvVecDone in
// bits 0, 1 and 2 of Flags.
type Event struct {
	Cycle uint64
	Flags uint8
}

// Args is what every call carries: the ops posted since the last call.
type Args struct {
	Pending []Op
}

// Status ends every reply. Errors travel in the reply, so that a reply can carry both a
// partial result and the error that cut it short.
type Status struct {
	Cycle  uint64  // board cycles after the call
	Err    string  // "" when the call worked
	Kind   string  // errKind* when Err matches a sentinel the caller may test for
	Failed int     // 1 + index of the posted op that failed (0: the call itself)
	Events []Event // event pulses during the call, once Watch has asked for them
}

const (
	errKindNotIdle = "not_idle" // gosim.ErrNotIdle
	errKindClosed  = "closed"   // the device was closed
)

// OpenArgs builds the device.
type OpenArgs struct {
	Spec Spec
}

// RegArgs reads one register.
type RegArgs struct {
	Args
	Addr uint32
}

// RegReply is a register's value.
type RegReply struct {
	Status
	Val uint32
}

// BlockArgs reads N bytes at Addr: a host-bus block (ReadBlock) or the large memory
// (MemRead, MemWrite with Data).
type BlockArgs struct {
	Args
	Addr uint64
	N    int
	Data []byte
}

// BlockReply carries bytes back.
type BlockReply struct {
	Status
	Data []byte
}

// RunArgs runs N cycles (Run) or until idle within N cycles (RunUntilIdle).
type RunArgs struct {
	Args
	N uint64
}

// ReceiveArgs carries a batch of messages: Receiver.Receive (Receive, and Exchange with Mode
// modeReceive: the reply holds N entries, 64 bytes each) or Receiver.Feed (Feed, and
// Exchange with modeFeed or modeFeedDrain), within Limit cycles.
type ReceiveArgs struct {
	Args
	Batch
	N     int
	Limit uint64
	Mode  uint8
}

// ExchangeArgs queues batch Submit (0: none) to run after whatever is queued, and then
// waits for batch Collect (0: none) and returns its result. One call per batch keeps the
// next batch queued in the plugin while the harness looks at the last.
type ExchangeArgs struct {
	ReceiveArgs
	Submit, Collect uint64
}

// Batch is messages packed for the wire: their bytes back to back and their lengths. One
// byte slice and one length slice cost gob a fraction of what a slice per message does.
type Batch struct {
	Data []byte
	Lens []uint32
}

// pack packs msgs into b's storage, which it reuses: the batch is only good until the next
// pack into b (the client encodes it before then).
func (b *Batch) pack(msgs [][]byte) Batch {
	b.Data, b.Lens = b.Data[:0], b.Lens[:0]
	for _, m := range msgs {
		b.Data = append(b.Data, m...)
		b.Lens = append(b.Lens, uint32(len(m)))
	}
	return *b
}

// unpack cuts the messages out of b.Data, without copying.
func (b Batch) unpack() ([][]byte, error) {
	msgs := make([][]byte, len(b.Lens))
	off := 0
	for i, n := range b.Lens {
		if off+int(n) > len(b.Data) {
			return nil, fmt.Errorf("plugin: batch of %d bytes cut at message %d", len(b.Data), i)
		}
		msgs[i] = b.Data[off : off+int(n) : off+int(n)]
		off += int(n)
	}
	return msgs, nil
}

const (
	modeReceive uint8 = iota
	modeFeed
	modeFeedDrain
)

// StatsReply is what the plugin process has used: CPU time (user and system, all threads,
// from getrusage) and the board's cycles.
type StatsReply struct {
	Status
	CPU time.Duration
}

// Reply is a bare status.
type Reply struct {
	Status
}

// wireTypes are every type that crosses a connection, for the protocol digest.
var wireTypes = []any{HelloReply{}, header{}, Spec{}, Op{}, Event{}, Args{}, Status{}, OpenArgs{}, RegArgs{},
	RegReply{}, BlockArgs{}, BlockReply{}, RunArgs{}, Batch{}, ReceiveArgs{}, ExchangeArgs{},
	StatsReply{}, Reply{}}

var (
	buildOnce sync.Once
	buildID   string
)

// BuildID names this build for the handshake: the protocol version, a digest of the wire
// types and calls (so that a change the version number forgot is still caught), and the hash
// of the linked RTL library. Harness and plugin must report the same one.
func BuildID() string {
	buildOnce.Do(func() {
		h := sha256.New()
		seen := map[reflect.Type]bool{}
		for _, v := range wireTypes {
			describe(h, reflect.TypeOf(v), seen)
		}
		for m := mOpen; m <= mClose; m++ {
			fmt.Fprintf(h, "%d=%s,", m, methodNames[m])
		}
		buildID = fmt.Sprintf("p%d-%s-rtl%s", ProtocolVersion, hex.EncodeToString(h.Sum(nil))[:12], verilator.LibHash())
	})
	return buildID
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
