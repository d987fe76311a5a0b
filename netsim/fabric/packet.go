package fabric

import (
	"unsafe"

	"github.com/lhsim/lhsim/netsim"
)

// Packet is what the fabric carries: sizes and addresses, never payload bytes (as NSIM-ACE
// does: the NSIM-ACE paper's section 2.1). The sender fills Src, Dst, Bytes and whatever it wants of Kind,
// Tag and ID; the fabric fills the rest. A packet may be injected again once the destination
// has given it back with Consumed, so a sender can keep a pool of them.
type Packet struct {
	Src, Dst int // node numbers
	Bytes    int // size on the wire, header included; at least 1

	// Set by the fabric (Kind excepted).
	Flits int32 // Bytes in flits of Config.FlitBytes, rounded up
	// Kind is the sender's packet type (data, completion, ...); the fabric never reads it.
	Kind uint8
	VC   uint8  // the virtual channel the packet occupies now (or last occupied)
	Hops uint16 // routers traversed so far

	// The fabric's own state while the packet is inside (the fields a hop touches, kept
	// together in the packet's first 64 bytes).
	tailAt    netsim.Time // its tail has arrived at the current input
	out       int32       // the output port (global) it has asked for at the current router
	vcLo      uint8       // output virtual channels it may take: [vcLo, vcHi)
	vcHi      uint8       //
	hop       Hop         // routing state: the torus dimension and dateline class of the link it arrived on
	state     uint8       // where it is: see the st constants
	requested bool        // it is in its output's request list
	// zeroLoad is the closed-form latency of the links crossed so far (Network.ZeroLoadOf),
	// in the padding before ID; -1 once it no longer fits 32 bits.
	zeroLoad int32

	// ID and Tag are the sender's (a message number, an offset); the fabric never reads them.
	ID, Tag uint64
	// Ref is the sender's too: a pointer to what the packet belongs to (a message), so that
	// its receiver finds it in the packet, not in a table that another part of a
	// netsim.Parts may be writing. One word, not an interface: the packet stays in its size
	// class (TestPacketSize).
	Ref unsafe.Pointer

	InjectedAt netsim.Time // when Inject queued it at the source
	ArrivedAt  netsim.Time // when its tail reached the destination's ejection buffer
	seq        uint64      // the source's injection order, the oldest-first tie-break
	net        *Network    // the network it was last injected into (Fire)
}

// Where a packet is.
const (
	stFree      uint8 = iota // never injected, or consumed: may be injected (again)
	stQueued                 // in the source's injection queue
	stNetwork                // on a link or in a router buffer
	stDelivered              // in the destination's ejection buffer, not yet consumed
)

// Delivered reports whether p sits in its destination's ejection buffer (received, not
// yet given back with Consumed).
func (p *Packet) Delivered() bool { return p.state == stDelivered }

// Seq is p's number among its network's packets (from 1): its source's count of packets
// injected before it, times the nodes, plus its source, plus 1. It is fixed from Inject until
// it is injected again, and the same whatever part of a netsim.Parts its source runs on.
func (p *Packet) Seq() uint64 { return p.seq }

// Latency is the time from injection to the tail's arrival (valid once delivered).
func (p *Packet) Latency() netsim.Time { return p.ArrivedAt - p.InjectedAt }
