// Package ib is lhsim ib: the PM/InfiniBand-FJ paper's measurements on netsim/ib.
package ib

// lhsim ib: the PM/InfiniBand-FJ paper (Sumimoto et al.) on the HCA model of netsim/ib: the pmtest round
// trip with and without Data on WQE (Table 4), bandwidth (Figures 5-6, Table 5), receive
// buffer memory against node count and the shared receive queue running dry (§5.4), and
// the time bulk commands save at checkpoint/restart (§5.5). Every figure says whether it
// came out of the simulation, is a parameter restated (input), or is a ratio of others
// (derived); docs/ib.md gives each parameter's source.

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/ib"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Table  = (*RTTResult)(nil)
	_ experiment.Figure = (*BandwidthResult)(nil)
	_ experiment.Figure = (*BuffersResult)(nil)
	_ experiment.Table  = (*CPRResult)(nil)
	_ experiment.Table  = (*RunResult)(nil)
)

// The PM/InfiniBand-FJ paper's figures.
var (
	// paperRTT is Table 4: round trip with and without DoWQE, µs (switch included).
	paperRTT = map[string][2]float64{"gc-le": {15.6, 17.9}, "e7501": {16.8, 18.9}}
	// paperEffect is Table 4's "Effects" column, %.
	paperEffect = map[string]float64{"gc-le": 12.5, "e7501": 11.1}
	// paperBW is Table 5: message and RDMA bandwidth, MB/s.
	paperBW = map[string][2]float64{"gc-le": {688.0, 913.2}, "e7501": {586.1, 820.9}}
)

func chipsetLabel(c string) string {
	return map[string]string{"gc-le": "GC-LE", "e7501": "E7501"}[c]
}

// pct is how far sim is from paper, as a signed percentage.
func pct(sim, paper float64) string { return fmt.Sprintf("%+.1f %%", (sim/paper-1)*100) }

// RTTConfig is what lhsim ib rtt runs.
type RTTConfig struct {
	Size       int // bytes (the message's 16-byte check header included)
	Warmup     int
	Iterations int
	part       string // a part's one run (Parts): a chipset, or threeStages; "": all
}

// DefaultRTT is a 16-byte ping-pong, 100 round trips after 10.
func DefaultRTT() RTTConfig { return RTTConfig{Size: 16, Warmup: 10, Iterations: 100} }

// RTTRow is one chipset's round trips.
type RTTRow struct {
	Chipset     string  `json:"-"`
	DoWQEUs     float64 `json:"dowqe_us"`
	NoDoWQEUs   float64 `json:"no_dowqe_us"`
	Calibrated  bool    `json:"-"` // DoWQEUs is the calibration figure (input)
	DMAReadNs   float64 `json:"-"` // one DMA read of the message (derived from the inputs)
	ImpliedDMA  float64 `json:"-"` // the paper's difference per one-way, ns (derived)
	SwitchNs    float64 `json:"-"`
	FirmwareCyc int     `json:"-"`
}

// RTTResult is both chipsets' round trips.
type RTTResult struct {
	part string // the part of Parts it is the result of ("": the whole)
	Size int
	Rows []RTTRow
	// ThreeStages is E7501 with its 32-port switch taken as three stages of 8-port chips, a
	// what-if (docs/ib.md): with and without DoWQE, µs, simulated.
	ThreeStages [2]float64
}

// rttPart is a part's RTTResult as JSON: whole, so that it reads back (a Slurm array task's).
type rttPart struct {
	Part        string
	Size        int
	Rows        []rttRowWhole
	ThreeStages [2]float64
}

// rttRowWhole is RTTRow with every field written (a conversion drops RTTRow's tags).
type rttRowWhole struct {
	Chipset     string
	DoWQEUs     float64
	NoDoWQEUs   float64
	Calibrated  bool
	DMAReadNs   float64
	ImpliedDMA  float64
	SwitchNs    float64
	FirmwareCyc int
}

// UnmarshalJSON reads a part's result (MarshalJSON's form of a part).
func (r *RTTResult) UnmarshalJSON(b []byte) error {
	var p rttPart
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = RTTResult{part: p.Part, Size: p.Size, ThreeStages: p.ThreeStages}
	for _, row := range p.Rows {
		r.Rows = append(r.Rows, RTTRow(row))
	}
	return nil
}

// MarshalJSON is the form: {"gc_le": {"dowqe_us", "no_dowqe_us"}, "e7501": {...}};
// a part's result is written whole, to be merged (UnmarshalJSON).
func (r *RTTResult) MarshalJSON() ([]byte, error) {
	if r.part != "" {
		p := rttPart{Part: r.part, Size: r.Size, ThreeStages: r.ThreeStages}
		for _, row := range r.Rows {
			p.Rows = append(p.Rows, rttRowWhole(row))
		}
		return json.Marshal(p)
	}
	m := map[string]RTTRow{}
	for _, row := range r.Rows {
		m[strings.ReplaceAll(row.Chipset, "-", "_")] = row
	}
	return json.Marshal(m)
}

