package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/internal/cli"
	"github.com/lhsim/lhsim/internal/flagval"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/waves"
)

func init() {
	register(&command{name: "trace", summary: "record a short scenario's waveform (FST) with a GTKWave save file (the RTL, in this process)", flags: traceFlags})
}

func traceFlags(r *runner) func() error {
	dir := r.fs.String("dir", "build/waves", "folder for lhsim.fst and lhsim.gtkw")
	var at int64 = -1
	flagval.Int64(r.fs, &at, "at", -1, 1<<50, "instead: write a GTKWave save file that opens --dump at this cycle (a timeline's fst_cycle; docs/timeline.md)")
	dump := r.inFile("dump", "with --at: the waveform (an FST written by incast --trace)")
	save := r.regularFile("save", "with --at: the save file to write (default: beside the dump, NAME-cycleN.gtkw)")
	return func() error {
		if at >= 0 || *dump != "" {
			return traceAt(r, uint64(at), at >= 0, *dump, *save)
		}
		return traceRecord(*dir)
	}
}

// traceRecord records the default scenario into dir.
func traceRecord(dir string) error {
	r, err := waves.Record(dir)
	if err != nil {
		return err
	}
	fmt.Printf("%d messages, short and long, the LH buffer filled and released, a VS and a VL: %d cycles\n", r.Messages, r.Cycles)
	t := tablewriter.NewTable(os.Stdout, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("marker", "event", "time (ns)", "board cycle")
	for i, m := range r.Markers {
		if err := t.Append(string(rune('A'+i)), m.Name, fmt.Sprint(m.Time), fmt.Sprint(m.Time/waves.CycleTime-hw.ResetCycles)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Printf("waveform %s\nsave file %s\nopen with: gtkwave %s %s\n", r.Dump, r.Save, r.Dump, r.Save)
	return nil
}

// traceAt writes a save file that opens dump with a marker at a board cycle, the window
// around it on the screen: cycle c is at (c + hw.ResetCycles) cycle times in the FST, the
// count waves.Events' markers and lhsnic.Node.OnCommit use.
func traceAt(r *runner, cycle uint64, haveAt bool, dump, save string) error {
	if !haveAt || dump == "" {
		return r.usage("--at CYCLE and --dump FILE.fst go together")
	}
	if _, err := os.Stat(dump); err != nil {
		return r.usage("--dump: %w", err)
	}
	if save == "" {
		save = fmt.Sprintf("%s-cycle%d.gtkw", strings.TrimSuffix(dump, filepath.Ext(dump)), cycle)
	}
	m := waves.Marker{Name: fmt.Sprintf("cycle %d", cycle), Time: (cycle + hw.ResetCycles) * waves.CycleTime}
	if err := cli.WriteFile("--save", save, waves.ForRun(dump, gosim.DefaultParams, []waves.Marker{m}).Write); err != nil {
		return err
	}
	fmt.Printf("save file %s: %s at %d ns\nopen with: gtkwave %s %s\n", save, m.Name, m.Time, dump, save)
	return nil
}
