package experiment

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
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/gosim/qsnet"
)

// Paper figures (section 5.1.3, 5.1.4), for comparison only: nothing is fitted to them.
const (
	PaperNoLHSNs  = 634.0
	PaperLHSNs    = 14.8
	PaperQsNet2Ns = 100.0
	PaperSpeedup  = 43.0
	PaperVsQsNet2 = 6.8
)

// The envelopes searched, in every rig and natively: all from one source and communicator.
const (
	searchTargetTag = 1 << 20 // the tag only the target message carries
	searchSource    = 1
	searchComm      = 0
)

// SearchConfig is what the user chose.
type SearchConfig struct {
	Model   string        // "rtl", "go" or "lockstep"
	Bridge  device.Bridge // where the device runs ("" is cgo)
	Entries int           // LH buffer entries; 0: the RTL build's 1024, or as deep as the search needs
	// Driver is how the host driver programs the NIC (SplitPos, MaxMsg...); LHS is set per
	// curve, and SizePos must be the MPI envelope's (12 or 0 for the default).
	Driver   drivers.Config
	MaxDepth int    // deepest search: MaxDepth messages ahead of the target
	Depths   []int  // explicit depths; empty means log-spaced 0..MaxDepth
	Seed     uint64 // tags of the non-target messages, board randomness
	Host     hostcpu.Config
	QsNet    qsnet.Config
	Costs    mpi.Costs
	Native   bool // also time the search on this machine's CPU
	// SODIMMReadLatency overrides the device's SO-DIMM read latency in cycles (0: the
	// device's default, which docs/design.md sets for a 600 ns VL). A what-if knob only.
	SODIMMReadLatency int
	// Progress, when not nil, is called after each depth of each design (done of total
	// steps; step names the one done), from RunSearch's goroutine.
	Progress func(done, total int, step string) `json:"-"`

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
		Model:    "rtl",
		MaxDepth: 1023,
		Seed:     1,
		Host:     hostcpu.Pentium4(),
		QsNet:    qsnet.Default(),
		Costs:    mpi.DefaultCosts(),
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
)

// SearchResult is what a run measured. Times are in nanoseconds (the model's picoseconds
// divided by 1000).
type SearchResult struct {
	Model        string               `json:"model"`
	Seed         uint64               `json:"seed"`
	Depths       []int                `json:"depths"`
	PerMessageNs map[string]float64   `json:"per_message_ns"`
	InterceptNs  map[string]float64   `json:"intercept_ns"`
	Series       map[string][]float64 `json:"series_ns"`

	SpeedupLHSvsNoLHS  float64 `json:"speedup_lhs_vs_no_lhs"`
	SpeedupLHSvsQsNet2 float64 `json:"speedup_lhs_vs_qsnet2"`

	Ablation []SearchAblationRow `json:"ablation"`
	Factors  map[string]float64  `json:"factors"`
	VL       SearchVLStats       `json:"vl"`
	Paper    map[string]float64  `json:"paper"`
	Native   *SearchNativeResult `json:"native,omitempty"`
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
	CurveLHSUncached:      "LHS, LH buffer mapped uncached: 3 uncached reads per envelope",
	CurveLHSColdNoPrefeth: "LHS, write-back, no prefetch, first search: one line miss per envelope",
	CurveLHSColdAdjacent:  "LHS, write-back, adjacent-line fetch only, first search",
	CurveLHSCold:          "LHS, write-back, adjacent-line + stream prefetch, first search",
	CurveLHS:              "LHS, search repeated (the paper's method): entries in cache",
	CurveQsNet2:           "QsNET-II: NIC thread processor, one DRAM access per list record",
}

var searchAblationOrder = []string{CurveNoLHS, CurveLHSUncached, CurveLHSColdNoPrefeth, CurveLHSColdAdjacent, CurveLHSCold, CurveLHS, CurveQsNet2}

