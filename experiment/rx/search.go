package rx

// The unexpected-queue search experiment: the paper's Figure 6 (section 5.1). For each queue
// depth X, X+1 eager messages really arrive through the NIC (the Verilated RTL or the Go
// golden model); the target is the last of them. Then a receive searches the unexpected queue
// for it, and the host timing model (gosim/hostcpu) says how long the search took:
//
//   - no LHS: every message whole in SO-DIMM, one 16-byte VL per envelope (its NIC-side time
//     counted in device cycles);
//   - LHS: envelopes read by PIO from LH entries mapped write-back cacheable;
//   - QsNET-II: a NIC thread processor walking a list in NIC DRAM (gosim/qsnet).
//
// The per-message cost is the least-squares slope of search time against depth.
//
// This file holds the configuration, the result and RunSearch, which puts them together. The
// rest: search_rigs.go (the three rigs), fit.go (the line fit), search_report.go (table, JSON,
// plot), search_native.go (the same search timed on this machine), cpuinfo.go (its CPU name).

import (
	"fmt"
	"sort"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/gosim/qsnet"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Figure = (*SearchResult)(nil)
	_ experiment.Table  = (*SearchNativeResult)(nil)
)

// Paper figures (section 5.1.3, 5.1.4), for comparison only: nothing is fitted to them.
const (
	PaperNoLHSNs  = 634.0
	PaperLHSNs    = 14.8
	PaperQsNet2Ns = 100.0
	PaperSpeedup  = 43.0
	PaperVsQsNet2 = 6.8
	PaperVLNs     = 600.0 // a VL as the host sees it, "about 600 ns" (5.1.4)
)

// The envelopes searched, in every rig and natively: all from one source and communicator.
const (
	searchTargetTag = 1 << 20 // the tag only the target message carries
	searchSource    = 1
	searchComm      = 0
)

// SearchConfig is what the user chose.
type SearchConfig struct {
	Model   device.Model  // rtl, go or lockstep
	Bridge  device.Bridge // where the device runs ("" is cgo)
	Entries int           // LH buffer entries; 0: the RTL build's 1024, or as deep as the search needs
	// Driver is how the host driver programs the NIC (SplitPos, MaxMsg...); LHS is set per
	// curve, and SizePos must be the MPI envelope's (12 or 0 for the default).
	Driver   drivers.Config
	MaxDepth int    // deepest search: MaxDepth messages ahead of the target
	Depths   []int  // explicit depths; empty means log-spaced 0..MaxDepth
	Seed     uint64 // tags of the non-target messages, board randomness
	CPU      hostcpu.Config
	QsNet    qsnet.Config
	// Loop is the compiled search loop whose instructions the host model charges (the
	// headline's); the result also gives the figures of every other loop of SearchLoops.
	Loop   SearchLoop
	Native bool // also time the search on this machine's CPU
	// SODIMMReadLatency overrides the device's SO-DIMM read latency in cycles (0: the
	// device's default, which docs/design.md sets for a 600 ns VL). A what-if knob only.
	SODIMMReadLatency int
	// Progress, when not nil, is called after each depth of each design (done of total
	// steps; step names the one done), from RunSearch's goroutine.
	Progress *experiment.Progress `json:"-"`
	// Run, when set, makes RunSearch run that one rig with that one loop (a part of
	// SearchConfig.Parts) and return its curves alone, for Merge.
	Run *SearchRun `json:"-"`

	tick func(step string) // Progress with the count kept, set by RunSearch
}

// step reports one depth of one design done.
func (c SearchConfig) step(design string, depth int) {
	if c.tick != nil {
		c.tick(fmt.Sprintf("%s, depth %d", design, depth))
	}
}

// DefaultSearch is the paper's set-up on the RTL, as deep as the default LH buffer holds.
func DefaultSearch() SearchConfig {
	return SearchConfig{
		Model:    device.RTL,
		MaxDepth: 1023,
		Seed:     1,
		CPU:      hostcpu.Pentium4(),
		QsNet:    qsnet.Default(),
		Loop:     SearchLoopO0,
	}
}

// LogDepths is 0 and the powers of two and 1.5 times powers of two up to max, then max.
func LogDepths(max int) []int {
	d := []int{0}
	for p := 1; p <= max; p *= 2 {
		d = append(d, p)
		if q := p + p/2; q > p && q <= max {
			d = append(d, q)
		}
	}
	if d[len(d)-1] != max && max > 0 {
		d = append(d, max)
	}
	sort.Ints(d)
	return d
}

