// Package drivers is the host driver of the NIC, written against Bus, the host bus.
package drivers

// drivers is the host side of lhsim: what software on the host would run. The host
// driver programs the NIC's registers, reads LH entries by PIO, fetches tails through the
// vector engine and releases what it consumed. It is written against Bus, the host bus.

// Bus is the NIC as the host driver reaches it: register and block accesses over the host
// bus, each taking simulated cycles, and the clock they are counted in. The Go model and the
// RTL (device.Device, through either bridge) implement it, and so does a network node's host
// bus (netsim/lhsnic.HostBus). Register addresses and meanings are in docs/design.md.
type Bus interface {
	// ReadReg reads one 32-bit word over the host bus.
	ReadReg(addr uint32) (uint32, error)
	// WriteReg writes one 32-bit word over the host bus.
	WriteReg(addr, val uint32) error
	// ReadBlock reads len(dst) bytes (a multiple of 4) at consecutive addresses, pipelined one
	// word per cycle: a PIO burst over an LH entry or a window.
	ReadBlock(addr uint32, dst []byte) error
	// WriteBlock writes len(src) bytes (a multiple of 4) at consecutive addresses.
	WriteBlock(addr uint32, src []byte) error
	// Cycle is the number of clock cycles since reset.
	Cycle() uint64
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
