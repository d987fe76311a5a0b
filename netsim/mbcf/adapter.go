package mbcf

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// adapter is a node's Ethernet adapter. Transmit: the kernel hands frames over into a ring of
// TxRing; the adapter sends them in order, one on its way at a time (TxStart after it takes
// it, then the hub) and takes the next when the last has left; TxDone after a frame's last
// bit the transmit-complete interrupt reclaims it (with a ring of 1 that is what hands over
// the next). Receive: the FCS is checked in hardware (a bad
// frame is counted and dropped), the frame waits in the receive ring (full: dropped, counted
// as an overrun), is copied to host memory (store-and-forward at RxDMAByte a byte, or at the
// wire's pace), and RxDone later the receive interrupt routine is queued on the CPU.
type adapter struct {
	n       *Node
	txq     []txItem    // handed over, not yet reclaimed; the first started ones are in the adapter
	started int         // frames of txq the adapter has taken (sent or on their way)
	busy    bool        // a frame is on its way to the wire
	rxWait  int         // frames in the ring not yet taken by the kernel
	dmaFree netsim.Time // when the receive DMA is free
}

type txItem struct {
	frame []byte
	out   *outPkt // the kept copy it was made from (nil: an acknowledgement)
}

func (a *adapter) eng() *netsim.Engine { return a.n.s.eng }

// send queues a frame; the adapter takes it at once if it is idle.
func (a *adapter) send(now netsim.Time, it txItem) {
	if it.out != nil {
		it.out.queued++
	}
	a.txq = append(a.txq, it)
	a.n.queues(now)
	a.next(now)
}

// next starts the next frame if the adapter is free and the ring holds one it has not taken.
func (a *adapter) next(now netsim.Time) {
	if a.busy || a.started >= len(a.txq) || a.started >= max(1, a.n.s.cfg.Adapter.TxRing) {
		return
	}
	a.kick(now)
}

func (a *adapter) kick(now netsim.Time) {
	a.busy = true
	it := a.txq[a.started]
	a.started++
	cfg := a.n.s.cfg
	a.eng().At(now+cfg.Adapter.TxStart, netsim.Func(func(t netsim.Time, _ int64) {
		taken := now
		if err := a.n.s.hub.Send(t, a.n.port, it.frame, func(t netsim.Time, err error) {
			if tr := a.n.s.tr; tr != nil {
				var flow uint64
				if it.out != nil && !it.out.wired {
					flow, it.out.wired = it.out.flow, true
				}
				tr.Wire(int(a.n.id), taken, t, len(it.frame), flow)
			}
			a.sent(t, it, err)
		}); err != nil {
			a.n.s.fail(err) // the adapter sends one frame at a time: a refusal is a bug here
		}
	}), 0)
}

// sent is the hub done with the frame: on the wire whole, or given up after collisions.
func (a *adapter) sent(t netsim.Time, it txItem, err error) {
	n := a.n
	if err != nil {
		n.stats.TxDropped++
	}
	if it.out != nil {
		it.out.left = t
	}
	a.busy = false
	a.next(t)
	cfg := n.s.cfg
	a.eng().At(t+cfg.Adapter.TxDone, netsim.Func(func(t netsim.Time, _ int64) {
		n.cpu.submit(t, job{what: "transmit-complete interrupt", run: func(now netsim.Time) (netsim.Time, func(netsim.Time)) {
			a.txq[0] = txItem{}
			a.txq = a.txq[1:]
			a.started--
			n.queues(now)
			if it.out != nil {
				it.out.queued--
				n.armRTO(now, it.out)
			}
			return cfg.Host.TxDoneIRQ, a.next
		}})
	}), 0)
}

// Receive implements ether.Station.
func (a *adapter) Receive(now netsim.Time, frame []byte) {
	n := a.n
	pkt, err := ether.Open(frame)
	if err != nil {
		n.stats.CRCErrors++
		return
	}
	cfg := n.s.cfg
	if a.rxWait >= cfg.Adapter.RxRing {
		n.stats.Overruns++
		return
	}
	a.rxWait++
	n.queues(now)
	arrived := now
	a.dmaFree = max(now, a.dmaFree) + netsim.Time(len(frame))*cfg.Adapter.RxDMAByte
	a.eng().At(a.dmaFree+cfg.Adapter.RxDone, netsim.Func(func(t netsim.Time, _ int64) {
		n.cpu.submit(t, job{what: "receive interrupt", run: func(now netsim.Time) (netsim.Time, func(netsim.Time)) {
			a.rxWait--
			cost, after := n.receive(now, pkt)
			if tr := n.s.tr; tr != nil {
				tr.Arrived(int(n.id), arrived, now, len(frame), n.accepted)
				n.queues(now)
			}
			return cost, after
		}})
	}), 0)
}
