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

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/gosim/qsnet"
	"github.com/lhsim/lhsim/nic"
)

// Paper figures (section 5.1.3, 5.1.4), for comparison only: nothing is fitted to them.
const (
	PaperNoLHSNs    = 634.0
	PaperLHSNs      = 14.8
	PaperQsNet2Ns   = 100.0
	PaperSpeedup    = 43.0
	PaperVsQsNet2   = 6.8
	searchTargetTag = 1 << 20 // the tag only the target message carries
	searchSource    = 1
	searchComm      = 0
)

// SearchConfig is what the user chose.
type SearchConfig struct {
	Model    string // "rtl" or "go"
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

// ablationRows describes each LHS variant: what it changes in the host model.
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

// searchVariant is one host configuration searched over the same LHS arrivals.
type searchVariant struct {
	cold, warm  string // curve keys for the first and the repeated search ("" to skip)
	cfg         hostcpu.Config
	lhCacheable bool
}

func (c SearchConfig) variants() []searchVariant {
	adj := c.Host
	adj.StreamPrefetch = false
	none := adj
	none.AdjacentLine = false
	return []searchVariant{
		{cold: CurveLHSCold, warm: CurveLHS, cfg: c.Host, lhCacheable: true},
		{cold: CurveLHSColdAdjacent, cfg: adj, lhCacheable: true},
		{cold: CurveLHSColdNoPrefeth, cfg: none, lhCacheable: true},
		{warm: CurveLHSUncached, cfg: c.Host, lhCacheable: false},
	}
}

// searchMessages is the arrival order for depth x: x messages from the target's source and
// communicator with other tags (so every search compares all three fields, as the paper's
// loop compared every field of every entry), then the target.
func searchMessages(x int, rng *rand.Rand) [][]byte {
	msgs := make([][]byte, 0, x+1)
	for i := 0; i < x; i++ {
		msgs = append(msgs, mpi.Eager(searchSource, int32(rng.IntN(searchTargetTag)), searchComm, nil))
	}
	return append(msgs, mpi.Eager(searchSource, searchTargetTag, searchComm, nil))
}

var searchTarget = mpi.Pattern{Source: searchSource, Tag: searchTargetTag, Comm: searchComm}

func openSearchDevice(c SearchConfig, entries int) (drivers.Device, error) {
	model := c.Model
	cfg := nic.Config{Model: model}
	cfg.Board.Seed = c.Seed
	if c.SODIMMReadLatency > 0 {
		cfg.Board.Memory = gosim.DefaultSODIMM
		cfg.Board.Memory.ReadLatency = c.SODIMMReadLatency
	}
	if model == "go" && entries > 1024 {
		cfg.Entries = entries
	}
	return nic.Open(cfg)
}

func newSearchCPU(cfg hostcpu.Config, dev drivers.Device, lhCacheable bool) (*hostcpu.CPU, error) {
	cpu, err := hostcpu.New(cfg)
	if err != nil {
		return nil, err
	}
	return cpu, mpi.MapDevice(cpu, mpi.DefaultDeviceBase, lhCacheable)
}

func searchSettle(dev drivers.Device, n int) error { return dev.RunUntilIdle(uint64(1000 + 200*n)) }

// RunSearch runs the experiment. The RTL must be driven from one goroutine: call it from the
// goroutine that will not move (the CLI's main).
func RunSearch(cfg SearchConfig) (*SearchResult, error) {
	depths := cfg.Depths
	if len(depths) == 0 {
		depths = LogDepths(cfg.MaxDepth)
	}
	maxD := 0
	for _, d := range depths {
		if d < 0 {
			return nil, fmt.Errorf("search: negative depth %d", d)
		}
		maxD = max(maxD, d)
	}
	entries := 1024
	for entries < maxD+1 {
		entries *= 2
	}
	if entries > 1024 && cfg.Model != "go" {
		return nil, fmt.Errorf("search: depth %d needs %d LH entries; the RTL build has 1024 (use --model go or a smaller --max-depth)", maxD, entries)
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

// closeSearchDevice closes dev and reports its error (a lockstep device reports there whether
// the RTL and the Go model disagreed) unless the run already failed.
// openSearchRig opens a device with LHS on or off, its host driver, and a host timing model
// over it.
func openSearchRig(cfg SearchConfig, entries int, lhs bool) (dev drivers.Device, h *drivers.Host, cpu *hostcpu.CPU, m *mpi.HostModel, err error) {
	if dev, err = openSearchDevice(cfg, entries); err != nil {
		return nil, nil, nil, nil, err
	}
	if h, err = drivers.NewHost(dev, drivers.Config{LHS: lhs}); err == nil {
		if cpu, err = hostcpu.New(cfg.Host); err == nil {
			m, err = mpi.NewHostModel(cpu, dev, mpi.DefaultDeviceBase, true)
		}
	}
	if err != nil {
		dev.Close()
		return nil, nil, nil, nil, err
	}
	return dev, h, cpu, m, nil
}

func closeSearchDevice(dev drivers.Device, err *error) {
	if cerr := dev.Close(); *err == nil && cerr != nil {
		*err = fmt.Errorf("closing the device: %w", cerr)
	}
}

func psToNs(ps int64) float64 { return float64(ps) / 1000 }

// runSearchNoLHS: one device with LHS off, every message whole in the tail ring.
func runSearchNoLHS(cfg SearchConfig, depths []int, res *SearchResult) (err error) {
	dev, h, cpu, m, err := openSearchRig(cfg, 1024, false)
	if err != nil {
		return err
	}
	defer closeSearchDevice(dev, &err)
	q, err := mpi.NewRingQueue(h, m)
	if err != nil {
		return err
	}
	e := mpi.NewEngine(q, cpu, cfg.Costs)
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	for _, x := range depths {
		msgs := searchMessages(x, rng)
		for _, msg := range msgs {
			if err := dev.Inject(msg); err != nil {
				return err
			}
		}
		if err := searchSettle(dev, len(msgs)); err != nil {
			return err
		}
		if err := e.Progress(); err != nil {
			return err
		}
		t0 := cpu.Now()
		st, ok, err := e.Iprobe(searchTarget)
		if err != nil {
			return err
		}
		if !ok || st.Depth != x {
			return fmt.Errorf("depth %d: target found=%v at depth %d", x, ok, st.Depth)
		}
		res.Series[CurveNoLHS] = append(res.Series[CurveNoLHS], psToNs(cpu.Now()-t0))
		if err := searchDrain(e, len(msgs)); err != nil {
			return err
		}
	}
	// Every VL of the run is a 16-byte envelope load (the messages have no body).
	res.VL.Count = m.VLs
	res.VL.DeviceCyclesEach = float64(m.VLDeviceCycles) / float64(m.VLs)
	res.VL.DeviceNsEach = res.VL.DeviceCyclesEach * mpi.DeviceCyclePs / 1000
	res.VL.HostVisibleNsEach = psToNs(m.VLHostPs) / float64(m.VLs)
	return nil
}

// searchDrain receives every queued message (n of them), oldest first, so the rings are empty.
func searchDrain(e *mpi.Engine, n int) error {
	for i := 0; i < n; i++ {
		r, err := e.Irecv(mpi.Pattern{Source: mpi.AnySource, Tag: mpi.AnyTag, Comm: searchComm})
		if err != nil {
			return err
		}
		if !r.Done() {
			return fmt.Errorf("drain: %d of %d messages received", i, n)
		}
	}
	if e.Pending() != 0 || e.Posted() != 0 {
		return fmt.Errorf("drain: %d unexpected, %d posted left", e.Pending(), e.Posted())
	}
	return nil
}

// runSearchLHS: one device with LHS on; every host variant searches the same arrivals, each on its
// own host model (fresh at every depth, so no variant inherits another's cache).
func runSearchLHS(cfg SearchConfig, depths []int, entries int, res *SearchResult) (err error) {
	dev, h, _, m, err := openSearchRig(cfg, entries, true)
	if err != nil {
		return err
	}
	defer closeSearchDevice(dev, &err)
	vs := cfg.variants()
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	for _, x := range depths {
		type run struct {
			cpu *hostcpu.CPU
			e   *mpi.Engine
		}
		runs := make([]run, len(vs))
		for i, v := range vs {
			cpu, err := newSearchCPU(v.cfg, dev, v.lhCacheable)
			if err != nil {
				return err
			}
			m.CPU = cpu
			q, err := mpi.NewLHSQueue(h, m)
			if err != nil {
				return err
			}
			runs[i] = run{cpu, mpi.NewEngine(q, cpu, cfg.Costs)}
		}
		msgs := searchMessages(x, rng)
		for _, msg := range msgs {
			if err := dev.Inject(msg); err != nil {
				return err
			}
		}
		if err := searchSettle(dev, len(msgs)); err != nil {
			return err
		}
		for i, v := range vs {
			r := runs[i]
			m.CPU = r.cpu
			if err := r.e.Progress(); err != nil { // learns of the arrivals, flushes their lines
				return err
			}
			for pass, key := range []string{v.cold, v.warm} {
				t0 := r.cpu.Now()
				st, ok, err := r.e.Iprobe(searchTarget)
				if err != nil {
					return err
				}
				if !ok || st.Depth != x {
					return fmt.Errorf("depth %d, pass %d: target found=%v at depth %d", x, pass, ok, st.Depth)
				}
				if key != "" {
					res.Series[key] = append(res.Series[key], psToNs(r.cpu.Now()-t0))
				}
			}
		}
		m.CPU = runs[0].cpu
		if err := searchDrain(runs[0].e, len(msgs)); err != nil {
			return err
		}
	}
	return nil
}

func runSearchQsNet(cfg SearchConfig, depths []int, res *SearchResult) error {
	qc := cfg.QsNet
	qc.Seed = cfg.Seed
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	for _, x := range depths {
		q, err := qsnet.New(qc)
		if err != nil {
			return err
		}
		for _, msg := range searchMessages(x, rng) {
			var env [16]byte
			copy(env[:], msg)
			q.Arrive(env)
		}
		d, ps, err := q.Search(func(b [16]byte) bool {
			env, _ := mpi.ParseEnvelope(b[:])
			ok, _ := searchTarget.Match(env)
			return ok
		}, false)
		if err != nil {
			return err
		}
		if d != x {
			return fmt.Errorf("depth %d: found at %d", x, d)
		}
		res.Series[CurveQsNet2] = append(res.Series[CurveQsNet2], psToNs(ps))
	}
	return nil
}

// fitSearchLine is the least-squares line through (x, y): slope and intercept.
func fitSearchLine(xs []int, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN(), math.NaN()
	}
	var sx, sy, sxx, sxy float64
	for i, x := range xs {
		fx := float64(x)
		sx += fx
		sy += ys[i]
		sxx += fx * fx
		sxy += fx * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return math.NaN(), math.NaN()
	}
	slope = (n*sxy - sx*sy) / d
	return slope, (sy - slope*sx) / n
}

// newSearchTable is a table whose headers are printed as written ("QsNET-II", not "QS NET - II").
func newSearchTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// WriteJSON writes the result, indented.
func (r *SearchResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func fmt1(v float64) string { return fmt.Sprintf("%.1f", v) }

// WriteTable prints the per-depth times, the slopes against the paper, and the ablation.
func (r *SearchResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Unexpected-queue search time, device model %q (ns; target at depth X)\n", r.Model)
	t := newSearchTable(w)
	t.Header("depth", "no LHS", "LHS", "QsNET-II", "LHS first search")
	for i, d := range r.Depths {
		if err := t.Append(fmt.Sprint(d), fmt1(r.Series[CurveNoLHS][i]), fmt1(r.Series[CurveLHS][i]),
			fmt1(r.Series[CurveQsNet2][i]), fmt1(r.Series[CurveLHSCold][i])); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nPer-message search time (least-squares slope) against the paper (5.1.3)")
	t = newSearchTable(w)
	t.Header("", "measured", "paper", "measured/paper")
	rows := []struct {
		name       string
		got, paper float64
	}{
		{"no LHS (ns/message)", r.PerMessageNs[CurveNoLHS], PaperNoLHSNs},
		{"LHS (ns/message)", r.PerMessageNs[CurveLHS], PaperLHSNs},
		{"QsNET-II (ns/message)", r.PerMessageNs[CurveQsNet2], PaperQsNet2Ns},
		{"speedup LHS vs no LHS", r.SpeedupLHSvsNoLHS, PaperSpeedup},
		{"speedup LHS vs QsNET-II", r.SpeedupLHSvsQsNet2, PaperVsQsNet2},
	}
	for _, row := range rows {
		if err := t.Append(row.name, fmt.Sprintf("%.2f", row.got), fmt.Sprintf("%.1f", row.paper), fmt.Sprintf("%.2f", row.got/row.paper)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "16-byte VL: %.1f device cycles (%.0f ns) from command write to done; %.0f ns as the host sees it\n",
		r.VL.DeviceCyclesEach, r.VL.DeviceNsEach, r.VL.HostVisibleNsEach)
	fmt.Fprintln(w, "\nAblation: where the speedup comes from")
	t = newSearchTable(w)
	t.Header("curve", "what", "ns/message", "x LHS")
	for _, a := range r.Ablation {
		if err := t.Append(a.Key, a.What, fmt.Sprintf("%.2f", a.PerMessageNs), fmt.Sprintf("%.1f", a.VsLHS)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "memory structure (no LHS / LHS without prefetch, first search): %.1fx   (paper: about 6x)\n", r.Factors["memory_structure"])
	fmt.Fprintf(w, "caching and prefetch (LHS without prefetch / LHS repeated):     %.1fx   (paper: about 7x)\n", r.Factors["caching_prefetch"])
	fmt.Fprintf(w, "  of which prefetch on a first search: %.1fx, cache reuse on a repeated search: %.1fx\n", r.Factors["prefetch_cold"], r.Factors["cache_reuse"])
	if r.Native != nil {
		fmt.Fprintln(w)
		return r.Native.WriteTable(w)
	}
	return nil
}

// WritePlot draws the paper's Figure 6: search time against depth for the three designs.
// The format follows the file's extension (.svg or .png).
func (r *SearchResult) WritePlot(file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("search: plot file %q: want .svg or .png", file)
	}
	p := plot.New()
	p.Title.Text = "Unexpected-queue search time (cf. paper Figure 6)"
	p.X.Label.Text = "depth of the matching message in the unexpected queue"
	p.Y.Label.Text = "search time (µs)"
	p.Legend.Top = true
	p.Legend.Left = true
	for i, c := range []struct{ key, name string }{
		{CurveNoLHS, fmt.Sprintf("no LHS (%.0f ns/msg)", r.PerMessageNs[CurveNoLHS])},
		{CurveQsNet2, fmt.Sprintf("QsNET-II (%.0f ns/msg)", r.PerMessageNs[CurveQsNet2])},
		{CurveLHS, fmt.Sprintf("LHS (%.1f ns/msg)", r.PerMessageNs[CurveLHS])},
	} {
		pts := make(plotter.XYs, len(r.Depths))
		for j, d := range r.Depths {
			pts[j].X, pts[j].Y = float64(d), r.Series[c.key][j]/1000
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		s.Color = plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(c.name, l, s)
	}
	p.Add(plotter.NewGrid())
	return p.Save(16*vg.Centimeter, 11*vg.Centimeter, file)
}

// SearchNativeResult is the same search on the machine running lhsim.
type SearchNativeResult struct {
	CPU  string            `json:"cpu"`
	Rows []SearchNativeRow `json:"rows"`
}

// SearchNativeRow compares the LHS layout with a scattered list at one queue length.
type SearchNativeRow struct {
	Messages      int     `json:"messages"`
	ArrayNsPerMsg float64 `json:"contiguous_ns_per_message"`
	ListNsPerMsg  float64 `json:"scattered_list_ns_per_message"`
	Ratio         float64 `json:"list_over_contiguous"`
}

// searchEntry is an LHS-style entry: a 16-byte envelope in a 64-byte, 64-byte-aligned slot.
type searchEntry struct {
	source, tag, comm, size int32
	_                       [48]byte
}

// searchNode is a list record: the same envelope and a pointer to the next record, padded to
// a cache line so that every record is a separate line wherever it lands.
type searchNode struct {
	source, tag, comm, size int32
	next                    *searchNode
	_                       [40]byte
}

//go:noinline
func searchEntries(q []searchEntry, src, tag, comm int32) int {
	for i := range q {
		e := &q[i]
		if e.comm == comm && e.source == src && e.tag == tag {
			return i
		}
	}
	return -1
}

//go:noinline
func searchNodes(n *searchNode, src, tag, comm int32) int {
	for i := 0; n != nil; i++ {
		if n.comm == comm && n.source == src && n.tag == tag {
			return i
		}
		n = n.next
	}
	return -1
}

// RunSearchNative times, with testing.Benchmark, a search for the last of n messages over an
// LHS-style contiguous array and over a linked list whose records are scattered through a
// pool 16 times larger than the list, for each n in sizes (nil: 1 Ki, 64 Ki, 1 Mi).
func RunSearchNative(sizes []int) SearchNativeResult {
	if len(sizes) == 0 {
		sizes = []int{1 << 10, 1 << 16, 1 << 20}
	}
	res := SearchNativeResult{CPU: fmt.Sprintf("%s, %s/%s, %d CPUs", cpuName(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	for _, n := range sizes {
		arr, head := buildNativeQueues(n)
		row := SearchNativeRow{Messages: n}
		ba := testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if searchEntries(arr, searchSource, searchTargetTag, searchComm) != n-1 {
					b.Fatal("array search missed")
				}
			}
		})
		bl := testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if searchNodes(head, searchSource, searchTargetTag, searchComm) != n-1 {
					b.Fatal("list search missed")
				}
			}
		})
		row.ArrayNsPerMsg = float64(ba.T.Nanoseconds()) / float64(max(ba.N, 1)) / float64(n)
		row.ListNsPerMsg = float64(bl.T.Nanoseconds()) / float64(max(bl.N, 1)) / float64(n)
		row.Ratio = row.ListNsPerMsg / row.ArrayNsPerMsg
		res.Rows = append(res.Rows, row)
	}
	return res
}

// buildNativeQueues makes the same n envelopes (the target last) as a contiguous entry array
// and as a list whose records sit at random places in a pool 16 times larger.
func buildNativeQueues(n int) ([]searchEntry, *searchNode) {
	rng := rand.New(rand.NewPCG(1, 2))
	arr := make([]searchEntry, n)
	for i := range arr {
		arr[i] = searchEntry{source: searchSource, tag: int32(rng.IntN(searchTargetTag)), comm: searchComm}
	}
	arr[n-1].tag = searchTargetTag
	pool := make([]searchNode, 16*n)
	var head, prev *searchNode
	for i, s := range rng.Perm(len(pool))[:n] {
		nd := &pool[s]
		*nd = searchNode{source: searchSource, tag: arr[i].tag, comm: searchComm}
		if prev == nil {
			head = nd
		} else {
			prev.next = nd
		}
		prev = nd
	}
	return arr, head
}

// cpuName is the processor's model name where the system tells it (Linux), else "unknown CPU".
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// WriteTable prints the native figures.
func (n *SearchNativeResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Native search on this machine (%s), ns per queued message\n", n.CPU)
	t := newSearchTable(w)
	t.Header("messages", "entry array", "contiguous 64-B entries", "list scattered in 16x pool", "list / contiguous")
	for _, r := range n.Rows {
		if err := t.Append(fmt.Sprint(r.Messages), fmt.Sprintf("%d KiB", r.Messages*int(unsafe.Sizeof(searchEntry{}))>>10),
			fmt.Sprintf("%.2f", r.ArrayNsPerMsg), fmt.Sprintf("%.2f", r.ListNsPerMsg), fmt.Sprintf("%.1f", r.Ratio)); err != nil {
			return err
		}
	}
	return t.Render()
}
