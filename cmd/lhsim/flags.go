package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/fabric"
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
func (d *deviceFlags) config(fs *flag.FlagSet) (device.Config, error) {
	cfg := device.Config{Model: device.Model(d.model), Bridge: device.Bridge(d.bridge), Entries: d.entries}
	if d.model != "" {
		if _, err := device.ParseModel(d.model); err != nil {
			return cfg, badUsage(fs, fmt.Errorf("--model: %w", err))
		}
	}
	if d.bridge != "" {
		if _, err := device.ParseBridge(d.bridge); err != nil {
			return cfg, badUsage(fs, fmt.Errorf("--bridge: %w", err))
		}
	}
	cfg, err := device.FromEnv(cfg)
	if err != nil {
		return cfg, badUsage(fs, err)
	}
	return cfg.WithDefaults(), nil
}

// sizeAt refuses a --size-pos other than at on a command whose messages carry their size
// field there (the MPI envelope's byte 12): the device would read the wrong bytes as the size.
func (d *deviceFlags) sizeAt(fs *flag.FlagSet, at uint, whose string) error {
	if d.sizePos != at {
		return badUsage(fs, fmt.Errorf("--size-pos %d: %s carry their size field at byte %d; only lhsim demo moves it", d.sizePos, whose, at))
	}
	return nil
}

// host sets the host's split and size positions in h from the flags.
func (d *deviceFlags) host(fs *flag.FlagSet, h drivers.Config) (drivers.Config, error) {
	switch d.splitPos {
	case 16, 32, 48:
		h.SplitPos = uint32(d.splitPos)
	default:
		return h, badUsage(fs, fmt.Errorf("--split-pos %d: want 16, 32 or 48", d.splitPos))
	}
	switch d.sizePos {
	case 0:
		h.SizePos = drivers.SizeAtZero
	case 4, 8, 12:
		h.SizePos = uint32(d.sizePos)
	default:
		return h, badUsage(fs, fmt.Errorf("--size-pos %d: want 0, 4, 8 or 12", d.sizePos))
	}
	return h, nil
}

// outputFlags are --json and --out, the same on every command that reports a result, and
// --plot on those that draw it: the one writer of a command's output files. check finds a
// file that cannot be written before any work starts (leaving none there); the writes go to
// a file beside and are renamed into place once whole, so a run that fails, or a result
// that cannot be encoded, leaves no empty or partial file.
type outputFlags struct {
	json bool
	out  string
	plot *plotFlag
}

func addOutputFlags(fs *flag.FlagSet) *outputFlags {
	o := &outputFlags{}
	fs.BoolVar(&o.json, "json", false, "print the result as JSON on stdout instead of the table")
	fs.StringVar(&o.out, "out", "", "also write the result as JSON to this file")
	return o
}

// plotFlag is --plot on the commands that draw their result with experiment's plots.
type plotFlag struct{ file string }

func addPlotFlag(fs *flag.FlagSet, usage string) *plotFlag {
	p := &plotFlag{}
	fs.StringVar(&p.file, "plot", "", usage)
	return p
}

// check refuses, before any work starts, a plot file experiment cannot draw or that
// cannot be written.
func (p *plotFlag) check(fs *flag.FlagSet) error {
	if p == nil || p.file == "" {
		return nil
	}
	if err := experiment.CheckPlotFile(p.file); err != nil {
		return badUsage(fs, fmt.Errorf("--plot: %w", err))
	}
	if err := canCreate(p.file); err != nil {
		return badUsage(fs, fmt.Errorf("--plot: %w", err))
	}
	return nil
}

// report writes a result as the table (or JSON), then its plot if --plot asked for one.
func report(out *outputFlags, plot *plotFlag, res experiment.Figure) error {
	if err := out.write(res, res.WriteTable); err != nil {
		return err
	}
	if plot != nil && plot.file != "" {
		return replaceFile(plot.file, res.WritePlot)
	}
	return nil
}

// checkResume refuses, beside --resume, any of runFlags: the run is the checkpoint's, and a
// flag that would change it is a mistake, not ignored.
func checkResume(fs *flag.FlagSet, runFlags ...string) error {
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(runFlags, f.Name) {
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return badUsage(fs, fmt.Errorf("--resume takes the run from the checkpoint; leave out %s", strings.Join(clash, ", ")))
	}
	return nil
}

// check finds an --out file that cannot be written before any work starts, leaving none.
func (o *outputFlags) check(fs *flag.FlagSet) error {
	if o.out == "" {
		return nil
	}
	if err := canCreate(o.out); err != nil {
		return badUsage(fs, fmt.Errorf("--out: %w", err))
	}
	return nil
}

// checkTrace finds a --trace that cannot be honoured before any work starts: a model with
// no RTL to record, a file that cannot be written.
func checkTrace(fs *flag.FlagSet, cfg device.Config) error {
	if cfg.Trace == "" {
		return nil
	}
	if cfg.Model == device.Go {
		return badUsage(fs, errors.New("--trace records the Verilated RTL; --model go has none (use rtl or lockstep)"))
	}
	if err := canCreate(cfg.Trace); err != nil {
		return badUsage(fs, fmt.Errorf("--trace: %w", err))
	}
	return nil
}

// canCreate reports whether a file can be written at path, without leaving one there.
func canCreate(path string) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path)
}

// write prints v: JSON with --json, else the table; and writes JSON to --out. v is encoded
// before anything is written, so that a value JSON cannot hold (NaN, an infinity) fails the
// command with no output rather than half of it.
func (o *outputFlags) write(v any, table func(io.Writer) error) error {
	var js bytes.Buffer
	if o.out != "" || o.json {
		if err := writeJSON(&js, v); err != nil {
			return fmt.Errorf("the result cannot be written as JSON: %w", err)
		}
	}
	if o.out != "" {
		err := replaceFile(o.out, func(tmp string) error { return os.WriteFile(tmp, js.Bytes(), 0o644) })
		if err != nil {
			return err
		}
	}
	if o.json {
		_, err := os.Stdout.Write(js.Bytes())
		return err
	}
	return table(os.Stdout)
}

// replaceFile writes path through write, which is given a file beside it (same folder, same
// extension) to write; renamed to path once write succeeded, removed otherwise.
func replaceFile(path string, write func(tmp string) error) error {
	ext := filepath.Ext(path)
	f, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), ext)+".*"+ext)
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	err = write(tmp)
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// errMsg is an error with exactly this text.
type errMsg string

func (e errMsg) Error() string { return string(e) }

// checkTopology reads a --topology value (flag names it) and refuses, before any work
// starts, a network the run cannot use: fewer than minNodes nodes (a barrier or an incast
// needs two), or one that does not fit in memory (fabric.CheckFits: the estimate and the
// limit).
func checkTopology(fs *flag.FlagSet, flag, s string, fc fabric.Config, minNodes int) (fabric.Topology, error) {
	topo, err := fabric.ParseTopology(s)
	if err != nil {
		return nil, badUsage(fs, fmt.Errorf("--%s: %w", flag, err))
	}
	if topo.Nodes() < minNodes {
		return nil, badUsage(fs, fmt.Errorf("--%s %s: %d node; want at least %d", flag, s, topo.Nodes(), minNodes))
	}
	if err := fabric.CheckFits(topo, fc); err != nil {
		return nil, badUsage(fs, fmt.Errorf("--%s: %w", flag, err))
	}
	return topo, nil
}