// Plan checks the configuration before any work and returns the depths the search runs and
// the LH buffer entries they need: every mistake it finds is the user's, not the run's.
func (cfg SearchConfig) Plan() (depths []int, entries int, err error) {
	if cfg.MaxDepth < 0 {
		return nil, 0, fmt.Errorf("search: max depth %d is negative", cfg.MaxDepth)
	}
	if cfg.SODIMMReadLatency < 0 {
		return nil, 0, fmt.Errorf("search: SO-DIMM read latency %d cycles is negative (0: the device's default)", cfg.SODIMMReadLatency)
	}
	if err := cfg.Host.Validate(); err != nil {
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
	if entries > 1024 && cfg.Model != "go" {
		return nil, 0, fmt.Errorf("search: depth %d needs %d LH entries; the RTL build has 1024 (use --model go or a smaller --max-depth)", maxD, entries)
	}
	if len(distinct) < 2 {
		return nil, 0, fmt.Errorf("search: depths %v: the per-message time is a line fit, which needs two depths or more", depths)
	}
	return depths, entries, nil
}

// RunSearch runs the experiment. The RTL must be driven from one goroutine: call it from the
// goroutine that will not move (the CLI's main).
func RunSearch(cfg SearchConfig) (*SearchResult, error) {
	depths, entries, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	if cfg.Progress != nil {
		done, total := 0, 3*len(depths) // no LHS, LHS, QsNET-II
		cfg.tick = func(step string) { done++; cfg.Progress(done, total, step) }
	}
	res := &SearchResult{
		Model: cfg.Model, Seed: cfg.Seed, Depths: depths,
		PerMessageNs: map[string]float64{}, InterceptNs: map[string]float64{},
		Series: map[string][]float64{}, Factors: map[string]float64{},
		Paper: map[string]float64{"no_lhs": PaperNoLHSNs, "lhs": PaperLHSNs, "qsnet2": PaperQsNet2Ns,
			"speedup_lhs_vs_no_lhs": PaperSpeedup, "speedup_lhs_vs_qsnet2": PaperVsQsNet2},
	}
	if err := runSearchNoLHS(cfg, depths, res); err != nil {
		return nil, fmt.Errorf("search without LHS: %w", err)
	}
	if err := runSearchLHS(cfg, depths, entries, res); err != nil {
		return nil, fmt.Errorf("search with LHS: %w", err)
	}
	if err := runSearchQsNet(cfg, depths, res); err != nil {
		return nil, fmt.Errorf("search on QsNET-II: %w", err)
	}
	for k, s := range res.Series {
		res.PerMessageNs[k], res.InterceptNs[k] = fitSearchLine(depths, s)
	}
	lhs := res.PerMessageNs[CurveLHS]
	res.SpeedupLHSvsNoLHS = res.PerMessageNs[CurveNoLHS] / lhs
	res.SpeedupLHSvsQsNet2 = res.PerMessageNs[CurveQsNet2] / lhs
	for _, k := range searchAblationOrder {
		res.Ablation = append(res.Ablation, SearchAblationRow{Key: k, What: searchAblationWhat[k], PerMessageNs: res.PerMessageNs[k], VsLHS: res.PerMessageNs[k] / lhs})
	}
	res.Factors["memory_structure"] = res.PerMessageNs[CurveNoLHS] / res.PerMessageNs[CurveLHSColdNoPrefeth]
	res.Factors["caching_prefetch"] = res.PerMessageNs[CurveLHSColdNoPrefeth] / lhs
	res.Factors["prefetch_cold"] = res.PerMessageNs[CurveLHSColdNoPrefeth] / res.PerMessageNs[CurveLHSCold]
	res.Factors["cache_reuse"] = res.PerMessageNs[CurveLHSCold] / lhs
	res.Factors["no_lhs_vs_lhs_cold"] = res.PerMessageNs[CurveNoLHS] / res.PerMessageNs[CurveLHSCold]
	if cfg.Native {
		n := RunSearchNative(nil)
		res.Native = &n
	}
	return res, nil
}
