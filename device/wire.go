package device

// The calls between Remote and the plugin process's Serve, over package plugin's channel.

import (
	"fmt"
	"sync"
	"time"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/plugin"
	"github.com/lhsim/lhsim/verilator"
)

// methods are the calls a plugin process serves, by the name its header carries.
var methods = []string{"Open", "Flush", "ReadReg", "ReadBlock", "Run", "RunUntilIdle", "MemRead",
	"MemWrite", "Receive", "Feed", "Exchange", "Steps", "Stats", "Close"}

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
	opWatch    // start reporting event pulses (Remote.Watch)
	opPost     // a host write queued on the board (PostWrite), run with the next cycles
	opPostRead // a host read queued on the board (PostRead), answered in a step's Reads
)

// Event is a cycle in which event outputs pulsed.
type Event struct {
	Cycle uint64
	Flags drivers.Events
}

// Args is what every call carries: the ops posted since the last call.
type Args struct {
	Pending []Op
}

// Status ends every reply: the transport's (board cycles after the call, the call's error)
// and what the device adds.
type Status struct {
	plugin.Status
	Kind   string  // errKind* when Err matches a sentinel the caller may test for
	Failed int     // 1 + index of the posted op that failed (0: the call itself)
	Events []Event // event pulses during the call, once Watch has asked for them
}

const (
	errKindNotIdle = "not_idle" // gosim.ErrNotIdle
	errKindClosed  = "closed"   // the device was closed
)

// OpenArgs builds the device in the plugin process, from the harness's Config.
type OpenArgs struct {
	Config Config
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
			return nil, fmt.Errorf("device: batch of %d bytes cut at message %d", len(b.Data), i)
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

// wireTypes are every type that crosses the channel, for the build identity.
var wireTypes = []any{Config{}, Op{}, Event{}, Args{}, Status{}, OpenArgs{}, RegArgs{},
	RegReply{}, BlockArgs{}, BlockReply{}, RunArgs{}, Batch{}, ReceiveArgs{}, ExchangeArgs{},
	StatsReply{}, Reply{}, StepArgs{}, StepReply{}}

var (
	buildOnce sync.Once
	buildID   string
)

// BuildID names this build for the plugin handshake: the calls, the shape of every type
// that crosses the channel, and the hash of the linked RTL library. Harness and plugin must
// report the same one.
func BuildID() string {
	buildOnce.Do(func() { buildID = plugin.Fingerprint(methods, wireTypes, "rtl"+verilator.LibHash()) })
	return buildID
}
