package mbcf

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// Model is the closed-form round trip of one user operation with its completion flag (the
// _STAT form of op, n data bytes) between two idle nodes: the requester's send system call,
// the request frame's way (adapter, wire, hub, adapter), the target's receive routine (which
// applies the command and sends the reply), the reply frame's way, and the requester's
// receive routine, which sets the flag its user spins on. The simulator must agree with it to
// the picosecond on an idle machine (TestModelAgrees); Calibrate solves it for the adapter.
func Model(cfg Config, op Opcode, n int) netsim.Time {
	h := cfg.Host
	copyT := func(b int) netsim.Time { return netsim.Time(b) * h.CopyByte }
	req, rep := pathFrames(op, n)
	userData, targetData, replyData := 0, 0, 0
	switch op {
	case OpWrite, OpFIFO:
		userData, targetData, replyData = n, n, 4 // the data in; a status word back
	case OpRead:
		targetData, replyData = 0, n
	case OpSwap:
		userData, targetData, replyData = n, n, n
	}
	syscall := h.SendBase + copyT(userData)
	target := h.RxBase + copyT(targetData+replyData) + h.SendBase
	requester := h.RxBase + h.ReplyExtra + copyT(replyData)
	return syscall + cfg.path(req) + target + cfg.path(rep) + requester
}

// path is a frame's time from the kernel's hand-over to the receive routine's start.
func (c Config) path(frame int) netsim.Time {
	a := c.Adapter
	return a.TxStart + c.Medium.WireTime(frame) + c.Medium.Latency + netsim.Time(frame)*a.RxDMAByte + a.RxDone
}

// pathFrames are the frame sizes (header to FCS) of a _STAT operation's request and reply.
func pathFrames(op Opcode, n int) (req, rep int) {
	rq := Command{Op: op, Opts: OptStat, Length: uint32(n)}
	var rp Command
	switch op {
	case OpRead, OpSwap:
		rp = Command{Op: OpReply, Opts: OptStat, Length: uint32(n)}
	default:
		rp = Command{Op: OpStatus, Length: 4}
	}
	return ether.FrameBytes(HeaderBytes + rq.Size()), ether.FrameBytes(HeaderBytes + rp.Size())
}

func pathFrameBytes(op Opcode, n int) int {
	a, b := pathFrames(op, n)
	return a + b
}
