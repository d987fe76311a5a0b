package main

import (
	"fmt"
	"os"

	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/waves"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

func init() {
	register("trace", traceSummary, runTrace)
}

const traceSummary = "record a short scenario's waveform (FST) with a GTKWave save file (the RTL, in this process)"

func runTrace(args []string) error {
	fs := newFlags("trace", traceSummary)
	dir := fs.String("dir", "build/waves", "folder for lhsim.fst and lhsim.gtkw")
	if err := parse(fs, args); err != nil {
		return err
	}
	r, err := waves.Record(*dir)
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