// Curve keys, in table order.
const (
	CurveNoLHS            = "no_lhs"
	CurveLHS              = "lhs"
	CurveQsNet2           = "qsnet2"
	CurveLHSCold          = "lhs_cold"
	CurveLHSColdAdjacent  = "lhs_cold_adjacent_only"
	CurveLHSColdNoPrefeth = "lhs_cold_no_prefetch"
	CurveLHSUncached      = "lhs_uncached"
	CurveLHSInOrder       = "lhs_in_order"
)

// SearchResult is what a run measured. Times are in nanoseconds (the model's picoseconds
// divided by 1000). Sources says where each figure comes from, key for key (SearchSources).
type SearchResult struct {
	Model        string               `json:"model"`
	Seed         uint64               `json:"seed"`
	Depths       []int                `json:"depths"`
	PerMessageNs map[string]float64   `json:"per_message_ns"`
	InterceptNs  map[string]float64   `json:"intercept_ns"`
	Series       map[string][]float64 `json:"series_ns"`

	SpeedupLHSvsNoLHS     float64 `json:"speedup_lhs_vs_no_lhs"`
	SpeedupLHSvsQsNet2    float64 `json:"speedup_lhs_vs_qsnet2"`
	SpeedupLHSColdvsNoLHS float64 `json:"speedup_lhs_cold_vs_no_lhs"`

	Ablation []SearchAblationRow `json:"ablation"`
	Factors  map[string]float64  `json:"factors"`
	VL       SearchVLStats       `json:"vl"`
	// Inputs are the parameters the figures rest on, restated: what was put in.
	Inputs SearchInputs `json:"inputs"`
	// Loops are the headline's figures again for every compiled search loop (the first is
	// the headline's).
	Loops   []SearchLoopRow     `json:"loops"`
	Paper   map[string]float64  `json:"paper"`
	Sources map[string]any      `json:"sources"`
	Native  *SearchNativeResult `json:"native,omitempty"`
}

// SearchInputs are the parameters behind the figures that a reader might take for results.
type SearchInputs struct {
	// SODIMMReadLatencyCycles is the SO-DIMM model's read latency: chosen from the paper's
	// "about 600 ns" VL as the host sees it (gosim.DefaultSODIMM).
	SODIMMReadLatencyCycles int `json:"sodimm_read_latency_cycles"`
	// QsNet2DRAMNs is QsNET-II's time per list record: the paper's own QsNET-II figure.
	QsNet2DRAMNs float64 `json:"qsnet2_dram_ns"`
	// CPI is the host's cycles per instruction of the search loop (an assumption).
	CPI float64 `json:"cpi"`
	// Loop names the compiled loop the headline charges, LoopInstrPerMessage its
	// instructions per entry in front of the target (four fields compared).
	Loop                string `json:"loop"`
	LoopInstrPerMessage int    `json:"loop_instructions_per_message"`
	// MemLatencyNs and DeviceLatencyNs are the host model's main-memory and DIMM-slot
	// latencies (100 ns, the paper's 5.1.4).
	MemLatencyNs    float64 `json:"mem_latency_ns"`
	DeviceLatencyNs float64 `json:"device_latency_ns"`
}

// SearchLoopRow is the headline's figures with one compiled loop.
type SearchLoopRow struct {
	Loop                  string  `json:"loop"`
	InstrPerMessage       int     `json:"instructions_per_message"`
	NoLHSNs               float64 `json:"no_lhs_ns"`
	LHSNs                 float64 `json:"lhs_ns"`
	LHSColdNs             float64 `json:"lhs_cold_ns"`
	SpeedupLHSvsNoLHS     float64 `json:"speedup_lhs_vs_no_lhs"`
	SpeedupLHSvsQsNet2    float64 `json:"speedup_lhs_vs_qsnet2"`
	SpeedupLHSColdvsNoLHS float64 `json:"speedup_lhs_cold_vs_no_lhs"`
}

// Sources of the figures: "simulated" comes out of the device (RTL or golden model) and the
// host model running the search; "input" restates a parameter; "derived" is a ratio or a
// product of the others.
const (
	SourceSimulated = "simulated"
	SourceInput     = "input"
	SourceDerived   = "derived"
)

