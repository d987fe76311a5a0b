// Package fabric is the network between the NICs: links, virtual cut-through routers and
// topologies (crossbar, k-ary n-tree, torus) on one netsim.Engine, timed as NSIM-ACE times
// them (the NSIM-ACE paper's Table 1; the torus links of Ohno et al.'s all-to-all paper). docs/network.md has the model, the
// figures and the commands behind them.
//
// # Use
//
//	eng := &netsim.Engine{}
//	topo, _ := fabric.ParseTopology("torus:4x4x4")
//	net, _ := fabric.New(eng, topo, fabric.DefaultConfig())
//	net.Attach(5, myNIC)                                  // an Endpoint; unattached nodes are sinks
//	net.Inject(eng.Now(), &fabric.Packet{Src: 0, Dst: 5, Bytes: 64})
//	eng.Run(netsim.Never)                                 // myNIC.Receive(now, p) is called
//	// ... and myNIC calls net.Consumed(now, 5, p) when it has taken p.
//
// Inject queues a packet at its source's injection port; the queue is unbounded (a NIC's
// memory) and the fabric takes packets from it in order when the first link has credits for
// the whole packet. Endpoint.Receive is called when the tail has arrived in the destination's
// ejection buffer; the buffer space stays taken until the node calls Consumed, and a full
// ejection buffer stops the last link: an endpoint that holds back Consumed back-pressures
// the fabric up to the senders. A packet may be injected again after it has been consumed.
// Inject and Consumed return errors for what they cannot do (no such node, a size of 0 or
// one larger than a buffer, a packet already inside, a packet not held): the fabric never
// drops a packet silently.
//
// # Model
//
// A packet moves whole (virtual cut-through) but is timed as its flits would be: its head
// flit is received at a router after the link's flight time plus one flit time; after the
// router pipeline (routing, VC allocation, switch allocation) it may cross the switch when
// its output link is free, its input is not streaming another packet, and the next buffer
// has credits for the whole packet. The head then leaves after the switch latency while the
// tail still streams in behind it. Credits go back upstream over the link (with its
// latency) when the packet's tail has left a buffer, or when the destination consumes it.
// Routing is deterministic: destination-based up/down on the fat tree, dimension order with
// dateline virtual channels on the torus (deadlock-free), the destination port on a crossbar.
// ZeroLoadLatency gives the closed form a lone packet's latency obeys.
//
// Every event is one of the Network's own (netsim.Handler with the kind and port packed in
// the argument; a landing packet is its own handler), so a hop allocates nothing; each is
// keyed by what it is (netsim.Engine.AtKey: the kind and port), so events at equal times run
// in an order that depends only on them, and a run is the same bit for bit every time and on
// any number of parts (NewParts). In the steady state a packet costs two events per router:
// its landing, and the credits it leaves behind reaching the upstream router (an event, so
// that routers touch each other's state only through events); a node's own link counts its
// credits when the node next looks at them; an output or input is woken only when a packet
// waits for it.
//
// # Also here
//
// Network.ZeroLoadLatency, Path and Hops (routers crossed), Topology.Bisection and
// Network.Bounds (throughput bounds of a traffic pattern), Pattern (uniform, transpose,
// tornado, neighbor, bitcomp, shuffle) and Synthetic (Bernoulli traffic with a measurement
// window), which lhsim traffic and the 4,096-node benchmark use.
//
// # The booksim router
//
// Config.Router = BookSimIQ (BookSimConfig) is another model: BookSim2's input-queued
// router flit by flit and cycle by cycle, in netsim/fabric/booksim. It runs on the same
// topologies through what they export for it: the channel graph (BuildGraph), the routing
// function (Topology.Route, under BookSim2's Rule: random ties and up ports, the dateline
// partition chosen on entering a dimension), the rings that need a dateline
// (Topology.DatelineRing), the shape (Shape) and the cut into parts (Partition). A new
// topology written here runs on both routers. New refuses BookSimIQ.
package fabric
