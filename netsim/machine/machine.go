// Package machine builds a run's machine from one typed description: the engine, the fabric,
// a cluster of nodes on it, the LHS receive path on chosen nodes (Verilated RTL, golden model
// or transaction-level model, beside the Go model of the other nodes' DMA), a waveform of one
// of them with its GTKWave save files, and a message matcher on every rank. Observers (a
// timeline, a progress counter, a waveform's markers) attach to it as hooks, any number of
// them, as akita's hooks do (sim.Hookable): each is told every event it subscribed to.
//
// lhsim goal (the packet network), lhsim incast and lhsim matchers build their machines here;
// what differs between them is the description, not code.
package machine

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/match"
	"github.com/lhsim/lhsim/waves"
)

// Spec is the machine a run builds. The values are parsed and checked where they entered (a
// topology, a node list); Build checks what only the whole machine can (a node beyond the
// topology, a waveform of a node without a device).
type Spec struct {
	Topology fabric.Topology
	Fabric   fabric.Config
	Cluster  cluster.Config
	// Receivers are the nodes whose MPI eager messages go into an LHS receive path, in the
	// order their devices are opened; every other node's NIC writes them to memory by DMA.
	Receivers []Receiver
	// Stepping is how the receive paths keep in step with the network.
	Stepping Stepping
	// Waveform, when its File is set, records one receiver's waveform.
	Waveform Waveform
	// Matcher, when set, is every rank's message matcher (netsim/match), MatchConfig its
	// configuration (the RTL beside the model on MatchConfig.RTLNodes).
	Matcher     *match.Spec
	MatchConfig match.Config
	// Parts, when above 0, builds the machine on that many parts of a netsim.Parts, each on
	// its own thread, its events keyed (cluster.BuildParts); 0 builds it on one engine, its
	// events in the order they were scheduled (cluster.Build). Receive paths run on their
	// node's part, their events keyed with the node (lhsnic.Config.Keys, and TakenKeys for a
	// receiver whose Config.TakenAtTime is set), stepped in a group per part (Grouped); a Verilated model (a receive path's, an RTL matcher's) is stepped only by
	// its part's goroutine. On more than one part the machine takes no hook that sees the
	// whole machine (Build and AddHook refuse them).
	Parts int
}

// Receiver is one node's LHS receive path.
type Receiver struct {
	Node   int
	Config lhsnic.Config
	// NewHost, when set, makes the host model that takes the node's commits (Config.Host) on
	// the machine's engine, before the node opens; Attach then gives it the node to release
	// entries on.
	NewHost func(eng *netsim.Engine) AttachedHost
}

// AttachedHost is a host model that needs its node (lhsnic.CostReceiver).
type AttachedHost interface {
	lhsnic.Host
	Attach(n *lhsnic.Node)
}

// Stepping is how the receive paths are stepped against the network.
type Stepping int

const (
	// Alone: each receive path runs to the engine's next event (lhsnic.New).
	Alone Stepping = iota
	// Grouped: the receive paths run ahead of each other by the network's shortest latency
	// between two nodes (lhsnic.Group with lhsnic.Lookahead).
	Grouped
	// InTurn: grouped, with no lookahead (a cycle at a time in turn; the check of Grouped).
	InTurn
)

// Waveform is one receiver's FST waveform and the GTKWave save files that open it.
type Waveform struct {
	Node int    // one of the receivers, whose device is Verilated RTL in this process
	File string // the FST ("": no waveform)
	// EventSave, when set, is a save file with a marker at the first cycle each event output
	// of the receive path pulsed (waves.Events).
	EventSave string
	// FirstMessageSaves are save files with a marker at each step of the node's first message
	// (lhsnic.RxEvent of message 0).
	FirstMessageSaves []string
}

// DefaultSave is the save file beside a waveform: its name with .gtkw.
func DefaultSave(fst string) string { return strings.TrimSuffix(fst, filepath.Ext(fst)) + ".gtkw" }

// Machine is a built machine: its cluster (engine, fabric, ranks), its receive paths, its
// matchers and its hooks.
type Machine struct {
	spec     Spec
	cluster  *cluster.Cluster
	nodes    []*lhsnic.Node // by Spec.Receivers
	hosts    []AttachedHost // by Spec.Receivers: NewHost's, or nil
	set      *match.Set
	hooks    []Hook
	rx       []RxObserver
	obs      []cluster.Observer
	progress []ProgressObserver
	wave     *waveRecorder
	groups   []*lhsnic.Group // the receive paths' groups (one per part), if stepped in groups
	closed   bool
}

