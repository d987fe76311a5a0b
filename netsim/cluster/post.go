package cluster

// Non-blocking messages for drivers that run their own schedule on the machine (netsim/goal):
// a message is posted at a time and a callback says when it has landed, instead of a rank's
// program blocking in Send and Recv. Its data leaves as the NIC's DMA reads it, one packet
// event pending at a time, so a large message costs no memory up front.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Engine is the machine's event engine (on parts, part 0's).
func (c *Cluster) Engine() *netsim.Engine { return c.ms[0].Engine() }

// Err is the first failure of the machine (a packet the fabric refused, a receive path that
// failed), which also stopped the engine. On parts: the failure of the first part that
// failed (two parts that fail in one window report the lower part's).
func (c *Cluster) Err() error {
	for _, m := range c.ms {
		if err := m.Err(); err != nil {
			return err
		}
	}
	return nil
}

// PostSend sends an MPI message of size bytes (0: a header alone) with tag from node src to
// node dst, its DMA read starting at now: the NIC reads it after the transfers queued before
// it, a packet at a time (sendData), and hands each packet to the fabric as its read ends. delivered(t)
// is called at the time t the last byte is in dst's memory (or dst's receive path has taken
// the message); no Recv sees it. src and dst differ: a node does not use the network for its
// own memory.
func (c *Cluster) PostSend(now netsim.Time, src, dst, size, tag int, delivered func(netsim.Time)) error {
	if src < 0 || src >= len(c.nodes) || dst < 0 || dst >= len(c.nodes) || src == dst || size < 0 {
		return fmt.Errorf("cluster: post of %d bytes from node %d to node %d on %d nodes", size, src, dst, len(c.nodes))
	}
	n := c.nodes[src]
	m := n.issue(now, msgSend, dst, size, tag)
	m.deliver = delivered
	m.packets = max(1, m.packets)
	n.sendData(now, m, src, dst)
	return nil
}

// Observer sees each put, get and send at the NICs as the run goes (a timeline: experiment's
// --timeline); ids are Packet.IDs, one per message. With none set nothing is called.
type Observer interface {
	// Issued: a message of size bytes with tag from src to dst is handed to src's NIC now
	// (for a get: the request; its data goes dst to src). kind is "put", "get" or "send".
	Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int)
	// Arrived: the message's first data packet reached the receiving NIC (node) now.
	Arrived(now netsim.Time, id uint64, node int)
	// Landed: the whole message is in node's memory, or node's receive path has taken it.
	Landed(now netsim.Time, id uint64, node int)
}

// OpObserver is an Observer that also sees each call of a rank's program (Put, Get, Send,
// Recv, Poll, Complete, Comp, WaitSignal) from its start to its return: name is the call's
// in lower case, peer/tag/size -1 or 0 where the call has none, msg the message's id or -1.
type OpObserver interface {
	Op(rank int, name string, start, end netsim.Time, peer, tag, size int, msg int64)
}

// Observe sets the observer of the runs that follow (nil: none). An observer sees the whole
// machine from one thread: a machine on several parts takes none (a panic says so).
func (c *Cluster) Observe(o Observer) {
	if o != nil && len(c.ms) > 1 {
		panic(fmt.Sprintf("cluster: an observer on a machine of %d parts (it runs on one)", len(c.ms)))
	}
	c.obs = o
	c.ops, _ = o.(OpObserver)
}

func (c *Cluster) op(r *Rank, name string, start netsim.Time, peer, tag, size int, msg int64) {
	if c.ops != nil {
		c.ops.Op(r.ID(), name, start, r.Now(), peer, tag, size, msg)
	}
}

// issue makes a message of node n's (a put, get or send it initiates) at now: its number is
// the order of issue on one part (what an observer sees), and on several parts the node's
// own count times the nodes, plus the node (no two parts share a count).
func (n *node) issue(now netsim.Time, kind uint8, dst, size, tag int) *message {
	c := n.c
	m := n.newMessage()
	*m = message{kind: kind, src: n.id, dst: dst, size: size, tag: tag, issuedAt: now}
	m.fill = n.issued*uint64(len(c.nodes)) + uint64(n.id)
	if len(c.ms) == 1 {
		m.id = c.ids
		c.ids++
	} else {
		m.id = m.fill
	}
	n.issued++
	payload := c.cfg.MTU - c.cfg.HeaderBytes
	m.packets = (size + payload - 1) / payload
	if c.obs != nil {
		c.obs.Issued(m.issuedAt, m.id, kindName(m.kind), m.src, m.dst, m.size, m.tag)
	}
	return m
}
