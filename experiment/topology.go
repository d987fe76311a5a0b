package experiment

import (
	"strings"

	"github.com/lhsim/lhsim/netsim/fabric"
)

// Topology is a network the user named, read once where it enters (a flag, a JSON field)
// and handed down parsed: the topology netsim/fabric builds, and its text as written, which
// the reports name it by (a barrier's rows, an incast's header say what the user typed). The
// zero Topology names none (goal then sizes one to its schedule).
type Topology struct {
	text string
	topo fabric.Topology
}

// ParseTopology reads s ("crossbar:N", "fattree:KxN", "torus:XxYx...") with
// fabric.ParseTopology's errors, which name s.
func ParseTopology(s string) (Topology, error) {
	topo, err := fabric.ParseTopology(s)
	if err != nil {
		return Topology{}, err
	}
	return Topology{text: s, topo: topo}, nil
}

// MustTopology is ParseTopology of a text known to be good (a default); it panics on one
// that is not.
func MustTopology(s string) Topology {
	t, err := ParseTopology(s)
	if err != nil {
		panic(err)
	}
	return t
}

// TopologyOf names topo by its own String: a topology an experiment builds rather than
// reads (goal's machine sized to a schedule, a paper's fixed machine).
func TopologyOf(topo fabric.Topology) Topology {
	return Topology{text: topo.String(), topo: topo}
}

// Fabric is the topology netsim/fabric builds; nil for the zero Topology.
func (t Topology) Fabric() fabric.Topology { return t.topo }

// String is the topology as the user wrote it ("" for none).
func (t Topology) String() string { return t.text }

// IsZero says whether t names no topology.
func (t Topology) IsZero() bool { return t.topo == nil }

// Nodes is the topology's number of endpoints (0 for none).
func (t Topology) Nodes() int {
	if t.topo == nil {
		return 0
	}
	return t.topo.Nodes()
}

// MarshalText is the text as written, which UnmarshalText reads back to the same topology:
// JSON and the command lines of --slurm's array tasks carry a topology so.
func (t Topology) MarshalText() ([]byte, error) { return []byte(t.text), nil }

// UnmarshalText reads a topology as ParseTopology does; the empty text is none, as the zero
// Topology marshals.
func (t *Topology) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*t = Topology{}
		return nil
	}
	v, err := ParseTopology(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Topologies is a list of topologies as one text: comma-separated, blanks around each
// dropped, empty items skipped ("crossbar:64,fattree:4x3").
type Topologies []Topology

// ParseTopologies reads such a list; the first topology that does not parse is the error.
func ParseTopologies(s string) (Topologies, error) {
	var out Topologies
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		t, err := ParseTopology(f)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// MustTopologies is ParseTopologies of a list known to be good (a default).
func MustTopologies(s string) Topologies {
	ts, err := ParseTopologies(s)
	if err != nil {
		panic(err)
	}
	return ts
}

// String is the list as ParseTopologies reads it.
func (ts Topologies) String() string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.text
	}
	return strings.Join(s, ",")
}

// MarshalText is String.
func (ts Topologies) MarshalText() ([]byte, error) { return []byte(ts.String()), nil }

// UnmarshalText reads a list as ParseTopologies does.
func (ts *Topologies) UnmarshalText(b []byte) error {
	v, err := ParseTopologies(string(b))
	if err != nil {
		return err
	}
	*ts = v
	return nil
}
