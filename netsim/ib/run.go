package ib

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Start runs prog on node i from at.
func (c *Cluster) Start(i int, at netsim.Time, prog Program) {
	c.nodes[i].Host.Start(at, prog)
}

// Run runs until every started program has ended, or until, or a failure. A program still
// waiting when nothing is left to happen is reported with what it waits for (ErrHang); a
// wait that passes Params.WaitLimit fails the run with ErrWaitLimit.
func (c *Cluster) Run(until netsim.Time) error {
	err := c.m.Run(until)
	if err != nil && c.m.Err() == nil {
		return fmt.Errorf("ib: %w", err)
	}
	return err
}

// RTT runs pmtest's ping-pong between two nodes of a fresh machine of p: size bytes, with
// or without Data on WQE, iterations round trips after warmup, and returns the mean round
// trip.
func RTT(p Params, size int, inline bool, warmup, iterations int) (netsim.Time, error) {
	cfg := DefaultConfig()
	cfg.Params = p
	return RTTOn(cfg, 0, 1, size, inline, warmup, iterations)
}

// RTTOn is RTT between nodes a and b of the machine cfg (its topology decides how many
// switches lie between them).
func RTTOn(cfg Config, a, b, size int, inline bool, warmup, iterations int) (netsim.Time, error) {
	p := cfg.Params
	cfg.RecvDepth = 16
	c, err := Build(cfg)
	if err != nil {
		return 0, err
	}
	switch n := len(c.nodes); {
	case size < msgHeader || size > p.MaxMessage || inline && size > p.InlineBytes:
		return 0, fmt.Errorf("ib: ping-pong of %d bytes: want %d..%d (%d with data on WQE)", size, msgHeader, p.MaxMessage, p.InlineBytes)
	case a < 0 || b < 0 || a >= n || b >= n || a == b:
		return 0, fmt.Errorf("ib: ping-pong between nodes %d and %d of %d", a, b, n)
	case iterations < 1 || warmup < 0:
		return 0, fmt.Errorf("ib: ping-pong of %d round trips after %d", iterations, warmup)
	}
	pa := &PingPong{Me: a, Peer: b, Initiator: true, Size: size, Inline: inline, Warmup: warmup, Iterations: iterations}
	pb := &PingPong{Me: b, Peer: a, Size: size, Inline: inline, Warmup: warmup, Iterations: iterations}
	c.Start(a, 0, pa)
	c.Start(b, 0, pb)
	if err := c.Run(netsim.Never); err != nil {
		return 0, err
	}
	return pa.RTT(), nil
}

// Bandwidth streams count messages (or RDMA writes) of size bytes from node 0 to node 1 of
// a fresh machine of p and returns MB/s (10^6 bytes a second), from the first post to the
// last completion at the sender.
func Bandwidth(p Params, size, count int, rdma bool) (float64, error) {
	cfg := DefaultConfig()
	cfg.Params = p
	if rdma {
		cfg.RDMABytes = max(size, 1)
	}
	c, err := Build(cfg)
	if err != nil {
		return 0, err
	}
	if size < msgHeader || !rdma && size > p.MaxMessage || size > 1<<30 || count < 1 {
		return 0, fmt.Errorf("ib: stream of %d messages of %d bytes: want sizes %d..%d (RDMA: up to 1 GiB)", count, size, msgHeader, p.MaxMessage)
	}
	a := &Stream{Me: 0, Peer: 1, Sender: true, Size: size, Count: count, RDMA: rdma}
	b := &Stream{Me: 1, Peer: 0, Size: size, Count: count, RDMA: rdma}
	c.Start(0, 0, a)
	c.Start(1, 0, b)
	if err := c.Run(netsim.Never); err != nil {
		return 0, err
	}
	return a.MBps(), nil
}
