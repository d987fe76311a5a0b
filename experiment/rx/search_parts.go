package rx

// The search experiment in parts (lhsim search --jobs): each rig with each compiled loop is a
// run of its own, with its own device (and so its own Verilated model, pinned to its own
// thread) and its own random tags drawn from the seed, as RunSearch runs them one after
// another; Merge puts their curves together into RunSearch's result.

import (
	"errors"
	"fmt"
	"maps"

	"github.com/lhsim/lhsim/experiment"
)

// The rigs, as SearchRun names them.
const (
	RigNoLHS  = "no LHS"
	RigLHS    = "LHS"
	RigQsNet2 = "QsNET-II"
)

// SearchRun is one part of the search: a rig with a compiled loop (SearchLoops' Name).
type SearchRun struct {
	Rig  string
	Loop string
}

// Parts are the experiment's runs in RunSearch's order: the three rigs with the headline's
// loop, then the no-LHS and LHS rigs with every other loop. The native timing is not a part:
// Merge runs it alone, after them, when cfg.Native asks.
func (cfg SearchConfig) Parts() []experiment.Part[SearchConfig] {
	var out []experiment.Part[SearchConfig]
	add := func(rig string, l SearchLoop) {
		c := cfg
		c.Native = false
		c.Run = &SearchRun{Rig: rig, Loop: l.Name}
		out = append(out, experiment.Part[SearchConfig]{Label: rig + ", " + l.Name, Config: c})
	}
	for _, rig := range []string{RigNoLHS, RigLHS, RigQsNet2} {
		add(rig, cfg.Loop)
	}
	for _, l := range SearchLoops {
		if l.Name != cfg.Loop.Name {
			add(RigNoLHS, l)
			add(RigLHS, l)
		}
	}
	return out
}

// JobMemory is what one part may take: a device and a host model, a few MiB. Measured
// (/usr/bin/time), a whole search peaks at 36 to 46 MB resident on the RTL or the Go model at
// depths up to 4,095 (--jobs 1), of which the process takes 30 MB before it runs anything.
func (cfg SearchConfig) JobMemory() int64 { return 16 << 20 }

// runSearchPart runs cfg.Run's rig with its loop and returns its curves (and, for the no-LHS
// rig, the VL figures), unfitted; its errors read as RunSearch's.
func runSearchPart(cfg SearchConfig, depths []int, entries int) (*SearchResult, error) {
	var loop *SearchLoop
	for i := range SearchLoops {
		if SearchLoops[i].Name == cfg.Run.Loop {
			loop = &SearchLoops[i]
		}
	}
	if cfg.Loop.Name == cfg.Run.Loop {
		loop = &cfg.Loop
	}
	if loop == nil {
		return nil, fmt.Errorf("search: no compiled loop %q", cfg.Run.Loop)
	}
	headline := cfg.Loop.Name == loop.Name
	cfg.Loop = *loop
	res := newSearchResult(cfg, depths)
	var err error
	switch cfg.Run.Rig {
	case RigNoLHS:
		err = runSearchNoLHS(cfg, depths, res)
	case RigLHS:
		err = runSearchLHS(cfg, depths, entries, res)
	case RigQsNet2:
		if !headline {
			return nil, fmt.Errorf("search: QsNET-II runs with the headline's loop only, not %s", loop.Name)
		}
		err = runSearchQsNet(cfg, depths, res)
	default:
		return nil, fmt.Errorf("search: no rig %q", cfg.Run.Rig)
	}
	if err == nil {
		return res, nil
	}
	what := map[string]string{RigNoLHS: "search without LHS", RigLHS: "search with LHS", RigQsNet2: "search on QsNET-II"}[cfg.Run.Rig]
	if !headline {
		return nil, fmt.Errorf("%s, %s: %w", what, loop.Name, err)
	}
	return nil, fmt.Errorf("%s: %w", what, err)
}

// Merge puts the results of cfg's Parts (in any order: each says its loop and carries
// its rig's curves) together into what RunSearch(cfg) returns. It leaves the parts as they
// were.
func (cfg SearchConfig) Merge(parts []*SearchResult) (*SearchResult, error) {
	depths, _, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	res := newSearchResult(cfg, depths)
	others := map[string]*SearchResult{}
	for _, p := range parts {
		if p == nil || len(p.Depths) != len(depths) {
			return nil, errors.New("search: a part is missing or of another sweep")
		}
		into := res
		if p.Inputs.Loop != cfg.Loop.Name {
			if into = others[p.Inputs.Loop]; into == nil {
				lc := cfg
				lc.Loop.Name = p.Inputs.Loop
				into = newSearchResult(lc, depths)
				others[p.Inputs.Loop] = into
			}
		}
		for k := range p.Series {
			if _, dup := into.Series[k]; dup {
				return nil, fmt.Errorf("search: curve %s of loop %s twice among the parts", k, p.Inputs.Loop)
			}
		}
		maps.Copy(into.Series, p.Series)
		if p.VL.Count > 0 {
			into.VL = p.VL
		}
	}
	for _, k := range searchAblationOrder {
		if len(res.Series[k]) != len(depths) {
			return nil, fmt.Errorf("search: no part gave the curve %s", k)
		}
	}
	err = res.finish(cfg, func(l SearchLoop) (*SearchResult, error) {
		o := others[l.Name]
		if o == nil || len(o.Series[CurveNoLHS]) != len(depths) || len(o.Series[CurveLHS]) != len(depths) {
			return nil, fmt.Errorf("search: no parts gave the no-LHS and LHS curves of %s", l.Name)
		}
		return o, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Validate refuses, before any work, a search the device cannot make (an
// experiment.InputError): depths past its entries, a CPU model that makes no sense.
func (cfg SearchConfig) Validate() error {
	_, _, err := cfg.Plan()
	return experiment.Input(err)
}
