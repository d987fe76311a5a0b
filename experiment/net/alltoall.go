package net

// lhsim alltoall: the three ways Ohno et al.'s paper (seed 002) runs the steps of Suh and
// Shin's all-to-all on a torus (its synchronisation at every step, a synchronisation only at
// the start, the proposal: one start-time synchronisation and a computed wait per step), and a
// fourth with a software barrier per step; total time against the data size per pair (the
// paper's Figure 3), on the simulated machine (netsim/alltoall on netsim/cluster).

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/alltoall"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// AlltoallConfig is what the user chose.
type AlltoallConfig struct {
	// Torus is the machine: the all-to-all paper's section 4.3, 16x16x16.
	Torus experiment.Topology
	// Algorithm is "suh-shin" (Ohno et al.'s paper, section 4.2) or "direct" (the pairwise baseline).
	Algorithm string
	// Sizes are the bytes per (source, destination) pair. input: Ohno et al.'s all-to-all paper gives Figure 3's
	// axis no numbers; the defaults are small because every byte is simulated in packets.
	Sizes   []int
	Schemes []alltoall.Scheme
	// Uneven also runs every size with each node's blocks scaled by 0.5 to 1.5 (a fixed hash
	// of Seed and the node): the all-to-all paper's section 4.4 predicts scheme 2 degrades, the proposal little.
	Uneven bool
	// Heavy makes the uneven sizes a heavy tail instead: every eighth node's blocks x4.0,
	// the others' x0.571 (alltoall.HeavyWeights; an input, the seed gives no distribution).
	Heavy bool
	Seed  uint64
	// EqualLatency also runs the torus with every link at the mean of the seed's X/Y/Z
	// latencies (derived: (21+25+70)/3 ns), to show what the unequal latencies cost.
	EqualLatency bool
	// Fabric: the paper's torus (section 4.3: 16 GB/s links, X/Y/Z 21/25/70 ns per hop, cables
	// and SerDes included, no router pipeline on top; fabric.Seed002Torus).
	Fabric fabric.Config
	// PaperSyncRule runs the synchronisations with the paper's rule as written (no stamp, no
	// margin; alltoall.Options.PaperRule) instead of the stamped rule.
	PaperSyncRule bool
	// Cluster: the NSIM-ACE paper's node (DMA 2.8 GB/s, node latency 1.0 µs): Ohno et al.'s all-to-all paper gives no node figures.
	Cluster cluster.Config
	// Progress, when set, counts the runs.
	Progress *experiment.Progress `json:"-"`
	// Timeline, when set, records every run, a machine each (docs/timeline.md).
	Timeline *timeline.Writer
	// Threads is how many threads each run's machine takes (AlltoallThreads says how many
	// it really gets); 0 or 1: one. The results are the same for any.
	Threads int `json:"-"`
	// Windows, when set, is told of each run's windows on more than one thread.
	Windows func(run string, ws netsim.WindowStats) `json:"-"`
}

// DefaultAlltoall is the all-to-all paper's machine.
func DefaultAlltoall() AlltoallConfig {
	return AlltoallConfig{
		Torus:     experiment.MustTopology("torus:16x16x16"),
		Algorithm: "suh-shin",
		Sizes:     []int{8, 32, 128},
		Schemes:   alltoall.Schemes,
		Seed:      1,
		Fabric:    fabric.Seed002Torus(),
		Cluster:   cluster.DefaultConfig(),
	}
}

// AlltoallRow is one all-to-all (simulated).
type AlltoallRow struct {
	Scheme        string  `json:"scheme"`
	BytesPerPair  int     `json:"bytes_per_pair"`
	Uneven        bool    `json:"uneven"`
	LinkLatencyNs string  `json:"link_latency_ns"` // X/Y/Z
	TotalUs       float64 `json:"total_us"`
	SyncUs        float64 `json:"sync_us,omitempty"` // when the start synchronisation ended (node 0)
	SyncSpreadNs  float64 `json:"sync_spread_ns"`    // last node's exit less the first's
	LateSteps     int     `json:"late_steps"`        // proposed: (rank, step) started after plan
	Events        uint64  `json:"events"`
	WallS         float64 `json:"wall_s"`
}

// AlltoallSaving is the proposal's saving over scheme 1 at one size.
type AlltoallSaving struct {
	BytesPerPair  int     `json:"bytes_per_pair"`
	Uneven        bool    `json:"uneven"`
	LinkLatencyNs string  `json:"link_latency_ns"`
	SavingUs      float64 `json:"saving_us"`          // derived: sync_per_step less proposed
	PaperUs       float64 `json:"paper_us,omitempty"` // input: the paper's, on 16x16x16 only
}