// Build makes the machine of spec. On an error, whatever it opened is closed.
func Build(spec Spec) (_ *Machine, err error) {
	var c *cluster.Cluster
	if spec.Parts > 0 {
		c, err = cluster.BuildParts(spec.Topology, spec.Fabric, spec.Cluster, spec.Parts)
	} else {
		c, err = cluster.Build(spec.Topology, spec.Fabric, spec.Cluster)
	}
	if err != nil {
		return nil, err
	}
	m := &Machine{spec: spec, cluster: c}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	groupOf, err := m.receiveGroups()
	if err != nil {
		return nil, err
	}
	var nodeSpace, takenSpace uint64
	if c.Parts() != nil && len(spec.Receivers) > 0 {
		nodeSpace = c.Engine().NewKeySpace()
		if slices.ContainsFunc(spec.Receivers, func(r Receiver) bool { return r.Config.TakenAtTime }) {
			takenSpace = c.Engine().NewKeySpace()
		}
	}
	traced := false
	for _, r := range spec.Receivers {
		if r.Node < 0 || r.Node >= c.Size() {
			return nil, fmt.Errorf("machine: a receive path on node %d: %v has nodes 0 to %d", r.Node, spec.Topology, c.Size()-1)
		}
		nc := r.Config
		if spec.Waveform.File != "" && r.Node == spec.Waveform.Node {
			nc.Device.Trace, traced = spec.Waveform.File, true
		}
		eng := c.Network().NodeEngine(r.Node)
		if nodeSpace != 0 {
			nc.Keys = netsim.NewKeys(nodeSpace, r.Node, c.Size())
		}
		if takenSpace != 0 && nc.TakenAtTime {
			nc.TakenKeys = netsim.NewKeys(takenSpace, r.Node, c.Size())
		}
		var host AttachedHost
		if r.NewHost != nil {
			host = r.NewHost(eng)
			nc.Host = host
		}
		var node *lhsnic.Node
		if group := groupOf(eng); group != nil {
			node, err = group.New(nc)
		} else {
			node, err = lhsnic.New(eng, nc)
		}
		if err != nil {
			return nil, err
		}
		m.nodes, m.hosts = append(m.nodes, node), append(m.hosts, host)
		if host != nil {
			host.Attach(node)
		}
		if err := c.SetReceivePath(r.Node, node); err != nil {
			return nil, err
		}
	}
	if spec.Waveform.File != "" {
		if !traced {
			return nil, fmt.Errorf("machine: a waveform of node %d, whose receive path is not the device's", spec.Waveform.Node)
		}
		if m.wave, err = newWaveRecorder(m, spec.Waveform); err != nil {
			return nil, err
		}
	}
	if spec.Matcher != nil {
		if m.set, err = match.NewSet(*spec.Matcher, spec.MatchConfig); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// receiveGroups makes the groups the receive paths are stepped in (Spec.Stepping): one on a
// single engine, one per part on parts, each keyed with its part (none: Alone). It returns
// the group of an engine (nil: none).
func (m *Machine) receiveGroups() (func(*netsim.Engine) *lhsnic.Group, error) {
	c := m.cluster
	if m.spec.Stepping == Alone || len(m.spec.Receivers) == 0 {
		return func(*netsim.Engine) *lhsnic.Group { return nil }, nil
	}
	var lookahead netsim.Time
	if m.spec.Stepping == Grouped {
		var err error
		if lookahead, err = lhsnic.Lookahead(c.Network()); err != nil {
			return nil, err
		}
	}
	engs := []*netsim.Engine{c.Engine()}
	var space uint64
	if ps := c.Parts(); ps != nil {
		engs = engs[:0]
		for i := range ps.Len() {
			engs = append(engs, ps.Engine(i))
		}
		space = c.Engine().NewKeySpace()
	}
	for i, eng := range engs {
		g, err := lhsnic.NewGroup(eng, lookahead)
		if err != nil {
			return nil, err
		}
		if space != 0 {
			g.SetKeys(netsim.NewKeys(space, i, len(engs)))
		}
		m.groups = append(m.groups, g)
	}
	return func(eng *netsim.Engine) *lhsnic.Group { return m.groups[slices.Index(engs, eng)] }, nil
}

// ReceiveSteps is the number of the receive paths' own step events run so far (their
// groups' and their own): how many depends on how far each may run ahead of its engine's
// next event, which on parts is its part's, so a count of events that is the same on any
// number of parts leaves them out.
func (m *Machine) ReceiveSteps() uint64 {
	var n uint64
	for _, g := range m.groups {
		n += g.Events()
	}
	for _, node := range m.nodes {
		n += node.WakeEvents()
	}
	return n
}

// Cluster is the machine's nodes, ranks and fabric.
func (m *Machine) Cluster() *cluster.Cluster { return m.cluster }

// Engine is the machine's event engine.
func (m *Machine) Engine() *netsim.Engine { return m.cluster.Engine() }

// Network is the machine's fabric.
func (m *Machine) Network() *fabric.Network { return m.cluster.Network() }

// Receiver is the receive path of Spec.Receivers[i], and its host model (NewHost's, or nil).
func (m *Machine) Receiver(i int) (*lhsnic.Node, AttachedHost) { return m.nodes[i], m.hosts[i] }

// Windows is the windows the machine's parts ran (zero on one engine).
func (m *Machine) Windows() netsim.WindowStats {
	if ps := m.cluster.Parts(); ps != nil {
		return ps.Stats()
	}
	return netsim.WindowStats{}
}

// Matchers is the ranks' matchers (nil without Spec.Matcher).
func (m *Machine) Matchers() *match.Set { return m.set }

// Finish ends a run that returned runErr: it closes every receive path (a waveform is whole
// only then; a lockstep device reports a disagreement), writes the waveform's save files if
// the run went well, closes the matchers (an RTL matcher that crashed says so) and returns
// the first error, a receive path's own error (the one that stopped it) before the others.
func (m *Machine) Finish(runErr error) error {
	var errs []error
	for i, n := range m.nodes {
		if err := n.Err(); err != nil {
			errs = append(errs, fmt.Errorf("node %d's receive path: %w", m.spec.Receivers[i].Node, err))
		}
	}
	if err := m.closeNodes(); err != nil {
		errs = append(errs, err)
	}
	if m.wave != nil && runErr == nil && len(errs) == 0 {
		if err := m.wave.write(); err != nil {
			errs = append(errs, err)
		}
	}
	if m.set != nil {
		if err := m.set.Close(); err != nil {
			errs = append(errs, err)
		}
		m.set = nil
	}
	m.closeParts()
	m.closed = true
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// Close frees the devices and matchers of a machine that will not be finished (a failed
// build or run); after Finish it does nothing.
func (m *Machine) Close() {
	if m.closed {
		return
	}
	m.closed = true
	m.closeNodes()
	if m.set != nil {
		m.set.Close()
	}
	m.closeParts()
}

// closeParts ends the parts' workers (their statistics stay).
func (m *Machine) closeParts() {
	if ps := m.cluster.Parts(); ps != nil {
		ps.Close()
	}
}

func (m *Machine) closeNodes() error {
	var errs []error
	for i, n := range m.nodes {
		if err := n.Close(); err != nil {
			errs = append(errs, fmt.Errorf("node %d's receive path: %w", m.spec.Receivers[i].Node, err))
		}
	}
	m.nodes = m.nodes[:0:0]
	return errors.Join(errs...)
}

// waveRecorder writes a receiver's save files once its device is closed, with the markers it
// collected as the run went.
type waveRecorder struct {
	w     Waveform
	ev    *waves.Events  // EventSave's markers
	first []waves.Marker // FirstMessageSaves' markers
}

func newWaveRecorder(m *Machine, w Waveform) (*waveRecorder, error) {
	r := &waveRecorder{w: w}
	for i, rc := range m.spec.Receivers {
		if rc.Node != w.Node {
			continue
		}
		if w.EventSave != "" {
			local := m.nodes[i].Local()
			if local == nil {
				return nil, fmt.Errorf("machine: node %d's waveform: its device is not in this process", w.Node)
			}
			r.ev = waves.NewEvents(waves.Rule{LHS: rc.Config.LHS, SizePos: hw.SizePosReset, MaxMsg: hw.MaxMsgReset})
			local.OnCycle(r.ev.Observe)
		}
	}
	if len(w.FirstMessageSaves) > 0 {
		m.AddHook(r)
	}
	return r, nil
}

// Rx keeps the steps of the traced node's first message.
func (r *waveRecorder) Rx(node int, e lhsnic.RxEvent) {
	if node == r.w.Node && e.Msg == 0 {
		r.first = append(r.first, waves.Marker{Name: "message 0 " + e.Kind.String(), Time: (e.Board + hw.ResetCycles) * waves.CycleTime})
	}
}

func (r *waveRecorder) write() error {
	if r.ev != nil {
		if err := waves.ForRun(r.w.File, gosim.DefaultParams, r.ev.Markers(hw.ResetCycles)).Write(r.w.EventSave); err != nil {
			return err
		}
	}
	for _, f := range r.w.FirstMessageSaves {
		if err := waves.ForRun(r.w.File, gosim.DefaultParams, r.first).Write(f); err != nil {
			return err
		}
	}
	return nil
}
