package cluster

// Non-blocking messages for drivers that run their own schedule on the machine (netsim/goal):
// a message is posted at a time and a callback says when it has landed, instead of a rank's
// program blocking in Send and Recv. Its data leaves as the NIC's DMA reads it, one packet
// event pending at a time, so a large message costs no memory up front.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Engine is the machine's event engine.
func (c *Cluster) Engine() *netsim.Engine { return c.eng }

// Err is the first failure of the machine (a packet the fabric refused, a receive path that
// failed), which also stopped the engine.
func (c *Cluster) Err() error { return c.m.Err() }

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
	m := &message{kind: msgSend, src: src, dst: dst, size: size, tag: tag, issuedAt: now, deliver: delivered}
	payload := c.cfg.MTU - c.cfg.HeaderBytes
	m.packets = max(1, (size+payload-1)/payload)
	id := uint64(len(c.msgs))
	c.msgs = append(c.msgs, m)
	c.nodes[src].sendData(now, id, m, src, dst)
	return nil
}