// curveSource is where each curve comes from: QsNET-II is its DRAM latency per record, the
// paper's own figure, so its curve is an input; the others are simulated.
func curveSource(key string) string {
	if key == CurveQsNet2 {
		return SourceInput
	}
	return SourceSimulated
}

// searchSources is the sources object of a result: the result's keys, each with the source
// of the figures under it (per curve where a key holds curves, per row where it holds rows).
func (r *SearchResult) searchSources() map[string]any {
	curves := map[string]string{}
	for k := range r.Series {
		curves[k] = curveSource(k)
	}
	ablation := make([]map[string]string, len(r.Ablation))
	for i, a := range r.Ablation {
		ablation[i] = map[string]string{"per_message_ns": curveSource(a.Key), "times_lhs": SourceDerived}
	}
	loops := make([]map[string]string, len(r.Loops))
	for i := range r.Loops {
		loops[i] = map[string]string{"instructions_per_message": SourceInput, "no_lhs_ns": SourceSimulated,
			"lhs_ns": SourceSimulated, "lhs_cold_ns": SourceSimulated, "speedup_lhs_vs_no_lhs": SourceDerived,
			"speedup_lhs_vs_qsnet2": SourceDerived, "speedup_lhs_cold_vs_no_lhs": SourceDerived}
	}
	return map[string]any{
		"per_message_ns":             curves,
		"intercept_ns":               curves,
		"series_ns":                  curves,
		"speedup_lhs_vs_no_lhs":      SourceDerived,
		"speedup_lhs_vs_qsnet2":      SourceDerived,
		"speedup_lhs_cold_vs_no_lhs": SourceDerived,
		"ablation":                   ablation,
		"factors":                    SourceDerived,
		"vl":                         SourceSimulated,
		"inputs":                     SourceInput,
		"loops":                      loops,
		"paper":                      SourceInput,
		"native":                     "measured on this machine",
	}
}

// SearchAblationRow is one curve of the ablation.
type SearchAblationRow struct {
	Key          string  `json:"key"`
	What         string  `json:"what"`
	PerMessageNs float64 `json:"per_message_ns"`
	VsLHS        float64 `json:"times_lhs"`
}

// SearchVLStats is the measured cost of the no-LHS path's 16-byte vector loads.
type SearchVLStats struct {
	Count             uint64  `json:"count"`
	DeviceCyclesEach  float64 `json:"device_cycles_each"`
	DeviceNsEach      float64 `json:"device_ns_each"`
	HostVisibleNsEach float64 `json:"host_visible_ns_each"`
}

// searchAblationWhat says, for each curve of the ablation, what it changes in the model.
var searchAblationWhat = map[string]string{
	CurveNoLHS:            "no LHS: 16-byte VL per envelope from SO-DIMM",
	CurveLHSUncached:      "LHS, LH buffer mapped uncached: 4 uncached reads per envelope",
	CurveLHSColdNoPrefeth: "LHS, write-back, no prefetch, first search: one line miss per envelope",
	CurveLHSColdAdjacent:  "LHS, write-back, adjacent-line fetch only, first search",
	CurveLHSCold:          "LHS, write-back, adjacent-line + stream prefetch, first search",
	CurveLHSInOrder:       "LHS, search repeated, in-order core: every load's latency on top of the loop",
	CurveLHS:              "LHS, search repeated (the paper's method): entries in cache",
	CurveQsNet2:           "QsNET-II: NIC thread processor, one DRAM access per list record",
}

var searchAblationOrder = []string{CurveNoLHS, CurveLHSUncached, CurveLHSColdNoPrefeth, CurveLHSColdAdjacent, CurveLHSCold, CurveLHSInOrder, CurveLHS, CurveQsNet2}

