package mbcf

import (
	"encoding/binary"
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// Node is one workstation: its CPU, its adapter, its kernel's MBCF channels and its tasks.
type Node struct {
	s     *System
	id    uint32
	mac   ether.MAC
	port  int
	cpu   cpu
	ad    adapter
	chans []*channel // by peer node
	tasks []*Task
	byID  map[uint32]*Task
	stats NodeStats
	// The flows of the data packets the kernel job running posted, and of the one it
	// accepted (Tracer).
	posted   []uint64
	accepted uint64
	// Trace, when set, is told of every user command the kernel applies to one of this node's
	// tasks, in the order applied.
	Trace func(Applied)
}

// Applied is a user command a node's kernel carried out.
type Applied struct {
	At       netsim.Time
	FromNode uint32
	FromTask uint32
	Seq      uint8 // the packet's sequence number
	Index    int   // the command's place in the packet
	Task     uint32
	Cmd      Command // Data aliases the received packet: copy it to keep it
}

// NodeStats counts what a node's kernel and adapter did.
type NodeStats struct {
	Sent          int // data packets sent (first transmissions)
	Received      int // data packets accepted in order
	Retransmitted int // copies sent again (timeout or NAK)
	AcksSent      int // acknowledgements sent on their own
	NaksSent      int // NAKs sent (order lost, or a malformed packet)
	NaksReceived  int
	Timeouts      int // retransmission timeouts that resent something
	Duplicates    int // data packets received again (a retransmission, a replay): dropped, acknowledged
	OutOfOrder    int // data packets past a gap: dropped, NAKed
	Malformed     int // packets Decode or the header checks refused: nothing in them acted on
	BadAcks       int // acknowledgements of packets never sent: ignored
	CRCErrors     int // frames failing their FCS (dropped by the adapter)
	Overruns      int // frames dropped with the receive ring full
	TxDropped     int // frames the hub gave up after collisions
	Applied       int // user commands carried out for this node's tasks
	// Refused counts, by Reason, commands this node's kernel refused: user commands to its
	// tasks, and replies to its tasks that failed their checks.
	Refused [reasonCount]int
	// Told counts failures reported back to this node's tasks (failure STATUS, NOTICE).
	Told           int
	ChannelsFailed int
	KernelTime     netsim.Time // CPU time in system calls and interrupts
}

const reasonCount = int(ReasonUnreachable) + 1

// ID is the node's number (the source physical node ID it sends).
func (n *Node) ID() uint32 { return n.id }

// MAC is the node's Ethernet address.
func (n *Node) MAC() ether.MAC { return n.mac }

// Stats is what the node has done so far.
func (n *Node) Stats() NodeStats {
	s := n.stats
	s.KernelTime = n.cpu.kernel
	return s
}

// Tasks are the node's tasks.
func (n *Node) Tasks() []*Task { return n.tasks }

// outPkt is a data packet kept for retransmission until it is acknowledged.
type outPkt struct {
	pkt    *Packet
	seq    uint8
	left   netsim.Time // when it last left the adapter (-1: not yet)
	queued int         // copies of it in the adapter's queue
	from   *Task       // the task that sent it (nil: the kernel's reply)
	ch     *channel
	flow   uint64 // its flow number (Tracer)
	wired  bool   // a frame of it has been on the wire (Tracer: its flow steps there once)
}

// channel is the kernel's state toward one peer node: the packets it sends there (sequence
// numbers, kept copies, backlog) and the packets it receives from there (next expected
// number, acknowledgements owed).
type channel struct {
	peer *Node
	// data packets posted to the peer and accepted from it, counted on (flow numbers)
	posts, accepts uint64
	// sending
	next     uint8
	unacked  []*outPkt
	backlog  []*outPkt
	retries  int
	rtoGen   uint64
	rtoArmed bool
	dead     bool
	// receiving
	expect   uint8
	owed     int
	ackGen   uint64
	ackArmed bool
	nakFor   int // the expect a NAK was sent for since the last accepted packet (-1: none)
}

func (n *Node) chanTo(peer uint32) *channel { return n.chans[peer] }

// --- sending ---

// post hands a data packet to the channel: into the window, or the backlog. The caller has
// paid the CPU time; frames are handed to the adapter by the returned func at the end of the
// caller's job.
func (n *Node) post(ch *channel, o *outPkt) []txItem {
	o.ch = ch
	ch.posts++
	o.flow = flowOf(n.id, ch.peer.id, len(n.s.nodes), ch.posts)
	if n.s.tr != nil {
		n.posted = append(n.posted, o.flow)
	}
	if len(ch.unacked) >= n.s.cfg.Protocol.Window {
		ch.backlog = append(ch.backlog, o)
		return nil
	}
	return []txItem{n.transmit(ch, o)}
}

// transmit gives o its sequence number and makes its frame, acknowledgement included.
func (n *Node) transmit(ch *channel, o *outPkt) txItem {
	o.seq, o.left = ch.next, -1
	ch.next++
	ch.unacked = append(ch.unacked, o)
	n.stats.Sent++
	return txItem{frame: n.frame(ch, o.pkt, o.seq, 0), out: o}
}

// frame encodes p with sequence number seq and this node's acknowledgement for the peer.
func (n *Node) frame(ch *channel, p *Packet, seq uint8, kern uint32) []byte {
	p.Dst, p.Src, p.SrcNode = ch.peer.mac, n.mac, n.id
	p.Seq, p.Kern = seq, kern
	p.Ack = ch.expect
	p.Ctrl = p.Ctrl&(CtrlAckOnly|CtrlNak) | CtrlAck
	ch.owed = 0
	ch.ackArmed = false
	ch.ackGen++
	b, err := p.Encode()
	if err != nil {
		n.s.fail(fmt.Errorf("mbcf: node %d: kernel built a bad packet: %w", n.id, err))
		return nil
	}
	f, err := ether.Seal(b)
	if err != nil {
		n.s.fail(fmt.Errorf("mbcf: node %d: %w", n.id, err))
		return nil
	}
	return f
}

// ackFrame is an acknowledgement on its own (a NAK if nak).
func (n *Node) ackFrame(ch *channel, nak bool) txItem {
	p := &Packet{Header: Header{Ctrl: CtrlAckOnly}}
	if nak {
		p.Ctrl |= CtrlNak
		n.stats.NaksSent++
	} else {
		n.stats.AcksSent++
	}
	return txItem{frame: n.frame(ch, p, 0, 0)}
}

func (n *Node) handOver(now netsim.Time, items []txItem) {
	for _, it := range items {
		if it.frame != nil {
			n.ad.send(now, it)
		}
	}
}

// acked takes the peer's cumulative acknowledgement a: the packets before a are through.
func (n *Node) acked(now netsim.Time, ch *channel, a uint8) []txItem {
	if len(ch.unacked) == 0 {
		if a != ch.next {
			n.stats.BadAcks++
		}
		return nil
	}
	k := int(a - ch.unacked[0].seq)
	if k > len(ch.unacked) {
		n.stats.BadAcks++
		return nil
	}
	if k == 0 {
		return nil
	}
	clear(ch.unacked[:k])
	ch.unacked = ch.unacked[k:]
	ch.retries = 0
	ch.rtoArmed = false
	ch.rtoGen++
	var items []txItem
	for len(ch.backlog) > 0 && len(ch.unacked) < n.s.cfg.Protocol.Window {
		o := ch.backlog[0]
		ch.backlog = ch.backlog[1:]
		items = append(items, n.transmit(ch, o))
	}
	if len(ch.unacked) > 0 && ch.unacked[0].left >= 0 {
		n.armRTO(now, ch.unacked[0])
	}
	n.wakeTasks(now) // room in the backlog
	return items
}

// armRTO starts the retransmission timer of o's channel if it is not running.
func (n *Node) armRTO(now netsim.Time, o *outPkt) {
	ch := o.ch
	if ch.rtoArmed || ch.dead || len(ch.unacked) == 0 || ch.unacked[0].left < 0 {
		return
	}
	ch.rtoArmed = true
	ch.rtoGen++
	gen := ch.rtoGen
	at := ch.unacked[0].left + n.s.cfg.Protocol.RTO<<min(ch.retries, 20)
	n.s.eng.At(max(at, now), netsim.Func(func(t netsim.Time, _ int64) {
		if ch.rtoGen != gen {
			return
		}
		ch.rtoArmed = false
		n.cpu.submit(t, job{what: "retransmission timer", run: func(now netsim.Time) (netsim.Time, func(netsim.Time)) {
			if ch.rtoGen != gen || len(ch.unacked) == 0 {
				return 0, nil
			}
			ch.retries++
			if ch.retries > n.s.cfg.Protocol.MaxRetries {
				n.failChannel(now, ch)
				return 0, nil
			}
			n.stats.Timeouts++
			items := n.resend(ch)
			return netsim.Time(len(items)) * n.s.cfg.Host.SendBase, func(now netsim.Time) { n.handOver(now, items) }
		}})
	}), 0)
}

// resend makes frames of every kept copy that is not already waiting in the adapter
// (go-back-N), flagged as retransmissions to be acknowledged at once.
func (n *Node) resend(ch *channel) []txItem {
	var items []txItem
	for _, o := range ch.unacked {
		if o.queued > 0 {
			continue
		}
		n.stats.Retransmitted++
		items = append(items, txItem{frame: n.frame(ch, o.pkt, o.seq, KernRetx|KernAckNow), out: o})
	}
	return items
}

// failChannel gives up on a peer: every operation kept or waiting for it fails as
// unreachable, told to its task; later sends there are refused.
func (n *Node) failChannel(now netsim.Time, ch *channel) {
	ch.dead = true
	ch.rtoGen++
	n.stats.ChannelsFailed++
	for _, o := range append(ch.unacked, ch.backlog...) {
		if o.from == nil {
			continue
		}
		for i, c := range o.pkt.Cmds {
			o.from.told(now, Fault{At: now, Reason: ReasonUnreachable, Op: c.Op, Seq: o.seq, Index: i, Node: ch.peer.id}, c.Stat(), c.Flag)
		}
	}
	ch.unacked, ch.backlog = nil, nil
	n.wakeTasks(now)
}

// --- receiving ---

// receive is the receive interrupt routine for one packet (ether.Open's result).
func (n *Node) receive(now netsim.Time, b []byte) (netsim.Time, func(netsim.Time)) {
	h := n.s.cfg.Host
	cost := h.RxBase
	p, err := Decode(b)
	if err != nil {
		n.stats.Malformed++
		// A header that names a known peer consistently: tell it, so that it resends from
		// its kept copy (a frame cut short on its way, a forgery: the real sender's copy is whole).
		if src, ok := n.claimedSource(b); ok {
			ch := n.chanTo(src)
			it := n.ackFrame(ch, true)
			ch.nakFor = int(ch.expect)
			return cost + h.SendBase, func(now netsim.Time) { n.handOver(now, []txItem{it}) }
		}
		return cost, nil
	}
	if p.Dst != n.mac || p.SrcNode >= uint32(len(n.s.nodes)) || p.SrcNode == n.id || p.Src != n.s.nodes[p.SrcNode].mac {
		n.stats.Malformed++
		return cost, nil
	}
	ch := n.chanTo(p.SrcNode)
	var out []txItem
	if p.Ctrl&CtrlAck != 0 {
		out = append(out, n.acked(now, ch, p.Ack)...)
	}
	if p.Ctrl&CtrlNak != 0 {
		n.stats.NaksReceived++
		re := n.resend(ch)
		cost += netsim.Time(len(re)) * h.SendBase
		out = append(out, re...)
	}
	after := func(now netsim.Time) { n.handOver(now, out) }
	if p.Ctrl&CtrlAckOnly != 0 {
		return cost, after
	}
	switch d := p.Seq - ch.expect; {
	case d == 0:
	case d >= 128: // already had it: a retransmission or a replay
		n.stats.Duplicates++
		out = append(out, n.ackFrame(ch, false))
		return cost + h.SendBase, after
	default: // a gap: something before it was lost
		n.stats.OutOfOrder++
		if ch.nakFor != int(ch.expect) {
			ch.nakFor = int(ch.expect)
			out = append(out, n.ackFrame(ch, true))
			cost += h.SendBase
		}
		return cost, after
	}
	ch.expect++
	ch.accepts++
	n.accepted = flowOf(p.SrcNode, n.id, len(n.s.nodes), ch.accepts)
	ch.nakFor = -1
	ch.owed++
	n.stats.Received++
	copied, replies, hadReplies := n.execute(now, p)
	cost += netsim.Time(copied) * h.CopyByte
	if hadReplies {
		cost += h.ReplyExtra
	}
	for _, r := range replies {
		o := &outPkt{pkt: r}
		out = append(out, n.post(ch, o)...)
		cost += h.SendBase
	}
	switch {
	case len(replies) > 0 && ch.owed == 0: // a reply carried the acknowledgement
	case p.Kern&KernAckNow != 0 || ch.owed >= n.s.cfg.Protocol.AckEvery:
		out = append(out, n.ackFrame(ch, false))
		cost += h.SendBase
	default:
		n.armAck(now, ch)
	}
	return cost, after
}

// claimedSource is the peer a packet that failed Decode says it is from, if its header is
// there and its node ID and address agree.
func (n *Node) claimedSource(b []byte) (uint32, bool) {
	if len(b) < HeaderBytes || binary.BigEndian.Uint16(b[OffType:]) != EtherType {
		return 0, false
	}
	src := binary.BigEndian.Uint32(b[OffSrcNode:])
	if src >= uint32(len(n.s.nodes)) || src == n.id || ether.MAC(b[OffSrc:OffSrc+6]) != n.s.nodes[src].mac {
		return 0, false
	}
	return src, true
}

// armAck starts the delayed acknowledgement of ch if it is not running.
func (n *Node) armAck(now netsim.Time, ch *channel) {
	if ch.ackArmed {
		return
	}
	ch.ackArmed = true
	ch.ackGen++
	gen := ch.ackGen
	n.s.eng.At(now+n.s.cfg.Protocol.AckDelay, netsim.Func(func(t netsim.Time, _ int64) {
		if ch.ackGen != gen {
			return
		}
		n.cpu.submit(t, job{what: "delayed acknowledgement", run: func(now netsim.Time) (netsim.Time, func(netsim.Time)) {
			if ch.ackGen != gen || ch.owed == 0 {
				return 0, nil
			}
			it := n.ackFrame(ch, false)
			return n.s.cfg.Host.SendBase, func(now netsim.Time) { n.handOver(now, []txItem{it}) }
		}})
	}), 0)
}

// execute carries out an accepted packet's commands, in order. It returns the bytes it
// copied (applied and put in replies), the reply packets for the sender's task, and whether
// the packet held replies to this node's own requests.
func (n *Node) execute(now netsim.Time, p *Packet) (copied int, replies []*Packet, hadReplies bool) {
	task := n.byID[p.DstTask]
	var back []Command
	for i := range p.Cmds {
		c := &p.Cmds[i]
		if !c.Op.User() {
			hadReplies = true
			copied += int(c.Length)
			n.takeReply(now, p, i, task)
			continue
		}
		reason, data := n.apply(task, c)
		switch c.Op {
		case OpWrite, OpFIFO:
			copied += int(c.Length)
		case OpRead:
			copied += len(data)
		case OpSwap:
			copied += int(c.Length) + len(data)
		}
		if reason == ReasonNone {
			n.stats.Applied++
			if n.Trace != nil {
				n.Trace(Applied{At: now, FromNode: p.SrcNode, FromTask: p.SrcTask, Seq: p.Seq, Index: i, Task: p.DstTask, Cmd: *c})
			}
		} else {
			n.stats.Refused[reason]++
		}
		// What goes back: the data of a READ or SWAP; a status for a _STAT command; a notice
		// of a failure that has no flag to go to.
		switch {
		case reason == ReasonNone && c.Op.hasReply():
			back = append(back, Command{Key: p.SrcKey, Op: OpReply, Opts: c.Opts, Addr: c.Reply, Flag: c.Flag, Length: uint32(len(data)), Data: data})
		case c.Stat():
			w := StatusDone
			if reason != ReasonNone {
				w = FailStatus(reason)
			}
			back = append(back, Command{Key: p.SrcKey, Op: OpStatus, Addr: c.Flag, Length: 4, Data: binary.BigEndian.AppendUint32(nil, w)})
			copied += 4
		case reason != ReasonNone:
			note := make([]byte, NoticeBytes)
			binary.BigEndian.PutUint32(note, uint32(reason))
			note[4], note[5], note[6] = p.Seq, byte(i), byte(c.Op)
			back = append(back, Command{Key: p.SrcKey, Op: OpNotice, Length: NoticeBytes, Data: note})
			copied += NoticeBytes
		}
	}
	// Combine what goes back into as few packets as fit.
	var cur *Packet
	for _, c := range back {
		if cur == nil || cur.Size()+c.Size() > MaxPacket {
			cur = &Packet{Header: Header{SrcTask: p.DstTask, DstTask: p.SrcTask}}
			if task != nil {
				cur.SrcKey = task.key
			}
			replies = append(replies, cur)
		}
		cur.Cmds = append(cur.Cmds, c)
	}
	return copied, replies, hadReplies
}

// apply checks a user command against the destination task (its ID, its key, the range and
// the access) and carries it out: nothing is written unless every check passes. data is what
// a READ or SWAP returns.
func (n *Node) apply(task *Task, c *Command) (Reason, []byte) {
	if task == nil {
		return ReasonNoTask, nil
	}
	if c.Key != task.key {
		return ReasonKey, nil
	}
	s := task.space
	switch c.Op {
	case OpWrite:
		m, ok := s.find(c.Addr, int(c.Length), PermWrite)
		if !ok {
			return ReasonRange, nil
		}
		copy(m, c.Data)
	case OpRead:
		m, ok := s.find(c.Addr, int(c.Length), PermRead)
		if !ok {
			return ReasonRange, nil
		}
		return ReasonNone, append([]byte(nil), m...)
	case OpSwap:
		m, ok := s.find(c.Addr, int(c.Length), PermReadWrite)
		if !ok {
			return ReasonRange, nil
		}
		old := append([]byte(nil), m...)
		copy(m, c.Data)
		return ReasonNone, old
	case OpFIFO:
		return fifoAppend(s, c.Addr, c.Data), nil
	}
	return ReasonNone, nil
}

// takeReply carries out a reply the kernel of the peer sent to one of this node's tasks: the
// data of its READ or SWAP and its flag, a status, or a notice. A reply must pass the same
// checks as a request (the task, its key, its own mapped space); one that does not is
// counted and dropped (no reply to a reply).
func (n *Node) takeReply(now netsim.Time, p *Packet, i int, task *Task) {
	c := &p.Cmds[i]
	refuse := func(r Reason) { n.stats.Refused[r]++ }
	if task == nil {
		refuse(ReasonNoTask)
		return
	}
	if c.Key != task.key {
		refuse(ReasonKey)
		return
	}
	s := task.space
	switch c.Op {
	case OpReply:
		m, ok := s.find(c.Addr, int(c.Length), 0)
		_, fok := s.find(c.Flag, 4, 0)
		if !ok || c.Stat() && !fok {
			refuse(ReasonRange)
			return
		}
		copy(m, c.Data)
		if c.Stat() {
			_ = s.SetWord(c.Flag, StatusDone)
		}
	case OpStatus:
		if _, ok := s.find(c.Addr, 4, 0); !ok {
			refuse(ReasonRange)
			return
		}
		w := binary.BigEndian.Uint32(c.Data)
		_ = s.SetWord(c.Addr, w)
		if r := StatusReason(w); r != ReasonNone {
			n.stats.Told++
			task.faults = append(task.faults, Fault{At: now, Reason: r, Node: p.SrcNode, Flag: c.Addr})
		}
	case OpNotice:
		n.stats.Told++
		task.faults = append(task.faults, Fault{At: now, Reason: Reason(binary.BigEndian.Uint32(c.Data)), Op: Opcode(c.Data[6]),
			Seq: c.Data[4], Index: int(c.Data[5]), Node: p.SrcNode})
	}
}

// wakeTasks looks at the waits of the node's tasks when the kernel has gone idle.
func (n *Node) wakeTasks(now netsim.Time) {
	if n.cpu.busy {
		return
	}
	for _, t := range n.tasks {
		t.wake(now)
	}
}
