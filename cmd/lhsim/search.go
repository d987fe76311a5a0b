package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/experiment"
)

func init() {
	register("search", "unexpected-queue search time: no LHS, LHS, QsNET-II (paper Figure 6)", runSearch)
}

func runSearch(args []string) error {
	cfg := experiment.DefaultSearch()
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.StringVar(&cfg.Model, "model", cfg.Model, "device: rtl (Verilated RTL) or go (golden model)")
	fs.IntVar(&cfg.MaxDepth, "max-depth", cfg.MaxDepth, "deepest search (messages ahead of the target); the RTL holds 1024 entries")
	depths := fs.String("depths", "", "comma-separated depths instead of the log-spaced 0..max-depth")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the non-target tags and the board")
	cpi := fs.Float64("cpi", float64(cfg.Host.CPIMilli)/1000, "host cycles per instruction of the search loop (sensitivity; the default is an assumption, see docs/search.md)")
	fs.IntVar(&cfg.SODIMMReadLatency, "sodimm-latency", 0, "what-if: SO-DIMM read latency in device cycles (0: the device default)")
	fs.BoolVar(&cfg.Native, "native", false, "also time the search on this machine's CPU (contiguous entries vs a scattered list)")
	jsonOut := fs.String("json", "", "write the result as JSON to this file (- for stdout, instead of the table)")
	plotOut := fs.String("plot", "", "draw Figure 6 to this .svg or .png file")
	bridge := bridgeFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := useBridge(bridge); err != nil {
		return err
	}
	if *depths != "" {
		for _, s := range strings.Split(*depths, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("--depths: %w", err)
			}
			cfg.Depths = append(cfg.Depths, d)
		}
	}
	cfg.Host.CPIMilli = int64(*cpi*1000 + 0.5)
	res, err := experiment.RunSearch(cfg)
	if err != nil {
		return err
	}
	if *jsonOut == "-" {
		return res.WriteJSON(os.Stdout)
	}
	if err := res.WriteTable(os.Stdout); err != nil {
		return err
	}
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return err
		}
		if err := res.WriteJSON(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if *plotOut != "" {
		return res.WritePlot(*plotOut)
	}
	return nil
}