// Plan checks the configuration before any work and returns the depths the search runs and
// the LH buffer entries they need: every mistake it finds is the user's, not the run's.
func (cfg SearchConfig) Plan() (depths []int, entries int, err error) {
	if cfg.MaxDepth < 0 {
		return nil, 0, fmt.Errorf("search: max depth %d is negative", cfg.MaxDepth)
	}
	if cfg.SODIMMReadLatency < 0 {
		return nil, 0, fmt.Errorf("search: SO-DIMM read latency %d cycles is negative (0: the device's default)", cfg.SODIMMReadLatency)
	}
	if err := cfg.CPU.Validate(); err != nil {
		return nil, 0, fmt.Errorf("search: host model: %w", err)
	}
	depths = cfg.Depths
	if len(depths) == 0 {
		depths = LogDepths(cfg.MaxDepth)
	}
	maxD, distinct := 0, map[int]bool{}
	for _, d := range depths {
		if d < 0 {
			return nil, 0, fmt.Errorf("search: negative depth %d", d)
		}
		maxD = max(maxD, d)
		distinct[d] = true
	}
	entries = 1024
	for entries < maxD+1 {
		entries *= 2
	}
	if cfg.Entries != 0 {
		if cfg.Entries < maxD+1 {
			return nil, 0, fmt.Errorf("search: depth %d needs %d LH entries; --entries is %d", maxD, maxD+1, cfg.Entries)
		}
		entries = cfg.Entries
	}
	if cfg.Driver.SizePos != 0 && cfg.Driver.SizePos != mpi.SizeOffset {
		return nil, 0, fmt.Errorf("search: the MPI envelope carries its size at byte %d; SIZE_POS %d would misread it", mpi.SizeOffset, cfg.Driver.SizePos)
	}
	if entries > gosim.MaxEntries {
		return nil, 0, fmt.Errorf("search: depth %d needs %d LH entries; the host bus's LH region holds %d (a --max-depth of %d at most)", maxD, entries, gosim.MaxEntries, gosim.MaxEntries-1)
	}
	if entries > 1024 && cfg.Model != device.Go {
		return nil, 0, fmt.Errorf("search: depth %d needs %d LH entries; the RTL build has 1024 (use --model go or a smaller --max-depth)", maxD, entries)
	}
	if len(distinct) < 2 {
		return nil, 0, fmt.Errorf("search: depths %v: the per-message time is a line fit, which needs two depths or more", depths)
	}
	return depths, entries, nil
}

// SearchSteps is the number of progress steps RunSearch reports for n depths: every rig for
// the headline's loop, then the no-LHS and LHS rigs again for each other loop.
func SearchSteps(n int) int { return 3*n + 2*n*(len(SearchLoops)-1) }