// RunRTT runs pmtest's ping-pong on both chipsets, with and without Data on WQE.
func RunRTT(cfg RTTConfig) (*RTTResult, error) {
	res := &RTTResult{Size: cfg.Size, part: cfg.part}
	for _, p := range []ib.Params{ib.GCLE(), ib.E7501()} {
		if cfg.part != "" && cfg.part != p.Chipset {
			continue
		}
		with, err := ib.RTT(p, cfg.Size, true, cfg.Warmup, cfg.Iterations)
		if err != nil {
			return nil, err
		}
		without, err := ib.RTT(p, cfg.Size, false, cfg.Warmup, cfg.Iterations)
		if err != nil {
			return nil, err
		}
		paper := paperRTT[p.Chipset]
		dma := netsim.Time(p.PCIXRequestCycles+p.DMAReadDelayCycles+(cfg.Size+p.PCIXBytes-1)/p.PCIXBytes) * p.PCIXCycle
		res.Rows = append(res.Rows, RTTRow{Chipset: p.Chipset, DoWQEUs: with.Microseconds(), NoDoWQEUs: without.Microseconds(),
			Calibrated: p.Chipset == "gc-le", DMAReadNs: dma.Nanoseconds(), ImpliedDMA: (paper[1] - paper[0]) / 2 * 1000,
			SwitchNs: p.SwitchLatency.Nanoseconds(), FirmwareCyc: p.SQCycles})
	}
	if cfg.part != "" && cfg.part != threeStages {
		return res, nil
	}
	m := ib.DefaultConfig()
	tree, err := fabric.NewFatTree(2, 2) // nodes 0 and 2: three switches apart
	if err != nil {
		return nil, err
	}
	m.Params, m.Topology = ib.E7501(), tree
	for i, inline := range []bool{true, false} {
		t, err := ib.RTTOn(m, 0, 2, cfg.Size, inline, cfg.Warmup, cfg.Iterations)
		if err != nil {
			return nil, err
		}
		res.ThreeStages[i] = t.Microseconds()
	}
	return res, nil
}

// WriteTable prints the round trips beside Table 4.
func (r *RTTResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "pmtest round trip, %d-byte messages, µs, beside the PM/InfiniBand-FJ paper's Table 4 (switch included)\n", r.Size)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("chipset", "with DoWQE", "paper", "without DoWQE", "paper", "DoWQE effect", "paper")
	for _, row := range r.Rows {
		paper := paperRTT[row.Chipset]
		with := fmt.Sprintf("%.2f simulated (%s)", row.DoWQEUs, pct(row.DoWQEUs, paper[0]))
		if row.Calibrated {
			with = fmt.Sprintf("%.2f input: calibration", row.DoWQEUs)
		}
		effect := (1 - row.DoWQEUs/row.NoDoWQEUs) * 100
		if err := t.Append(chipsetLabel(row.Chipset), with, fmt.Sprintf("%.1f", paper[0]),
			fmt.Sprintf("%.2f simulated (%s)", row.NoDoWQEUs, pct(row.NoDoWQEUs, paper[1])), fmt.Sprintf("%.1f", paper[1]),
			fmt.Sprintf("%.1f %% derived", effect), fmt.Sprintf("%.1f %%", paperEffect[row.Chipset])); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	g := r.Rows[0]
	fmt.Fprintf(w, "DoWQE saves one PCI-X DMA read of the message each way: %.0f ns in the model (60-cycle read delay, Myricom),\n", g.DMAReadNs)
	fmt.Fprintf(w, "  %.0f ns each way in the paper's GC-LE figures (%.0f ns on E7501): the rest of the paper's saving is not modelled (docs/ib.md)\n",
		g.ImpliedDMA, r.Rows[1].ImpliedDMA)
	fmt.Fprintf(w, "firmware: %d HCA cycles per message per processor (266 MHz), calibrated once on GC-LE with DoWQE; no E7501-specific bus figure exists\n", g.FirmwareCyc)
	fmt.Fprintf(w, "what-if: E7501's 32-port switch as three stages of 8-port chips: %.2f (%s) and %.2f (%s) µs, simulated\n",
		r.ThreeStages[0], pct(r.ThreeStages[0], paperRTT["e7501"][0]), r.ThreeStages[1], pct(r.ThreeStages[1], paperRTT["e7501"][1]))
	fmt.Fprintln(w, "Table 3's other rows (PM/MyrinetXP 8.3 µs, PM/Ethernet 29.6 µs on E7501): not modelled, the seeds give no NIC parameters for them")
	return nil
}

// BandwidthConfig is what lhsim ib bandwidth runs.
type BandwidthConfig struct {
	Chipsets []ib.Params // read by name where they enter (ParseChipsets)
	Sizes    []int       // message sizes; RDMA sizes are these and larger, up to RDMAMax
	RDMAMax  int
}

// DefaultBandwidth is both chipsets, 16 B to 8 KB messages and RDMA up to 1 MB.
func DefaultBandwidth() BandwidthConfig {
	return BandwidthConfig{Chipsets: []ib.Params{ib.GCLE(), ib.E7501()}, Sizes: []int{16, 64, 256, 1024, 2048, 4096, 8192}, RDMAMax: 1 << 20}
}