// AlltoallPaperSavingUs is the paper's saving of scheme 3 over scheme 1 on 16x16x16, read off
// its Figure 3 (about 24 µs at every size).
const AlltoallPaperSavingUs = 24.0

// alltoallSources labels the result's figures.
var alltoallSources = map[string]string{
	"rows":              "simulated",
	"savings.saving_us": "derived (two simulated rows)",
	"savings.paper_us":  "input (read off the paper's Figure 3, 16x16x16)",
	"steps":             "derived (the schedule)",
	"puts":              "derived (the schedule)",
}

// fillSavings derives the savings from the rows.
func (r *AlltoallResult) fillSavings() {
	r.Sources = alltoallSources
	type key struct {
		size   int
		uneven bool
		lat    string
	}
	by := map[key]map[string]float64{}
	var order []key
	for _, row := range r.Rows {
		k := key{row.BytesPerPair, row.Uneven, row.LinkLatencyNs}
		if by[k] == nil {
			by[k] = map[string]float64{}
			order = append(order, k)
		}
		by[k][row.Scheme] = row.TotalUs
	}
	r.Savings = nil
	for _, k := range order {
		one, ok1 := by[k][string(alltoall.SyncPerStep)]
		three, ok3 := by[k][string(alltoall.Proposed)]
		if !ok1 || !ok3 {
			continue
		}
		sv := AlltoallSaving{BytesPerPair: k.size, Uneven: k.uneven, LinkLatencyNs: k.lat, SavingUs: one - three}
		if r.Torus == "torus:16x16x16" && !k.uneven {
			sv.PaperUs = AlltoallPaperSavingUs
		}
		r.Savings = append(r.Savings, sv)
	}
}

// AlltoallResult is the sweep.
type AlltoallResult struct {
	Torus     string `json:"torus"`
	Algorithm string `json:"algorithm"`
	Steps     int    `json:"steps"`
	Puts      int    `json:"puts"` // transfers in all steps
	// UnevenWeights is the uneven rows' distribution: "hash" (x0.5 to x1.5 per node) or
	// "heavy" (every eighth node x4.0, the others x0.571).
	UnevenWeights string `json:"uneven_weights,omitempty"`
	Heavy         bool   `json:"-"`
	// SyncRule is how the synchronisations ran: "stamped" or "paper" (its rule as written).
	SyncRule string        `json:"sync_rule"`
	Rows     []AlltoallRow `json:"rows"`
	// Savings are scheme 3's saving over scheme 1 per size (derived from two simulated rows),
	// beside the paper's (read off its Figure 3: about 24 µs on 16x16x16, at every size).
	Savings []AlltoallSaving `json:"savings,omitempty"`
	// Sources says where each kind of figure comes from.
	Sources    map[string]string `json:"sources"`
	WallS      float64           `json:"wall_s"`
	Events     uint64            `json:"events"`
	EventsPerS float64           `json:"events_per_s"`
}

// Validate refuses, before any work, what the sweep cannot run (an experiment.InputError).
func (cfg AlltoallConfig) Validate() error {
	if cfg.Heavy && !cfg.Uneven {
		return experiment.Refuse("--heavy is a distribution of the uneven sizes: add --uneven")
	}
	if _, err := experiment.CheckTopology("torus", cfg.Torus, cfg.Fabric, 2); err != nil {
		return err
	}
	_, err := cfg.torus()
	return experiment.Input(err)
}

