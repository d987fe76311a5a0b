package mpi

import (
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/hostcpu"
)

// Stack is a host's receive side on one device: the driver, the host timing model over the
// device (mapped at DefaultDeviceBase, the LH buffer write-back cacheable as paper 4.2 maps
// it), the unexpected queue the configuration calls for (LHSQueue with LHS on, RingQueue
// with it off) and the matching engine over it, charging DefaultCosts to cpu.
type Stack struct {
	Host   *drivers.Host
	Model  *HostModel
	Queue  Queue
	LHS    *LHSQueue // Queue with LHS on (nil with it off): Held and Spill
	Engine *Engine
}

// OpenStack programs dev with hc (drivers.NewHost) and builds the receive side over it. The
// engine knows no communicator yet (Engine.AddComm).
func OpenStack(dev drivers.Bus, cpu *hostcpu.CPU, hc drivers.Config) (*Stack, error) {
	h, err := drivers.NewHost(dev, hc)
	if err != nil {
		return nil, err
	}
	m, err := NewHostModel(cpu, dev, DefaultDeviceBase, true)
	if err != nil {
		return nil, err
	}
	s := &Stack{Host: h, Model: m}
	if hc.LHS {
		s.LHS, err = NewLHSQueue(h, m)
		s.Queue = s.LHS
	} else {
		s.Queue, err = NewRingQueue(h, m)
	}
	if err != nil {
		return nil, err
	}
	s.Engine = NewEngine(s.Queue, cpu, DefaultCosts())
	return s, nil
}
