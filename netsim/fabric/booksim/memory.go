package booksim

// The booksim network's memory, counted before it is built: lhsim traffic --preset booksim
// checks this estimate (not the event model's, fabric.Estimate) against the memory the run
// may take.

import (
	"fmt"
	"math/rand/v2"
	"unsafe"

	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Footprint is the memory, in bytes, New takes for topo with cfg and a run of Run keeps on
// top at full load: every router's VC buffers, pipeline queues, allocators and random
// stream, the channels' tables, the terminals, the packets a window can create, and the
// channels' events when every channel carries a flit and a credit every cycle (their
// ceiling). TestFootprint holds it to the heap a run really takes.
func Footprint(topo fabric.Topology, cfg fabric.Config) int64 {
	routers, ports, _ := fabric.Shape(topo)
	if routers == 0 {
		return 0
	}
	nodes, v := int64(topo.Nodes()), int64(max(cfg.VCs, 1))
	p := int64(ports / routers) // every router of fabric's topologies has as many ports
	slots := int64(1)
	for slots < int64(cfg.BufferFlits) {
		slots *= 2
	}
	q := int64(4)
	for q < p*v {
		q *= 2
	}
	words := func(bits int64) int64 { return (bits + 63) / 64 }
	perRouter := int64(unsafe.Sizeof(router{})) +
		p*v*int64(unsafe.Sizeof(vc{})) +
		p*v*slots*int64(unsafe.Sizeof(flit{})) + // the VC buffers' rings
		p*v*int64(unsafe.Sizeof(next{})) +
		2*p*int64(unsafe.Sizeof(flit{})) + p + // outFlit, inFlit, outHas
		3*q*int64(unsafe.Sizeof(entry{})) + // the pipeline queues
		4*(4*p+6*p*v+6*p+p*p) + // the int32 arena: small arrays and both allocators
		8*(2*p*v*words(p*v)+2*p*words(p)) + // the allocators' bit sets
		p*int64(unsafe.Sizeof(xbarEntry{})) + // the crossbar's flits, one per output at most
		int64(unsafe.Sizeof(rand.Rand{})+unsafe.Sizeof(rand.PCG{})) +
		2*4 // on its part's active lists
	perPort := int64(4*4 + 2*unsafe.Sizeof(dest{}) + 3*8) // inR, outR, down, up; flitTo, creditTo; the flit counts
	perNode := int64(2*unsafe.Sizeof(dest{})+3*8+unsafe.Sizeof(terminal{})+unsafe.Sizeof(rand.Rand{})+unsafe.Sizeof(rand.PCG{})) +
		2*v*4 + // the terminal's view of its router's buffer
		4*int64(unsafe.Sizeof(packet{})) // the packets a window may create (and their free list)
	// The wheel: a slot of events per cycle of the longest channel (a power of two), each
	// at most a flit on every output and a credit on every input, the nodes' too.
	wheel := int64(8) * (2*int64(ports) + 2*nodes) * int64(unsafe.Sizeof(event{}))
	return int64(routers)*perRouter + int64(ports)*perPort + nodes*perNode + wheel
}

// Estimate is the network's share of a run's memory estimate: its footprint.
func Estimate(topo fabric.Topology, cfg fabric.Config) *memlimit.Estimate {
	_, ports, _ := fabric.Shape(topo)
	e := &memlimit.Estimate{}
	e.Add(fmt.Sprintf("its %d nodes and %d router ports of %d VCs of %d flits (the booksim router)", topo.Nodes(), ports, max(cfg.VCs, 1), cfg.BufferFlits),
		Footprint(topo, cfg))
	return e
}

// CheckFits refuses a network of topo with cfg whose footprint, doubled for the garbage
// collector's headroom, passes fabric.MemoryLimit; the error wraps fabric.ErrTooBig.
func CheckFits(topo fabric.Topology, cfg fabric.Config) error {
	if err := Estimate(topo, cfg).Check(memlimit.Current()); err != nil {
		return fmt.Errorf("%v %w", topo, err)
	}
	return nil
}
