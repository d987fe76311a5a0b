package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
)

func init() {
	register("search", searchSummary, runSearch)
}

const searchSummary = "unexpected-queue search time: no LHS, LHS, QsNET-II (paper Figure 6)"

func runSearch(args []string) error {
	cfg := experiment.DefaultSearch()
	fs := newFlags("search", searchSummary)
	dev := addDeviceFlags(fs)
	fs.IntVar(&cfg.MaxDepth, "max-depth", cfg.MaxDepth, "deepest search (messages ahead of the target); the RTL holds 1024 entries")
	depths := fs.String("depths", "", "comma-separated depths instead of the log-spaced 0..max-depth")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the non-target tags and the board")
	cpi := fs.Float64("cpi", float64(cfg.Host.CPIMilli)/1000, "host cycles per instruction of the search loop (sensitivity; the default is an assumption, see docs/search.md)")
	fs.IntVar(&cfg.SODIMMReadLatency, "sodimm-latency", 0, "what-if: SO-DIMM read latency in device cycles (0: the device default)")
	fs.BoolVar(&cfg.Native, "native", false, "also time the search on this machine's CPU (contiguous entries vs a scattered list)")
	out := addOutputFlags(fs)
	plotOut := fs.String("plot", "", "draw Figure 6 to this .svg or .png file")
	if err := parse(fs, args); err != nil {
		return err
	}
	dc, err := dev.config(fs)
	if err != nil {
		return err
	}
	cfg.Model, cfg.Bridge, cfg.Entries = string(dc.Model), dc.Bridge, dc.Entries
	if cfg.Driver, err = dev.host(fs, cfg.Driver); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if *depths != "" {
		for _, s := range strings.Split(*depths, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return badUsage(fs, fmt.Errorf("--depths: %w", err))
			}
			cfg.Depths = append(cfg.Depths, d)
		}
	}
	switch {
	case cfg.MaxDepth < 0:
		return badUsage(fs, fmt.Errorf("--max-depth %d: want 1 or more", cfg.MaxDepth))
	case cfg.SODIMMReadLatency < 0:
		return badUsage(fs, fmt.Errorf("--sodimm-latency %d: want 0 (the device's default) or more cycles", cfg.SODIMMReadLatency))
	}
	for _, d := range cfg.Depths {
		if d < 0 {
			return badUsage(fs, fmt.Errorf("--depths: %d is negative", d))
		}
	}
	if *cpi <= 0 || *cpi > 1000 {
		return badUsage(fs, fmt.Errorf("--cpi %g: want a positive number of cycles per instruction (at most 1000)", *cpi))
	}
	cfg.Host.CPIMilli = int64(*cpi*1000 + 0.5)
	if _, _, err := cfg.Plan(); err != nil {
		return badUsage(fs, errors.New(strings.TrimPrefix(err.Error(), "search: ")))
	}
	if *plotOut != "" {
		if err := experiment.CheckPlotFile(*plotOut); err != nil {
			return badUsage(fs, fmt.Errorf("--plot: %w", err))
		}
		if err := canCreate(*plotOut); err != nil {
			return badUsage(fs, fmt.Errorf("--plot: %w", err))
		}
	}
	depthList, _, _ := cfg.Plan()
	bar := newProgress(out.json, "search", int64(experiment.SearchSteps(len(depthList))), "steps")
	cfg.Progress = func(done, _ int, step string) { bar.set(int64(done), "("+step+")") }
	res, err := experiment.RunSearch(cfg)
	bar.finish(err == nil)
	if err != nil {
		return err
	}
	if err := out.write(res, res.WriteTable); err != nil {
		return err
	}
	if *plotOut != "" {
		return res.WritePlot(*plotOut)
	}
	return nil
}
