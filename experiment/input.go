package experiment

import (
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/memlimit"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// InputError is a run refused because what the user gave it is wrong (a flag's value, an
// input file that does not parse, a configuration that cannot run), as opposed to a run
// that failed: lhsim exits 2 for the one and 1 for the other. It is the one form every
// experiment refuses its input in; Validate methods return it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Refuse is an InputError with a message, as fmt.Errorf formats it.
func Refuse(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// Input marks err, when not nil, as the input's fault.
func Input(err error) error {
	if err == nil || IsInput(err) {
		return err
	}
	return &InputError{err}
}

// IsInput reports whether err refuses what the user gave: an InputError, a checkpoint file
// that is not one, a network too big for memory.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie) || errors.Is(err, checkpoint.ErrFormat) || errors.Is(err, fabric.ErrTooBig)
}

// MemoryLimit is the memory a run may take, and which limit it is (memlimit: ulimit -v, the
// cgroup, GOMEMLIMIT or the memory available), which the network estimates are held to.
func MemoryLimit() memlimit.Limit { return memlimit.Current() }

// CheckTopology refuses, before any work, a network the run cannot use: none (the zero
// Topology), fewer than minNodes nodes (a barrier or an incast needs two), or one that does
// not fit in memory (fabric.CheckFits: the estimate and the limit). flag names the topology's
// flag in the message; the topology was parsed where it entered.
func CheckTopology(flag string, t Topology, fc fabric.Config, minNodes int) (fabric.Topology, error) {
	topo := t.Fabric()
	if topo == nil {
		return nil, Refuse("--%s: no topology", flag)
	}
	if topo.Nodes() < minNodes {
		return nil, Refuse("--%s %s: %d node; want at least %d", flag, t, topo.Nodes(), minNodes)
	}
	if err := fabric.CheckFits(topo, fc); err != nil {
		return nil, Refuse("--%s: %w", flag, err)
	}
	return topo, nil
}

// Repeated says which entries of a list the user gave twice (a node in --rtl-nodes, a
// matcher in --matchers): each names one thing, so a second mention is a mistake, not a
// second run. name is the list's name in the message.
func Repeated[T comparable](name string, list []T) error {
	seen := make(map[T]bool, len(list))
	for _, v := range list {
		if seen[v] {
			return fmt.Errorf("%s: %v is named twice", name, v)
		}
		seen[v] = true
	}
	return nil
}