// BandwidthRow is one point of a curve.
type BandwidthRow struct {
	Chipset string  `json:"chipset"`
	Kind    string  `json:"kind"` // message or rdma
	Bytes   int     `json:"bytes"`
	MBps    float64 `json:"mb_s"`
}

// BandwidthResult is the curves and their peaks beside Table 5.
type BandwidthResult struct {
	Rows []BandwidthRow `json:"rows"`
	// Peak is each chipset's largest message and RDMA bandwidth, simulated, and the paper's.
	Peak map[string]map[string]float64 `json:"peak"`
}

// streamCount is how many messages a point streams: enough that start-up is a few percent.
func streamCount(size int) int { return max(8, min(400, (4<<20)/size)) }

// RunBandwidth streams messages and RDMA writes of each size between two nodes.
func RunBandwidth(cfg BandwidthConfig) (*BandwidthResult, error) {
	res := &BandwidthResult{Peak: map[string]map[string]float64{}}
	for _, p := range cfg.Chipsets {
		peak := map[string]float64{"paper_message": paperBW[p.Chipset][0], "paper_rdma": paperBW[p.Chipset][1]}
		rdma := append([]int(nil), cfg.Sizes...)
		for s := cfg.Sizes[len(cfg.Sizes)-1] * 2; s <= cfg.RDMAMax; s *= 2 {
			rdma = append(rdma, s)
		}
		for _, kind := range []string{"message", "rdma"} {
			sizes := cfg.Sizes
			if kind == "rdma" {
				sizes = rdma
			}
			for _, s := range sizes {
				if kind == "message" && s > p.MaxMessage {
					continue
				}
				bw, err := ib.Bandwidth(p, s, streamCount(s), kind == "rdma")
				if err != nil {
					return nil, err
				}
				res.Rows = append(res.Rows, BandwidthRow{Chipset: p.Chipset, Kind: kind, Bytes: s, MBps: bw})
				peak[kind] = max(peak[kind], bw)
			}
		}
		res.Peak[strings.ReplaceAll(p.Chipset, "-", "_")] = peak
	}
	return res, nil
}

// WriteTable prints the curves and the peaks beside Table 5.
func (r *BandwidthResult) WriteTable(w io.Writer) error {
	fmt.Fprintln(w, "PM-level bandwidth, MB/s (10^6 B/s), simulated: streams of messages (Figure 5) and RDMA writes (Figure 6)")
	var chips []string
	for _, row := range r.Rows {
		if len(chips) == 0 || chips[len(chips)-1] != row.Chipset {
			chips = append(chips, row.Chipset)
		}
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	header := []any{"bytes"}
	for _, c := range chips {
		header = append(header, chipsetLabel(c)+" message", chipsetLabel(c)+" RDMA")
	}
	t.Header(header...)
	cell := map[[3]any]float64{}
	var sizes []int
	for _, row := range r.Rows {
		cell[[3]any{row.Chipset, row.Kind, row.Bytes}] = row.MBps
		if !slices.Contains(sizes, row.Bytes) {
			sizes = append(sizes, row.Bytes)
		}
	}
	slices.Sort(sizes)
	for _, s := range sizes {
		line := []any{fmt.Sprint(s)}
		for _, c := range chips {
			for _, k := range []string{"message", "rdma"} {
				if v, ok := cell[[3]any{c, k, s}]; ok {
					line = append(line, fmt.Sprintf("%.1f", v))
				} else {
					line = append(line, "-")
				}
			}
		}
		if err := t.Append(line...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nPeaks beside the PM/InfiniBand-FJ paper's Table 5, MB/s")
	pt := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	pt.Header("chipset", "message simulated", "paper", "RDMA simulated", "paper")
	for _, c := range chips {
		pk := r.Peak[strings.ReplaceAll(c, "-", "_")]
		if err := pt.Append(chipsetLabel(c), fmt.Sprintf("%.1f (%s)", pk["message"], pct(pk["message"], pk["paper_message"])),
			fmt.Sprintf("%.1f", pk["paper_message"]), fmt.Sprintf("%.1f (%s)", pk["rdma"], pct(pk["rdma"], pk["paper_rdma"])),
			fmt.Sprintf("%.1f", pk["paper_rdma"])); err != nil {
			return err
		}
	}
	if err := pt.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "RDMA is bounded by 4 KB DMA reads one at a time (62 + 512 PCI-X cycles: 949 MB/s); messages by the SQ processor's calibrated firmware time per message")
	return nil
}

// WritePlot draws bandwidth against size, a curve per chipset and kind.
func (r *BandwidthResult) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("ib bandwidth: %w", err)
	}
	p := experiment.LogXPlot("PM/InfiniBand-FJ bandwidth, simulated (cf. the PM/InfiniBand-FJ paper's Figures 5-6)", "bytes", "MB/s")
	var c experiment.Curves
	for _, row := range r.Rows {
		c.Add(chipsetLabel(row.Chipset)+" "+row.Kind, false, float64(row.Bytes), row.MBps)
	}
	return c.Draw(p, file)
}
