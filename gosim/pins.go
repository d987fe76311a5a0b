// Package gosim holds the cycle-accurate Go models around the receive path and its golden model.
package gosim

// gosim holds the cycle-accurate Go models of everything around the NIC's receive
// path: the SO-DIMM large memory, the network source, the host bus, and a golden model of the
// RTL itself. The RTL (through a bridge) and the golden model both implement Core, so the same
// Board drives either.

// Pins is one cycle's worth of the receive path's ports (docs/design.md). The layout matches
// the C struct lhs_pins in verilator/lhs_bridge.h field for field, so the cgo bridge passes it
// without copying; keep the two in step.
type Pins struct {
	// Inputs, driven by the Board before the clock edge.
	MsgData   [2]uint64 // s_msg_tdata, beat bytes 0..7 in [0], 8..15 in [1]
	MemRData  [2]uint64 // s_mem_rdata
	HostAddr  uint32    // host_addr
	HostWData uint32    // host_wdata
	MsgKeep   uint16    // s_msg_tkeep (read on the last beat only)
	MsgValid  uint8     // s_msg_tvalid
	MsgLast   uint8     // s_msg_tlast
	MemReady  uint8     // m_mem_ready
	MemRValid uint8     // s_mem_rvalid
	HostValid uint8     // host_valid
	HostWrite uint8     // host_write

	// Outputs, as they were during the cycle (before the edge).
	MemWData   [2]uint64 // m_mem_wdata
	MemAddr    uint32    // m_mem_addr
	HostRData  uint32    // host_rdata
	MsgReady   uint8     // s_msg_tready
	MemValid   uint8     // m_mem_valid
	MemWrite   uint8     // m_mem_write
	HostRValid uint8     // host_rvalid
	EvCommit   uint8     // ev_commit
	EvMsgDone  uint8     // ev_msg_done
	EvVecDone  uint8     // ev_vec_done
	_          uint8
}

// Core is the receive path at its ports, one clock at a time.
type Core interface {
	// Reset holds reset for a few cycles and releases it; inputs are idle meanwhile.
	Reset()
	// Cycle applies p's inputs, evaluates, stores the outputs in p (their values during this
	// cycle, before the edge) and then clocks the design once.
	Cycle(p *Pins)
	// Close frees the model.
	Close() error
}
