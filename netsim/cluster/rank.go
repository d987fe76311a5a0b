package cluster

import (
	"fmt"

	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// AnySource and AnyTag match any sender and any tag in Recv, as in MPI.
const (
	AnySource = -1
	AnyTag    = -1
)

// Handle is a put or a get in flight.
type Handle struct {
	m    *message
	done bool
}

// Done reports whether the operation has completed.
func (h *Handle) Done() bool { return h != nil && h.done }

// Status is what Recv received.
type Status struct {
	Source, Tag, Size int
}

// Rank is one process: the program's view of its node. Its methods are the MGEN calls of
// the NSIM-ACE paper's section 3 (MGEN_rdma_put, MGEN_rdma_poll, MGEN_acp_complete, MGEN_Comp) and MPI's
// eager Send and Recv. Call them only from the rank's own program.
type Rank struct {
	n *node
	p *netsim.Proc // the program, a coroutine on the cluster's machine

	arrived    map[int]int      // landed puts by tag, not yet taken by Poll
	signals    map[int][]Signal // arrived sync packets by tag, not yet taken by WaitSignal
	unexpected []*message       // landed sends not yet received, oldest first
}

// ID is the rank's number; Size the number of ranks in the cluster.
func (r *Rank) ID() int   { return r.n.id }
func (r *Rank) Size() int { return len(r.n.c.nodes) }

// Now is the simulated time.
func (r *Rank) Now() netsim.Time { return r.n.eng.Now() }

// start runs prog from now.
func (r *Rank) start(now netsim.Time, prog Program) {
	r.arrived, r.unexpected = map[int]int{}, nil
	r.signals = map[int][]Signal{}
	r.p.Start(now, func(*netsim.Proc) error {
		prog(r)
		return nil
	})
}

// wake resumes the program at now if what it waits for has come.
func (r *Rank) wake(now netsim.Time) { r.p.Wake(now) }

// block suspends the program until ready() holds (desc says what for, in a hang report);
// the calls above pass a netsim.Why to r.p.Wait instead, formatted only for the report.
func (r *Rank) block(desc string, ready func() bool) { r.p.Wait(netsim.Because(desc), ready) }

// sleep keeps the rank busy for d.
func (r *Rank) sleep(d netsim.Time, desc string) { r.p.Sleep(d, netsim.Because(desc)) }

// bad fails the run with a bad call of this rank.
func (r *Rank) bad(format string, a ...any) {
	r.p.Exit(fmt.Errorf("cluster: rank %d: "+format, append([]any{r.ID()}, a...)...))
}

func (r *Rank) checkPeer(call string, peer, size int) {
	if peer < 0 || peer >= r.Size() {
		r.bad("%s to rank %d: no such rank (%d ranks)", call, peer, r.Size())
	}
	if peer == r.ID() {
		r.bad("%s to itself: a node does not use the network for its own memory", call)
	}
	if size < 1 {
		r.bad("%s of %d bytes: want at least 1", call, size)
	}
}

// Put writes size bytes into rank dst's memory (MGEN_rdma_put): it costs the node latency,
// then returns while the data moves. dst's Poll(tag) sees it once it has landed there;
// Complete(handle) returns once the control packet is back.
func (r *Rank) Put(dst, size, tag int) *Handle {
	r.checkPeer("put", dst, size)
	t0 := r.Now()
	r.p.Sleep(r.n.c.cfg.NodeLatency, netsim.Because("Put(to %d, %d bytes, tag %d): node latency", int64(dst), int64(size), int64(tag)))
	m := r.n.issue(r.Now(), msgPut, dst, size, tag)
	m.handle = &Handle{m: m}
	r.n.sendData(r.Now(), m, r.ID(), dst)
	r.n.c.op(r, "put", t0, dst, tag, size, int64(m.id))
	return m.handle
}

// Get reads size bytes from rank src's memory into this rank's: a request packet goes to src,
// whose NIC sends the data back. Complete(handle) returns once it is in memory here.
func (r *Rank) Get(src, size int) *Handle {
	r.checkPeer("get", src, size)
	t0 := r.Now()
	r.p.Sleep(r.n.c.cfg.NodeLatency, netsim.Because("Get(from %d, %d bytes): node latency", int64(src), int64(size)))
	m := r.n.issue(r.Now(), msgGet, src, size, 0)
	m.handle = &Handle{m: m}
	r.n.sendHeader(r.Now(), m, kindGetReq, src)
	r.n.c.op(r, "get", t0, src, 0, size, int64(m.id))
	return m.handle
}

// Poll waits until a put with tag has landed in this rank's memory and takes it
// (MGEN_rdma_poll): each landed put satisfies one Poll.
func (r *Rank) Poll(tag int) {
	t0 := r.Now()
	r.p.Wait(netsim.Because("Poll(tag %d)", int64(tag)), func() bool { return r.arrived[tag] > 0 })
	r.arrived[tag]--
	r.n.c.op(r, "poll", t0, -1, tag, 0, -1)
}

// Complete waits until the put or get h has completed (MGEN_acp_complete).
func (r *Rank) Complete(h *Handle) {
	if h == nil {
		r.bad("Complete of no handle")
	}
	m := h.m
	if m.src != r.ID() {
		r.bad("Complete of rank %d's operation", m.src)
	}
	t0 := r.Now()
	r.p.Wait(netsim.Because("Complete("+kindName(m.kind)+" to %d, tag %d)", int64(m.dst), int64(m.tag)), func() bool { return h.done })
	r.n.c.op(r, "complete", t0, m.dst, m.tag, m.size, int64(m.id))
}

func kindName(k uint8) string {
	switch k {
	case msgPut:
		return "put"
	case msgGet:
		return "get"
	}
	return "send"
}

// Comp keeps the rank computing for d (MGEN_Comp).
func (r *Rank) Comp(d netsim.Time) {
	if d < 0 {
		r.bad("Comp(%v): negative time", d)
	}
	t0 := r.Now()
	r.p.Sleep(d, netsim.Because("Comp(%v)", int64(d)).Time(0))
	r.n.c.op(r, "calc", t0, -1, -1, 0, -1)
}

// Send sends an MPI eager message of size bytes with tag to rank dst: it costs the node
// latency and returns while the data moves (buffered, as an eager send is).
func (r *Rank) Send(dst, tag, size int) {
	r.checkPeer("send", dst, size)
	if tag < 0 {
		r.bad("send with tag %d: want >= 0", tag)
	}
	t0 := r.Now()
	r.p.Sleep(r.n.c.cfg.NodeLatency, netsim.Because("Send(to %d, tag %d, %d bytes): node latency", int64(dst), int64(tag), int64(size)))
	m := r.n.issue(r.Now(), msgSend, dst, size, tag)
	r.n.sendData(r.Now(), m, r.ID(), dst)
	r.n.c.op(r, "send", t0, dst, tag, size, int64(m.id))
}

// Recv waits for a message from src (or AnySource) with tag (or AnyTag) and takes the oldest
// that matches, by the MPI matching rules of drivers/mpi.
func (r *Rank) Recv(src, tag int) Status {
	if src != AnySource && (src < 0 || src >= r.Size()) {
		r.bad("Recv from rank %d: no such rank (%d ranks)", src, r.Size())
	}
	p := mpi.Pattern{Source: int32(src), Tag: int32(tag)}
	found := -1
	match := func() bool {
		for i, m := range r.unexpected {
			if ok, _ := p.Match(mpi.Envelope{Source: int32(m.src), Tag: int32(m.tag)}); ok {
				found = i
				return true
			}
		}
		return false
	}
	t0 := r.Now()
	r.p.Wait(netsim.Because("Recv(from %d, tag %d)", int64(src), int64(tag)), match)
	m := r.unexpected[found]
	r.unexpected = append(r.unexpected[:found], r.unexpected[found+1:]...)
	r.n.c.op(r, "recv", t0, m.src, m.tag, m.size, int64(m.id))
	return Status{Source: m.src, Tag: m.tag, Size: m.size}
}

// arrived records a landed put.
func (r *Rank) arrivedPut(now netsim.Time, m *message) {
	r.arrived[m.tag]++
	r.wake(now)
}

// delivered records a landed send.
func (r *Rank) delivered(now netsim.Time, m *message) {
	r.unexpected = append(r.unexpected, m)
	r.wake(now)
}

// Signal is a sync packet that has arrived: who sent it, when it left the sender's NIC (a
// departure stamp the NIC may put in the header) and when its tail reached this NIC.
type Signal struct {
	Src    int
	SentAt netsim.Time
	At     netsim.Time
}

// Signal sends a header-only sync packet with tag to rank dst now: the NIC's own hardware
// sends it, so it costs no node latency and no DMA (the sync packets of the all-to-all paper's section 3.1,
// which its timer logic counts on arrival). dst's WaitSignal(tag) takes it.
func (r *Rank) Signal(dst, tag int) {
	r.checkPeer("signal", dst, 1)
	p := r.n.packet()
	*p = fabric.Packet{Src: r.ID(), Dst: dst, Bytes: r.n.c.cfg.HeaderBytes, Kind: kindSignal, Tag: uint64(tag)}
	if err := r.n.c.net.Inject(r.Now(), p); err != nil {
		r.bad("signal to %d: %v", dst, err)
	}
}

// WaitSignal waits until a sync packet with tag has arrived and takes the oldest: its sender
// and its arrival time (which may be before now, if the rank was busy when it came).
func (r *Rank) WaitSignal(tag int) Signal {
	t0 := r.Now()
	r.p.Wait(netsim.Because("WaitSignal(tag %d)", int64(tag)), func() bool { return len(r.signals[tag]) > 0 })
	if c := r.n.c; c.ops != nil {
		c.op(r, "wait signal", t0, r.signals[tag][0].Src, tag, 0, -1)
	}
	s := r.signals[tag][0]
	r.signals[tag] = r.signals[tag][1:]
	return s
}

func (r *Rank) signalled(now netsim.Time, p *fabric.Packet) {
	tag := int(p.Tag)
	if r.signals == nil { // a node whose rank has not run yet keeps it for the first run
		r.signals = map[int][]Signal{}
	}
	r.signals[tag] = append(r.signals[tag], Signal{Src: p.Src, SentAt: p.InjectedAt, At: now})
	r.wake(now)
}
