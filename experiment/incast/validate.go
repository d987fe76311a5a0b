package incast

import (
	"slices"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment"
)

// Validate refuses, before any work, what the experiment cannot run (an
// experiment.InputError), naming the flags that chose it.
func (cfg Config) Validate() error {
	topo, err := experiment.CheckTopology("topology", cfg.Topology, cfg.Fabric, 2)
	if err != nil {
		return err
	}
	if cfg.Receivers >= topo.Nodes() {
		return experiment.Refuse("--receivers %d: %s has %d nodes, and at least one must send: want 1 to %d", cfg.Receivers, cfg.Topology, topo.Nodes(), topo.Nodes()-1)
	}
	if cfg.Bridge != device.Cgo && cfg.Bridge != device.Plugin {
		return experiment.Refuse("--bridge %q: want cgo or plugin", cfg.Bridge)
	}
	if cfg.Model != nicGo && cfg.Model != nicTLM {
		return experiment.Refuse("--model %q: want go or tlm", cfg.Model)
	}
	switch {
	case cfg.Host != HostMPI && cfg.Host != HostCosts:
		return experiment.Refuse("--host %q: want mpi or costs", cfg.Host)
	case cfg.Host == HostMPI && cfg.Model == nicTLM && cfg.RTLNodes != nil:
		return experiment.Refuse("--model tlm has no host bus for the MPI host to run on: add --host costs")
	}
	for _, n := range cfg.RTLNodes {
		if n < 0 || n >= cfg.Receivers {
			return experiment.Refuse("--rtl-nodes: %d is not a receiver (0..%d)", n, cfg.Receivers-1)
		}
	}
	if cfg.Trace != "" {
		if cfg.TraceNode >= cfg.Receivers {
			return experiment.Refuse("--trace %d: not a receiver (0..%d)", cfg.TraceNode, cfg.Receivers-1)
		}
		if cfg.RTLNodes != nil && !slices.Contains(cfg.RTLNodes, cfg.TraceNode) {
			return experiment.Refuse("--trace %d: that receiver runs --model %s, which has no waveform (add it to --rtl-nodes)", cfg.TraceNode, cfg.Model)
		}
		if cfg.Bridge != device.Cgo {
			return experiment.Refuse("--trace records the waveform in this process: use --bridge cgo")
		}
	}
	return nil
}
