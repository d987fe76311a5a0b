package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/lhsim/lhsim/experiment/rx"
)

func init() {
	register("search", searchSummary, runSearch)
}

const searchSummary = "unexpected-queue search time: no LHS, LHS, QsNET-II (paper Figure 6)"

func runSearch(args []string) error {
	cfg := rx.DefaultSearch()
	fs := newFlags("search", searchSummary)
	dev := addDeviceFlags(fs)
	intVar(fs, &cfg.MaxDepth, "max-depth", 1, 1<<20, "deepest search (messages ahead of the target); the RTL holds 1024 entries")
	depths := fs.String("depths", "", "comma-separated depths instead of the log-spaced 0..max-depth")
	seedVar(fs, &cfg.Seed, "seed", "seed of the non-target tags and the board")
	cpi := float64(cfg.CPU.CPIMilli) / 1000
	floatVar(fs, &cpi, "cpi", 0.001, 1000, "host cycles per instruction of the search loop (sensitivity; the default is an assumption, see docs/search.md)")
	intVar(fs, &cfg.SODIMMReadLatency, "sodimm-latency", 0, 1<<20, "what-if: SO-DIMM read latency in device cycles (0: the device default)")
	fs.BoolVar(&cfg.Native, "native", false, "also time the search on this machine's CPU (contiguous entries vs a scattered list)")
	out := addOutputFlags(fs)
	plotOut := addPlotFlag(fs, "draw Figure 6 to this .svg or .png file")
	addJobsFlag(fs)
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
	if err := dev.sizeAt(fs, 12, "the search's MPI messages"); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	if *depths != "" {
		for _, s := range strings.Split(*depths, ",") {
			d, err := parseInt(strings.TrimSpace(s), 0, 1<<20)
			if err != nil {
				return badUsage(fs, fmt.Errorf("--depths %s: %s: %w", *depths, s, err))
			}
			cfg.Depths = append(cfg.Depths, int(d))
		}
	}
	cfg.CPU.CPIMilli = int64(cpi*1000 + 0.5)
	if _, _, err := cfg.Plan(); err != nil {
		return badUsage(fs, errors.New(strings.TrimPrefix(err.Error(), "search: ")))
	}
	if err := plotOut.check(fs); err != nil {
		return err
	}
	depthList, _, _ := cfg.Plan()
	bar := newProgress(out.json, "search", int64(rx.SearchSteps(len(depthList))), "steps")
	// Every step of every part counts, whichever part ran it (--jobs).
	var mu sync.Mutex
	var steps int64
	cfg.Progress = func(_, _ int, step string) {
		mu.Lock()
		defer mu.Unlock()
		steps++
		bar.set(steps, "("+step+")")
	}
	res, err := runParts(fs, "search", cfg, cfg.Parts(), rx.RunSearch,
		func(parts []*rx.SearchResult) (*rx.SearchResult, error) { return rx.MergeSearch(cfg, parts) })
	bar.finish(err == nil)
	if err != nil {
		return err
	}
	return report(out, plotOut, res)
}
