// Package drivers is the host side of lhsim: what software on the host would run. The host
// driver programs the NIC's registers, reads LH entries by PIO, fetches tails through the
// vector engine and releases what it consumed. It is written against Device, which the Go
// model and the RTL (through a bridge) both implement.
package drivers

// Device is a DIMMnet-style NIC as the host and the network see it: a host bus (register and
// buffer accesses, each taking simulated cycles), a network input, and a clock. Register
// addresses and meanings are in docs/design.md.
type Device interface {
	// ReadReg reads one 32-bit word over the host bus.
	ReadReg(addr uint32) (uint32, error)
	// WriteReg writes one 32-bit word over the host bus.
	WriteReg(addr, val uint32) error
	// ReadBlock reads len(dst) bytes (a multiple of 4) at consecutive addresses, pipelined one
	// word per cycle: a PIO burst over an LH entry or a window.
	ReadBlock(addr uint32, dst []byte) error
	// WriteBlock writes len(src) bytes (a multiple of 4) at consecutive addresses.
	WriteBlock(addr uint32, src []byte) error
	// Inject queues a message at the network input; it enters the NIC as the clock runs.
	Inject(msg []byte) error
	// Run advances the clock by n cycles.
	Run(n uint64) error
	// RunUntilIdle runs until every injected message has been taken by the NIC and the NIC is
	// quiet, or until limit cycles have passed (an error).
	RunUntilIdle(limit uint64) error
	// Cycle is the number of clock cycles since reset.
	Cycle() uint64
	// MemRead and MemWrite reach the large memory by backdoor, in zero time (for scoreboards
	// and experiment set-up; the host itself can only use VL and VS).
	MemRead(addr uint64, dst []byte) error
	MemWrite(addr uint64, src []byte) error
	// Close frees the device.
	Close() error
}

// Events is one cycle's event outputs (docs/design.md, "Event outputs"), as bits.
type Events uint8

// The event outputs.
const (
	EvCommit  Events = 1 << iota // ev_commit: an LH entry committed
	EvMsgDone                    // ev_msg_done: a message finished
	EvVecDone                    // ev_vec_done: a vector command ended
)

// Watcher is a device that reports the cycles in which an event output pulsed: what a host
// would see as interrupts or completion flags. f runs in cycle order, no later than the
// device call that ran those cycles returns.
type Watcher interface {
	Watch(f func(cycle uint64, ev Events))
}
