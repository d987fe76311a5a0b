package main

import (
	"flag"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment"
)

// deviceFlags are the flags of every command that opens a device: which one (--model,
// --bridge, --entries) and how the host programs it (--split-pos, --size-pos).
type deviceFlags struct {
	model, bridge     string
	entries           int
	splitPos, sizePos uint
}

func addDeviceFlags(fs *flag.FlagSet) *deviceFlags {
	d := &deviceFlags{}
	fs.StringVar(&d.model, "model", "", "rtl (Verilated RTL), go (golden model) or lockstep (both, compared every cycle); default $LHSIM_MODEL, else rtl")
	fs.StringVar(&d.bridge, "bridge", "", "where the device runs: cgo (this process) or plugin (its own process; docs/plugin.md); default $LHSIM_BRIDGE, else cgo")
	intVar(fs, &d.entries, "entries", 0, 1<<20, "LH buffer entries, a power of two (0: the RTL build's 1024; other sizes need --model go)")
	fs.UintVar(&d.splitPos, "split-pos", 48, "SPLIT_POS: head bytes kept in the LH entry of a split message (16, 32 or 48)")
	fs.UintVar(&d.sizePos, "size-pos", 12, "SIZE_POS: byte offset of the size field in the message (0, 4, 8 or 12)")
	return d
}

// config is the device the flags choose, with the environment's defaults (device.FromEnv).
func (d *deviceFlags) config(r *runner) (device.Config, error) {
	cfg := device.Config{Model: device.Model(d.model), Bridge: device.Bridge(d.bridge), Entries: d.entries}
	if d.model != "" {
		if _, err := device.ParseModel(d.model); err != nil {
			return cfg, r.usage("--model: %w", err)
		}
	}
	if d.bridge != "" {
		if _, err := device.ParseBridge(d.bridge); err != nil {
			return cfg, r.usage("--bridge: %w", err)
		}
	}
	cfg, err := device.FromEnv(cfg)
	if err != nil {
		return cfg, r.badUsage(err)
	}
	return cfg.WithDefaults(), nil
}

// host sets the host's split and size positions in h from the flags. A command whose
// messages carry their size field at byte at (the MPI envelope's 12) names them in whose,
// and refuses another --size-pos: the device would read the wrong bytes as the size.
func (d *deviceFlags) host(r *runner, h drivers.Config, at uint, whose string) (drivers.Config, error) {
	switch d.splitPos {
	case 16, 32, 48:
		h.SplitPos = uint32(d.splitPos)
	default:
		return h, r.usage("--split-pos %d: want 16, 32 or 48", d.splitPos)
	}
	switch d.sizePos {
	case 0:
		h.SizePos = drivers.SizeAtZero
	case 4, 8, 12:
		h.SizePos = uint32(d.sizePos)
	default:
		return h, r.usage("--size-pos %d: want 0, 4, 8 or 12", d.sizePos)
	}
	if whose != "" && d.sizePos != at {
		return h, r.usage("--size-pos %d: %s carry their size field at byte %d; only lhsim demo moves it", d.sizePos, whose, at)
	}
	return h, nil
}

// traceFile defines --trace, a waveform of the Verilated RTL, on a command that opens a
// device.
func (r *runner) traceFile(usage string) *string { return r.regularFile("trace", usage) }

// checkTrace refuses a --trace on a model with no RTL to record.
func checkTrace(r *runner, model device.Model, trace string) error {
	if trace != "" && model == device.Go {
		return r.usage("--trace records the Verilated RTL; --model go has none (use rtl or lockstep)")
	}
	return nil
}

// parsedFlag is a flag whose text is read once, where it enters, into the typed value the
// command's config holds (a topology, a list of them): Set parses, as flag.TextVar would;
// String gives the text back, which --slurm's array tasks are run with. A text that does not
// parse is kept for check, which the command calls where it refuses its other values, so
// that the message is the one form every refused value takes ("--topology: topology
// \"ring:8\": unknown kind ...") rather than the flag package's.
type parsedFlag struct {
	name, text string
	parse      func(s string) error
	err        error
}

func (f *parsedFlag) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *parsedFlag) Set(s string) error {
	if f.err = f.parse(s); f.err == nil {
		f.text = s
	}
	return nil
}

// check refuses the text the flag could not read, a mistake on the command line.
func (f *parsedFlag) check(r *runner) error {
	if f.err != nil {
		return r.usage("--%s: %w", f.name, f.err)
	}
	return nil
}

// parsedVar defines --name, read by parse from the text def (the default's) on.
func parsedVar(fs *flag.FlagSet, name, def, usage string, parse func(string) error) *parsedFlag {
	f := &parsedFlag{name: name, text: def, parse: parse}
	fs.Var(f, name, usage)
	return f
}

// topologyVar defines --name, a topology (experiment.ParseTopology) into p, whose value is
// the default. With optional, the empty text is none (the zero Topology).
func topologyVar(fs *flag.FlagSet, p *experiment.Topology, name string, optional bool, usage string) *parsedFlag {
	return parsedVar(fs, name, p.String(), usage, func(s string) (err error) {
		if optional && s == "" {
			*p = experiment.Topology{}
			return nil
		}
		*p, err = experiment.ParseTopology(s)
		return err
	})
}

// topologiesVar defines --name, a comma-separated list of topologies
// (experiment.ParseTopologies) into p, whose value is the default.
func topologiesVar(fs *flag.FlagSet, p *experiment.Topologies, name, usage string) *parsedFlag {
	return parsedVar(fs, name, p.String(), usage, func(s string) (err error) {
		*p, err = experiment.ParseTopologies(s)
		return err
	})
}
