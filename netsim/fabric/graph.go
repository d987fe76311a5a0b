package fabric

// The channel graph and the parts, as another router model builds on them
// (netsim/fabric/booksim): the same topologies, the same routing (Topology.Route) and the
// same cuts into parts as the event model's, so that a new topology serves both routers.

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
)

// Graph is the channel graph a topology lays out: routers with numbered ports, the links
// between router ports, and each node's link to its router (its injection and ejection
// channels).
type Graph struct {
	Ports []int       // router -> its ports
	Links []GraphLink // router-to-router links, one per direction
	Nodes []NodeLink  // node -> where it attaches
}

// GraphLink is a link from one router's output port to another's input port.
type GraphLink struct {
	FromRouter, FromPort, ToRouter, ToPort int
	Latency                                netsim.Time // flight time
	GBps                                   float64
}

// NodeLink is a node's pair of links to port Port of router Router.
type NodeLink struct {
	Router, Port int
	Latency      netsim.Time
	GBps         float64
}

// BuildGraph lays out topo with cfg (the latencies and rates of its links).
func BuildGraph(topo Topology, cfg Config) (*Graph, error) {
	if topo == nil {
		return nil, fmt.Errorf("%w: need a topology", ErrBadConfig)
	}
	var g graph
	if err := topo.build(&cfg, &g); err != nil {
		return nil, err
	}
	out := &Graph{Ports: g.ports, Links: make([]GraphLink, len(g.links)), Nodes: make([]NodeLink, len(g.nodes))}
	for i, l := range g.links {
		out.Links[i] = GraphLink{l.fromRouter, l.fromPort, l.toRouter, l.toPort, l.latency, l.gbps}
	}
	for i, a := range g.nodes {
		out.Nodes[i] = NodeLink{a.router, a.port, a.latency, a.gbps}
	}
	return out, nil
}

// Partition is router -> part when topo's routers are cut into parts parts (1 to
// MaxParts) as NewParts cuts them: slabs of the torus, subtrees of the fat tree.
func Partition(topo Topology, cfg Config, parts int) ([]int32, error) {
	if m := MaxParts(topo, cfg); parts < 1 || parts > m {
		return nil, fmt.Errorf("%w: %d parts of %v: want 1 to %d", ErrBadConfig, parts, topo, m)
	}
	routers, _, _ := Shape(topo)
	if parts == 1 {
		return make([]int32, routers), nil
	}
	return partition(topo, &cfg, routers, parts), nil
}