// RunSearch runs the experiment. Each rig opens its own device, whose RTL (verilator.New)
// pins the goroutine that opens it to its thread until it closes: call RunSearch from one
// goroutine, which may be any.
func RunSearch(cfg SearchConfig) (*SearchResult, error) {
	depths, entries, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	if cfg.Progress != nil {
		total := SearchSteps(len(depths))
		if cfg.Run != nil {
			total = len(depths)
		}
		cfg.Progress.Expect(int64(total))
		cfg.tick = func(step string) { cfg.Progress.Step(1, "("+step+")") }
	}
	if cfg.Run != nil {
		return runSearchPart(cfg, depths, entries)
	}
	res := newSearchResult(cfg, depths)
	if err := runSearchNoLHS(cfg, depths, res); err != nil {
		return nil, fmt.Errorf("search without LHS: %w", err)
	}
	if err := runSearchLHS(cfg, depths, entries, res); err != nil {
		return nil, fmt.Errorf("search with LHS: %w", err)
	}
	if err := runSearchQsNet(cfg, depths, res); err != nil {
		return nil, fmt.Errorf("search on QsNET-II: %w", err)
	}
	// The other compiled loops: the host's side of the two DIMMnet-2 rigs again (QsNET-II's
	// walk is the NIC's, whatever the host's compiler).
	err = res.finish(cfg, func(l SearchLoop) (*SearchResult, error) {
		lc := cfg
		lc.Loop = l
		o := newSearchResult(lc, depths)
		if err := runSearchNoLHS(lc, depths, o); err != nil {
			return nil, fmt.Errorf("search without LHS, %s: %w", l.Name, err)
		}
		if err := runSearchLHS(lc, depths, entries, o); err != nil {
			return nil, fmt.Errorf("search with LHS, %s: %w", l.Name, err)
		}
		return o, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// finish makes the figures of a result whose headline curves are all in: the slopes, the
// ablation, the factors, a row for every compiled loop (other gives each loop but the
// headline's its no-LHS and LHS curves), the sources and, when asked, the native figures.
func (res *SearchResult) finish(cfg SearchConfig, other func(SearchLoop) (*SearchResult, error)) error {
	res.fit()
	lhs := res.PerMessageNs[CurveLHS]
	for _, k := range searchAblationOrder {
		res.Ablation = append(res.Ablation, SearchAblationRow{Key: k, What: searchAblationWhat[k], PerMessageNs: res.PerMessageNs[k], VsLHS: res.PerMessageNs[k] / lhs})
	}
	res.Factors["memory_structure"] = res.PerMessageNs[CurveNoLHS] / res.PerMessageNs[CurveLHSColdNoPrefeth]
	res.Factors["caching_prefetch"] = res.PerMessageNs[CurveLHSColdNoPrefeth] / lhs
	res.Factors["prefetch_cold"] = res.PerMessageNs[CurveLHSColdNoPrefeth] / res.PerMessageNs[CurveLHSCold]
	res.Factors["cache_reuse"] = res.PerMessageNs[CurveLHSCold] / lhs
	res.Factors["out_of_order"] = res.PerMessageNs[CurveLHSInOrder] / lhs
	res.Factors["no_lhs_vs_lhs_cold"] = res.PerMessageNs[CurveNoLHS] / res.PerMessageNs[CurveLHSCold]
	res.Loops = append(res.Loops, res.loopRow(cfg.Loop))
	for _, l := range SearchLoops {
		if l.Name == cfg.Loop.Name {
			continue
		}
		o, err := other(l)
		if err != nil {
			return err
		}
		o.Series[CurveQsNet2] = res.Series[CurveQsNet2]
		o.fit()
		res.Loops = append(res.Loops, o.loopRow(l))
	}
	res.Sources = res.searchSources()
	if cfg.Native {
		n := RunSearchNative(nil)
		res.Native = &n
	}
	return nil
}

func newSearchResult(cfg SearchConfig, depths []int) *SearchResult {
	lat := cfg.SODIMMReadLatency
	if lat == 0 {
		lat = gosim.DefaultSODIMM.ReadLatency
	}
	return &SearchResult{
		Model: string(cfg.Model), Seed: cfg.Seed, Depths: depths,
		PerMessageNs: map[string]float64{}, InterceptNs: map[string]float64{},
		Series: map[string][]float64{}, Factors: map[string]float64{},
		Inputs: SearchInputs{
			SODIMMReadLatencyCycles: lat,
			QsNet2DRAMNs:            psToNs(cfg.QsNet.DRAMLatencyPs),
			CPI:                     float64(cfg.CPU.CPIMilli) / 1000,
			Loop:                    cfg.Loop.Name,
			LoopInstrPerMessage:     cfg.Loop.PerMessage[SearchFields-1],
			MemLatencyNs:            psToNs(cfg.CPU.MemLatencyPs),
			DeviceLatencyNs:         psToNs(cfg.CPU.DeviceLatencyPs),
		},
		Paper: map[string]float64{"no_lhs": PaperNoLHSNs, "lhs": PaperLHSNs, "qsnet2": PaperQsNet2Ns,
			"speedup_lhs_vs_no_lhs": PaperSpeedup, "speedup_lhs_vs_qsnet2": PaperVsQsNet2, "vl_host_ns": PaperVLNs},
	}
}

// fit turns the series into slopes and intercepts, and the speedups.
func (r *SearchResult) fit() {
	for k, s := range r.Series {
		r.PerMessageNs[k], r.InterceptNs[k] = fitSearchLine(r.Depths, s)
	}
	lhs := r.PerMessageNs[CurveLHS]
	r.SpeedupLHSvsNoLHS = r.PerMessageNs[CurveNoLHS] / lhs
	r.SpeedupLHSvsQsNet2 = r.PerMessageNs[CurveQsNet2] / lhs
	r.SpeedupLHSColdvsNoLHS = r.PerMessageNs[CurveNoLHS] / r.PerMessageNs[CurveLHSCold]
}

func (r *SearchResult) loopRow(l SearchLoop) SearchLoopRow {
	return SearchLoopRow{Loop: l.Name, InstrPerMessage: l.PerMessage[SearchFields-1],
		NoLHSNs: r.PerMessageNs[CurveNoLHS], LHSNs: r.PerMessageNs[CurveLHS], LHSColdNs: r.PerMessageNs[CurveLHSCold],
		SpeedupLHSvsNoLHS: r.SpeedupLHSvsNoLHS, SpeedupLHSvsQsNet2: r.SpeedupLHSvsQsNet2, SpeedupLHSColdvsNoLHS: r.SpeedupLHSColdvsNoLHS}
}