// ParseSchemes reads scheme names (alltoall.ParseScheme).
func ParseSchemes(names []string) ([]alltoall.Scheme, error) {
	var out []alltoall.Scheme
	for _, s := range names {
		sc, err := alltoall.ParseScheme(s)
		if err != nil {
			return nil, experiment.Refuse("--schemes: %w", err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// torus is the sweep's torus, once its configuration is checked.
func (cfg *AlltoallConfig) torus() (*fabric.Torus, error) {
	t, ok := cfg.Torus.Fabric().(*fabric.Torus)
	if !ok {
		return nil, fmt.Errorf("alltoall runs on a torus, not %s", cfg.Torus)
	}
	if err := cfg.Timeline.CheckNodes(t.Nodes()); err != nil {
		return nil, err
	}
	if len(cfg.Sizes) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	for _, s := range cfg.Sizes {
		if s < 1 {
			return nil, fmt.Errorf("size %d bytes per pair: want at least 1", s)
		}
	}
	if len(cfg.Schemes) == 0 {
		return nil, fmt.Errorf("no schemes")
	}
	switch cfg.Algorithm {
	case "suh-shin":
		for d, r := range t.Radix() {
			if r < 4 || r%4 != 0 {
				return nil, fmt.Errorf("suh-shin on %s: dimension %d has %d nodes; want a multiple of 4 (groups of 4 per dimension)", cfg.Torus, d+1, r)
			}
		}
	case "direct":
		if t.Nodes() > 1024 {
			return nil, fmt.Errorf("direct on %s: %d nodes send n(n-1) puts in n-1 steps; at most 1024 nodes", cfg.Torus, t.Nodes())
		}
	default:
		return nil, fmt.Errorf("unknown algorithm %q (want suh-shin or direct)", cfg.Algorithm)
	}
	if t.Nodes() > 8192 {
		return nil, fmt.Errorf("%s has %d nodes: at most 8192", cfg.Torus, t.Nodes())
	}
	return t, nil
}

// RunAlltoall runs the sweep.
func RunAlltoall(cfg AlltoallConfig) (*AlltoallResult, error) {
	topo, err := cfg.torus()
	if err != nil {
		return nil, &experiment.InputError{Err: err} // what the user chose
	}
	start := time.Now()
	weights := alltoall.UnevenWeights(topo.Nodes(), cfg.Seed)
	if cfg.Heavy {
		weights = alltoall.HeavyWeights(topo.Nodes())
	}
	var sched *alltoall.Schedule
	if cfg.Algorithm == "direct" {
		sched, err = alltoall.Direct(topo.Nodes(), weights, cfg.Threads)
	} else {
		sched, err = alltoall.SuhShin(topo, weights, cfg.Threads)
	}
	if err != nil {
		return nil, err
	}
	res := &AlltoallResult{Torus: cfg.Torus.String(), Algorithm: cfg.Algorithm, Steps: len(sched.Steps), Puts: sched.Puts(), Heavy: cfg.Heavy,
		SyncRule: syncRule(cfg.PaperSyncRule)}
	if cfg.Uneven {
		res.UnevenWeights = "hash"
		if cfg.Heavy {
			res.UnevenWeights = "heavy"
		}
	}
	type latency struct {
		name string
		fc   fabric.Config
	}
	lats := []latency{{latName(cfg.Fabric.TorusLinkLatency), cfg.Fabric}}
	if cfg.EqualLatency {
		fc := cfg.Fabric
		var sum netsim.Time
		for _, l := range fc.TorusLinkLatency {
			sum += l
		}
		if n := len(fc.TorusLinkLatency); n > 0 {
			fc.TorusLinkLatency = []netsim.Time{sum / netsim.Time(n)}
		}
		lats = append(lats, latency{latName(fc.TorusLinkLatency) + " (equal)", fc})
	}
	unevens := []bool{false}
	if cfg.Uneven {
		unevens = append(unevens, true)
	}
	total := len(lats) * len(unevens) * len(cfg.Sizes) * len(cfg.Schemes)
	cfg.Progress.Expect(int64(total))
	done := 0
	for _, lat := range lats {
		for _, uneven := range unevens {
			for _, size := range cfg.Sizes {
				for _, sc := range cfg.Schemes {
					// A fresh machine per run: every run starts at time 0 on the clock grid.
					name := fmt.Sprintf("%s %d B%s, links %s", sc, size, map[bool]string{true: " uneven"}[uneven], lat.name)
					var windows func(netsim.WindowStats)
					if cfg.Windows != nil {
						windows = func(ws netsim.WindowStats) { cfg.Windows(name, ws) }
					}
					c, closeParts, err := buildCluster(topo, lat.fc, cfg.Cluster, cfg.Threads, cfg.Timeline != nil, windows)
					if err != nil {
						return nil, err
					}
					tl := experiment.MachineTimeline(cfg.Timeline, c, done, name)
					t0 := time.Now()
					r, err := alltoall.RunWith(c, sched, sc, alltoall.Sizes{BytesPerPair: size, Uneven: uneven},
						alltoall.Options{PaperRule: cfg.PaperSyncRule})
					closeParts()
					if err != nil {
						return nil, err
					}
					if tl != nil {
						tl.Run(name, 0, c.Now())
					}
					row := AlltoallRow{Scheme: string(sc), BytesPerPair: size, Uneven: uneven, LinkLatencyNs: lat.name,
						TotalUs: r.Total.Microseconds(), LateSteps: r.Late, Events: r.Events, WallS: time.Since(t0).Seconds()}
					if sc != alltoall.BarrierPerStep {
						row.SyncUs = r.SyncExit[0].Microseconds()
						row.SyncSpreadNs = r.SyncSpread.Nanoseconds()
					}
					res.Rows = append(res.Rows, row)
					res.Events += r.Events
					done++ // the next run's machine on the timeline
					cfg.Progress.Step(1, "")
				}
			}
		}
	}
	res.WallS = time.Since(start).Seconds()
	if res.WallS > 0 {
		res.EventsPerS = float64(res.Events) / res.WallS
	}
	res.fillSavings()
	return res, nil
}

func syncRule(paper bool) string {
	if paper {
		return "paper"
	}
	return "stamped"
}

func latName(ls []netsim.Time) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = fmt.Sprintf("%g", l.Nanoseconds())
	}
	return strings.Join(s, "/")
}

// WriteTable prints one table per link latency and evenness: each scheme's total time
// against the size per pair, and the proposal's saving over schemes 1 and 2.
func (r *AlltoallResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "All-to-all (%s, %d steps, %d puts) on %s, total time in µs (simulated; savings derived;\n"+
		"the paper's ~24 µs saving of scheme 3 over scheme 1 on 16x16x16 is read off its Figure 3)\n",
		r.Algorithm, r.Steps, r.Puts, r.Torus)
	type group struct {
		lat    string
		uneven bool
	}
	var groups []group
	cells := map[group]map[int]map[string]AlltoallRow{}
	var sizes []int
	for _, row := range r.Rows {
		g := group{row.LinkLatencyNs, row.Uneven}
		if cells[g] == nil {
			cells[g] = map[int]map[string]AlltoallRow{}
			groups = append(groups, g)
		}
		if cells[g][row.BytesPerPair] == nil {
			cells[g][row.BytesPerPair] = map[string]AlltoallRow{}
			if len(groups) == 1 {
				sizes = append(sizes, row.BytesPerPair)
			}
		}
		cells[g][row.BytesPerPair][row.Scheme] = row
	}
	for _, g := range groups {
		sizesNote := "even sizes"
		if g.uneven {
			sizesNote = "uneven sizes (x0.5 to x1.5 per node)"
			if r.Heavy {
				sizesNote = "uneven sizes (every 8th node x4.0, the others x0.571)"
			}
		}
		fmt.Fprintf(w, "\nlinks X/Y/Z %s ns, %s\n", g.lat, sizesNote)
		t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
		saving := "saving 1-3"
		if r.Torus == "torus:16x16x16" && !g.uneven {
			saving += fmt.Sprintf(" (paper ~%g)", AlltoallPaperSavingUs)
		}
		t.Header("bytes/pair", "1 sync/step", "2 sync at start", "3 proposed", "4 barrier/step", saving, "2-3", "4-3")
		for _, size := range sizes {
			m := cells[g][size]
			cell := func(s alltoall.Scheme) string {
				if row, ok := m[string(s)]; ok {
					return fmt.Sprintf("%.3f", row.TotalUs)
				}
				return "-"
			}
			diff := func(a, b alltoall.Scheme) string {
				x, okx := m[string(a)]
				y, oky := m[string(b)]
				if !okx || !oky {
					return "-"
				}
				return fmt.Sprintf("%+.3f", x.TotalUs-y.TotalUs)
			}
			if err := t.Append(fmt.Sprint(size), cell(alltoall.SyncPerStep), cell(alltoall.SyncAtStart), cell(alltoall.Proposed),
				cell(alltoall.BarrierPerStep), diff(alltoall.SyncPerStep, alltoall.Proposed),
				diff(alltoall.SyncAtStart, alltoall.Proposed), diff(alltoall.BarrierPerStep, alltoall.Proposed)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	late, spread := 0, 0.0
	for _, row := range r.Rows {
		late += row.LateSteps
		spread = max(spread, row.SyncSpreadNs)
	}
	fmt.Fprintf(w, "\nsynchronisation rule: %s; start synchronisation: nodes left at most %.3f ns apart\n", r.SyncRule, spread)
	fmt.Fprintf(w, "proposed: %d (rank, step) pairs began after their computed start\n", late)
	fmt.Fprintf(w, "%d runs, %d events, %.1f s wall, %.2g events per wall second\n", len(r.Rows), r.Events, r.WallS, r.EventsPerS)
	return nil
}

// WritePlot draws total time against bytes per pair for each scheme (even and uneven at
// the first link latencies).
func (r *AlltoallResult) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("alltoall: %w", err)
	}
	if len(r.Rows) == 0 {
		return fmt.Errorf("alltoall: nothing to plot")
	}
	lat := r.Rows[0].LinkLatencyNs
	p := experiment.LogXPlot(fmt.Sprintf("All-to-all on %s, links %s ns (cf. Ohno et al.'s Figure 3; simulated)", r.Torus, lat),
		"bytes per pair", "total time (µs)")
	var c experiment.Curves
	for _, row := range r.Rows {
		if row.LinkLatencyNs != lat {
			continue
		}
		name := strings.ReplaceAll(row.Scheme, "_", " ")
		if row.Uneven {
			name += " (uneven)"
		}
		c.Add(name, row.Uneven, float64(row.BytesPerPair), row.TotalUs)
	}
	return c.Draw(p, file)
}
