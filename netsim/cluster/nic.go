package cluster

import (
	"fmt"
	"unsafe"

	"github.com/lhsim/lhsim/drivers/mpi"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Packet kinds on the fabric.
const (
	kindData    uint8 = iota + 1 // put data, get reply data, or send data
	kindControl                  // a put's completion, back to the initiator
	kindGetReq                   // a get's request, to the target
	kindSignal                   // a hardware sync packet (Rank.Signal): header only, no host
)

// Message kinds.
const (
	msgPut uint8 = iota + 1
	msgGet
	msgSend
)

// message is one put, get or send: what its packets belong to.
type message struct {
	kind     uint8
	src, dst int // the initiator and the target (for a get, the data goes dst -> src)
	size     int
	tag      int
	packets  int // data packets in all
	landed   int // data packets written to memory at the receiving end
	done     bool
	handle   *Handle
	issuedAt netsim.Time
	deliver  func(netsim.Time) // PostSend's: called when it has landed, instead of the rank's Recv
	seen     bool              // its first data packet has reached the receiving NIC (Observer)
	id       uint64            // its Packet.ID
	fill     uint64            // what its payload's bytes count from (messageBytes): the same on any parts
}

// The fields a message's two ends write are apart: the receiving NIC's (landed, seen) and
// the initiator's (done, the handle's); on parts the two may run at once. Its packets carry
// it (Packet.Ref).

// of is the message a packet of the cluster's carries.
func of(p *fabric.Packet) *message { return (*message)(p.Ref) }

// node is one machine: its NIC (a fabric.Endpoint) and its host running a rank.
type node struct {
	c    *Cluster
	id   int
	rank *Rank
	// The node's part: its machine and engine, and its events' keys (nil: one engine,
	// events in scheduling order). Its rank and NIC share the keys.
	m    *netsim.Machine
	eng  *netsim.Engine
	keys *netsim.Keys
	own  *partState // its part's free packets and counters
	// issued counts the messages it has initiated since the last run that left nothing
	// behind (Result.Puts; their numbers on several parts).
	issued uint64

	// The NIC's two DMA engines: host memory to NIC (outgoing data) and NIC to host memory
	// (arriving data). Each is a FIFO of transfers; busy is when its last one ends. The read
	// engine reads one message at a time (reading, when set) and the others wait in readQ:
	// a message whose read waits for room at the NIC holds up those behind it.
	readBusy, writeBusy netsim.Time
	reading             *pacedSend
	readQ               []*pacedSend

	// The receive buffer: bytes of data packets taken from the fabric and not yet written
	// to host memory, the packets being written (in the order their writes end), and the
	// packets left in the fabric's ejection buffer for want of room.
	rxUsed  int
	writing packetQueue
	rxWait  packetQueue

	// path, when set, takes the node's MPI eager messages instead of the DMA to memory.
	path ReceivePath
}

// ReceivePath is a NIC's message receive path (the LHS device, package lhsnic): it takes a
// node's arriving MPI eager messages, whole, on its own clock.
type ReceivePath interface {
	// Arrive hands over a message whose last packet arrived at now. The path calls done(t)
	// at the time t it has taken the whole message; until then the last packet stays in the
	// fabric's ejection buffer (back-pressure).
	Arrive(now netsim.Time, msg []byte, done func(now netsim.Time)) error
}

// A receive path that fails between calls (a device process that died) may have an Err()
// error method: the run that ends with it set fails with it.

// sendData reads a message's data from host memory, a packet at a time from now, and hands
// each to the fabric as its DMA ends. from is the node the data leaves (n). The DMA engine is
// a FIFO: the message has it from its start (now, or when the one before it has been read)
// to the end of its last packet's read, and the packets are made one after another (one
// event pending a message), so a large message costs no memory up front.
func (n *node) sendData(now netsim.Time, m *message, from, to int) {
	s := n.newSend()
	*s = pacedSend{c: n.c, n: n, m: m, from: from, to: to, at: now, left: m.size, packets: m.packets, id: m.id, resume: s.resume}
	if n.reading != nil {
		n.readQ = append(n.readQ, s)
		return
	}
	n.reading = s
	s.at = max(now, n.readBusy)
	s.next()
}

// readDone gives the read engine, free from at, to the next message waiting for it.
func (n *node) readDone(at netsim.Time) {
	n.readBusy = at
	if len(n.readQ) == 0 {
		n.reading = nil
		return
	}
	s := n.readQ[0]
	n.readQ[0] = nil
	n.readQ = n.readQ[1:]
	n.reading = s
	s.at = max(s.at, at)
	s.next()
}

// pacedSend is a message whose packets are read and injected one after another. It is
// also the event that injects its packet being read (one at a time: the next read is booked
// when that one has been injected), so a packet costs no event record of its own.
type pacedSend struct {
	c        *Cluster
	n        *node // whose read engine it has
	m        *message
	from, to int
	at       netsim.Time // when the next packet's read begins
	left     int
	sent     int
	// The message's packets and number, read on every packet: copied here, so that the
	// sender reads no line of the message's that its receiver writes (landed).
	packets int
	id      uint64
	reading *fabric.Packet         // read now, injected when its read ends (Fire)
	resume  func(left netsim.Time) // reads on once a packet has left the full transmit queue
}

// next schedules the next packet's injection at the end of its DMA read.
func (s *pacedSend) next() {
	payload := s.c.cfg.MTU - s.c.cfg.HeaderBytes
	chunk := min(s.left, payload)
	s.left -= chunk
	s.at += s.c.cfg.DMATime(chunk)
	s.reading = s.n.packet()
	*s.reading = fabric.Packet{Src: s.from, Dst: s.to, Bytes: s.c.cfg.HeaderBytes + chunk, ID: s.id, Tag: uint64(chunk), Kind: kindData, Ref: unsafe.Pointer(s.m)}
	s.sent++
	s.n.at(s.at, s)
	own := s.n.own
	if own.read++; s.c.progress != nil && own.read%progressPackets == 0 {
		s.c.progress(s.n.eng.Now())
	}
	if s.sent == s.packets {
		s.n.readDone(s.at) // its last read is booked: the next message reads after it
	}
}

// Fire hands the packet read to the fabric when its DMA read ends, then starts the next.
func (s *pacedSend) Fire(now netsim.Time, _ int64) {
	p := s.reading
	s.reading = nil
	if err := s.c.net.Inject(now, p); err != nil {
		s.n.m.Fail(fmt.Errorf("cluster: node %d: %w", s.from, err))
		return
	}
	if s.sent >= s.packets {
		// Its last packet is in the fabric and the read engine has gone on (readDone): no
		// one refers to s any more.
		s.n.recycleSend(s)
		return
	}
	if s.c.net.Queued(s.from) < txQueuePackets {
		s.next()
		return
	}
	// The NIC's transmit queue is full (the DMA reads faster than the link drains): the DMA
	// waits for a packet to leave instead of queueing packets without bound, so a message of
	// any size holds at most txQueuePackets of them. The link never idles for it: the queue
	// still holds packets when the read starts again.
	if s.resume == nil { // made once a message, not at every wait
		s.resume = func(left netsim.Time) {
			s.at = max(s.at, left)
			s.next()
		}
	}
	s.c.net.OnLeave(s.from, s.resume)
}

// txQueuePackets is how many packets a NIC's transmit queue holds before its DMA waits.
// assumption: 4 packets (4 KiB at the default MTU), enough to keep the link busy while the
// next one is read (the NSIM-ACE paper gives no NIC buffer sizes).
const txQueuePackets = 4

// sendHeader sends a header-only packet of m's (a control packet or a get request) now.
func (n *node) sendHeader(now netsim.Time, m *message, kind uint8, to int) {
	p := n.packet()
	*p = fabric.Packet{Src: n.id, Dst: to, Bytes: n.c.cfg.HeaderBytes, ID: m.id, Kind: kind, Ref: unsafe.Pointer(m)}
	if err := n.c.net.Inject(now, p); err != nil {
		n.m.Fail(fmt.Errorf("cluster: node %d: %w", n.id, err))
	}
}

// freePerNode is how many free packets a part keeps for each of its nodes (free.max): past
// that, packets consumed there are left to the collector. 16 is the default receive buffer's
// packets, more than a node of a balanced run has in flight on average. A machine of one
// part keeps none: there the collector's work runs on a core the run does not use, and new
// packets lie in memory in the order they are made, which the routers' events follow
// (reused ones are scattered): reusing them cost the 16x16x16 all-to-all point 5 % more CPU
// on one thread (docs/performance.md), where on two threads the collector takes its time
// from the parts.
const freePerNode = 16

// packet is a packet for node n to send: one of its part's free ones, or a new one. Only
// n's part's events call it (the free list is the part's own).
func (n *node) packet() *fabric.Packet { return n.own.free.get() }

// recycle gives packet p, consumed at node n and no longer referred to, to n's part's free
// list. Whichever part sent it, the destination's part now owns it alone: the fabric handed
// it over between windows, and the sender keeps no pointer to it after Inject.
func (n *node) recycle(p *fabric.Packet) {
	p.Ref = nil // the message may be collected
	n.own.free.put(p)
}

// newSend is a pacedSend for node n's read engine: one of its part's free ones (its resume
// function made already), or a new one.
func (n *node) newSend() *pacedSend { return n.own.sends.get() }

// recycleSend gives s, whose last packet node n has injected, to n's part. A send is its
// sender's alone from start to end: it stays on one part.
func (n *node) recycleSend(s *pacedSend) {
	s.m = nil
	n.own.sends.put(s)
}

// newMessage is a message for node n to issue: one of its part's free ones, or a new one.
func (n *node) newMessage() *message { return n.own.msgs.get() }

// recycleMessage gives m, a PostSend message that has landed at node n and whose callback
// has returned, to n's part: its packets are all consumed and recycled, its sender's
// pacedSend is done with it (its last packet left the sender before it could land here, a
// window earlier when the sender is on another part), and PostSend gave out no handle to it.
func (n *node) recycleMessage(m *message) {
	m.deliver = nil
	n.own.msgs.put(m)
}

// freeSendsPerNode is how many free pacedSends and messages a part keeps for each of its
// nodes (sends.max, msgs.max): a node reads one message at a time.
const freeSendsPerNode = 4

// at schedules the node's event h at t: keyed on parts, else in scheduling order.
func (n *node) at(t netsim.Time, h netsim.Handler) {
	if n.keys != nil {
		n.eng.AtKey(t, n.keys.Next(), h, 0)
		return
	}
	n.eng.At(t, h, 0)
}

// Receive implements fabric.Endpoint: the NIC takes an arrived packet.
func (n *node) Receive(now netsim.Time, p *fabric.Packet) {
	if p.Kind == kindSignal {
		n.consume(now, p)
		n.rank.signalled(now, p)
		n.recycle(p)
		return
	}
	m := of(p)
	switch p.Kind {
	case kindControl: // a put of ours is complete
		n.consume(now, p)
		n.recycle(p)
		m.done = true
		m.handle.done = true
		n.rank.wake(now)
	case kindGetReq: // read the data and send it back
		n.consume(now, p)
		n.recycle(p)
		n.sendData(now, m, n.id, m.src)
	case kindData:
		if n.c.obs != nil && !m.seen {
			m.seen = true
			n.c.obs.Arrived(now, p.ID, n.id)
		}
		if m.kind == msgSend && n.path != nil {
			n.toPath(now, p, m)
			return
		}
		// Into the receive buffer when there is room, then to memory by DMA.
		if n.rxWait.n > 0 || n.rxUsed+p.Bytes > n.c.cfg.RxBufferBytes {
			n.rxWait.push(p)
			return
		}
		n.take(now, p)
	}
}

// take moves a data packet from the fabric into the receive buffer and queues its DMA write.
func (n *node) take(now netsim.Time, p *fabric.Packet) {
	n.consume(now, p)
	n.rxUsed += p.Bytes
	start := max(now, n.writeBusy)
	n.writeBusy = start + n.c.cfg.DMATime(int(p.Tag))
	// The writes end in the order they were queued (writeBusy never goes back, and the
	// node's events of one instant run in the order they were scheduled): the event needs
	// no packet of its own, the front of writing is the one that lands.
	n.writing.push(p)
	n.at(n.writeBusy, (*lander)(n))
}

func (n *node) consume(now netsim.Time, p *fabric.Packet) {
	if err := n.c.net.Consumed(now, n.id, p); err != nil {
		n.m.Fail(fmt.Errorf("cluster: node %d: %w", n.id, err))
	}
}

// lander is a node as the event that completes its oldest data packet's DMA write.
type lander node

func (l *lander) Fire(now netsim.Time, _ int64) {
	n := (*node)(l)
	p := n.writing.pop()
	n.rxUsed -= p.Bytes
	for n.rxWait.n > 0 && n.rxUsed+n.rxWait.front().Bytes <= n.c.cfg.RxBufferBytes {
		n.take(now, n.rxWait.pop())
	}
	m, id := of(p), p.ID
	n.recycle(p)
	m.landed++
	if m.landed < m.packets {
		return
	}
	if n.c.obs != nil {
		n.c.obs.Landed(now, id, n.id)
	}
	switch m.kind {
	case msgPut: // landed: the target's polls see it, and the initiator is told
		n.rank.arrivedPut(now, m)
		n.sendHeader(now, m, kindControl, m.src)
	case msgGet: // the data is in the initiator's memory: the get is complete
		m.done = true
		m.handle.done = true
		n.rank.wake(now)
	case msgSend:
		n.landedSend(now, m)
	}
}

// landedSend hands a landed send to PostSend's callback or to the rank's Recv.
func (n *node) landedSend(now netsim.Time, m *message) {
	if m.deliver != nil {
		m.deliver(now)
		n.recycleMessage(m)
		return
	}
	n.rank.delivered(now, m)
}

// toPath hands a send's packets to the receive path: every packet but the last is taken at
// once (reassembled in the NIC); the last waits in the fabric until the path has taken the
// whole message.
func (n *node) toPath(now netsim.Time, p *fabric.Packet, m *message) {
	m.landed++
	if m.landed < m.packets {
		n.consume(now, p)
		n.recycle(p)
		return
	}
	msg := messageBytes(m)
	err := n.path.Arrive(now, msg, func(t netsim.Time) {
		if n.c.obs != nil {
			n.c.obs.Landed(t, p.ID, n.id)
		}
		n.consume(t, p)
		n.landedSend(t, m)
	})
	if err != nil {
		n.m.Fail(fmt.Errorf("cluster: node %d: receive path: %w", n.id, err))
	}
}

// messageBytes is a send as it reaches the receive path: the MPI envelope (source, tag,
// communicator 0, size) and a payload counting from the message's fill, a number its sender
// gives it whatever the machine's parts (so an RTL receive path's waveform is the same on
// any number of threads).
func messageBytes(m *message) []byte {
	body := make([]byte, max(m.size, mpi.EnvelopeBytes)-mpi.EnvelopeBytes)
	for i := range body {
		body[i] = byte(uint64(i) + m.fill)
	}
	return mpi.Eager(int32(m.src), int32(m.tag), 0, body)
}

// packetQueue is a FIFO of packets on a ring that grows to the most it has held at once (a
// slice popped from the front would move along its array and reallocate all the time).
type packetQueue struct {
	buf  []*fabric.Packet // len a power of two
	head int
	n    int
}

func (q *packetQueue) push(p *fabric.Packet) {
	if q.n == len(q.buf) {
		nb := make([]*fabric.Packet, max(4, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = p
	q.n++
}

func (q *packetQueue) front() *fabric.Packet { return q.buf[q.head] }

func (q *packetQueue) pop() *fabric.Packet {
	p := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return p
}
