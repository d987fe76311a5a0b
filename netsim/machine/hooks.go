package machine

// Hooks, as akita's (sim.Hookable.AcceptHook): any number of observers attach to the machine,
// and each is told every event it subscribed to, in the order they attached. An observer
// subscribes by the interfaces it implements (typed events rather than akita's HookCtx with
// an untyped Item): RxObserver for the receive paths' steps, cluster.Observer (and
// cluster.OpObserver) for the messages at the NICs and the ranks' calls, ProgressObserver for
// the simulated time as a long run goes. A driver with events of its own (netsim/goal's
// Tracer) takes its observers from the machine with HooksOf.
//
// The machine installs a component's callback only once something subscribes to it, so a run
// with no observers calls nothing.

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/lhsnic"
)

// Hook is an observer of the machine: any value; what it implements says what it is told.
type Hook any

// RxObserver is told each step of each message through a receive path (lhsnic.RxEvent),
// with the node it is at.
type RxObserver interface {
	Rx(node int, e lhsnic.RxEvent)
}

// ProgressObserver is told the simulated time every 65,536 data packets the NICs read
// (cluster.Cluster.OnProgress): how far a run of a few huge messages has gone.
type ProgressObserver interface {
	Progress(now netsim.Time)
}

// AddHook attaches h; it is told the events of the runs that follow.
func (m *Machine) AddHook(h Hook) {
	m.hooks = append(m.hooks, h)
	if o, ok := h.(RxObserver); ok {
		m.rx = append(m.rx, o)
		if len(m.rx) == 1 {
			for i, n := range m.nodes {
				node := m.spec.Receivers[i].Node
				n.OnEvent = func(e lhsnic.RxEvent) {
					for _, o := range m.rx {
						o.Rx(node, e)
					}
				}
			}
		}
	}
	if o, ok := h.(cluster.Observer); ok {
		m.obs = append(m.obs, o)
		if len(m.obs) == 1 {
			m.cluster.Observe(o) // alone, it is called directly (and its Op only if it has one)
		} else {
			m.cluster.Observe(fanOut(m.obs))
		}
	}
	if o, ok := h.(ProgressObserver); ok {
		m.progress = append(m.progress, o)
		if len(m.progress) == 1 {
			m.cluster.OnProgress(func(now netsim.Time) {
				for _, o := range m.progress {
					o.Progress(now)
				}
			})
		}
	}
}

// HooksOf is the machine's hooks that implement T, in the order they attached: the observers
// of a driver's own events.
func HooksOf[T any](m *Machine) []T {
	var out []T
	for _, h := range m.hooks {
		if t, ok := h.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// fanOut is the cluster's one observer for many: an OpObserver when any of them is one.
func fanOut(obs []cluster.Observer) cluster.Observer {
	f := observers(append([]cluster.Observer(nil), obs...))
	for _, o := range obs {
		if _, ok := o.(cluster.OpObserver); ok {
			return opObservers{f}
		}
	}
	return f
}

type observers []cluster.Observer

func (f observers) Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int) {
	for _, o := range f {
		o.Issued(now, id, kind, src, dst, size, tag)
	}
}

func (f observers) Arrived(now netsim.Time, id uint64, node int) {
	for _, o := range f {
		o.Arrived(now, id, node)
	}
}

func (f observers) Landed(now netsim.Time, id uint64, node int) {
	for _, o := range f {
		o.Landed(now, id, node)
	}
}

type opObservers struct{ observers }

func (f opObservers) Op(rank int, name string, start, end netsim.Time, peer, tag, size int, msg int64) {
	for _, o := range f.observers {
		if op, ok := o.(cluster.OpObserver); ok {
			op.Op(rank, name, start, end, peer, tag, size, msg)
		}
	}
}
