package experiment

// lhsim ib: the PM/InfiniBand-FJ paper (Sumimoto et al.) on the HCA model of netsim/ib: the pmtest round
// trip with and without Data on WQE (Table 4), bandwidth (Figures 5-6, Table 5), receive
// buffer memory against node count and the shared receive queue running dry (§5.4), and
// the time bulk commands save at checkpoint/restart (§5.5). Every figure says whether it
// came out of the simulation, is a parameter restated (input), or is a ratio of others
// (derived); docs/ib.md gives each parameter's source.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/ib"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// The PM/InfiniBand-FJ paper's figures.
var (
	// ibPaperRTT is Table 4: round trip with and without DoWQE, µs (switch included).
	ibPaperRTT = map[string][2]float64{"gc-le": {15.6, 17.9}, "e7501": {16.8, 18.9}}
	// ibPaperEffect is Table 4's "Effects" column, %.
	ibPaperEffect = map[string]float64{"gc-le": 12.5, "e7501": 11.1}
	// ibPaperBW is Table 5: message and RDMA bandwidth, MB/s.
	ibPaperBW = map[string][2]float64{"gc-le": {688.0, 913.2}, "e7501": {586.1, 820.9}}
)

func chipsetLabel(c string) string {
	return map[string]string{"gc-le": "GC-LE", "e7501": "E7501"}[c]
}

// pct is how far sim is from paper, as a signed percentage.
func pct(sim, paper float64) string { return fmt.Sprintf("%+.1f %%", (sim/paper-1)*100) }

// IBRTTConfig is what lhsim ib rtt runs.
type IBRTTConfig struct {
	Size       int // bytes (the message's 16-byte check header included)
	Warmup     int
	Iterations int
	part       string // a part's one run (Parts): a chipset, or ibThreeStages; "": all
}

// DefaultIBRTT is a 16-byte ping-pong, 100 round trips after 10.
func DefaultIBRTT() IBRTTConfig { return IBRTTConfig{Size: 16, Warmup: 10, Iterations: 100} }

// IBRTTRow is one chipset's round trips.
type IBRTTRow struct {
	Chipset     string  `json:"-"`
	DoWQEUs     float64 `json:"dowqe_us"`
	NoDoWQEUs   float64 `json:"no_dowqe_us"`
	Calibrated  bool    `json:"-"` // DoWQEUs is the calibration figure (input)
	DMAReadNs   float64 `json:"-"` // one DMA read of the message (derived from the inputs)
	ImpliedDMA  float64 `json:"-"` // the paper's difference per one-way, ns (derived)
	SwitchNs    float64 `json:"-"`
	FirmwareCyc int     `json:"-"`
}

// IBRTTResult is both chipsets' round trips.
type IBRTTResult struct {
	Size int
	Rows []IBRTTRow
	// ThreeStages is E7501 with its 32-port switch taken as three stages of 8-port chips, a
	// what-if (docs/ib.md): with and without DoWQE, µs, simulated.
	ThreeStages [2]float64
}

// MarshalJSON is the form: {"gc_le": {"dowqe_us", "no_dowqe_us"}, "e7501": {...}}.
func (r *IBRTTResult) MarshalJSON() ([]byte, error) {
	m := map[string]IBRTTRow{}
	for _, row := range r.Rows {
		m[strings.ReplaceAll(row.Chipset, "-", "_")] = row
	}
	return json.Marshal(m)
}

// RunIBRTT runs pmtest's ping-pong on both chipsets, with and without Data on WQE.
func RunIBRTT(cfg IBRTTConfig) (*IBRTTResult, error) {
	res := &IBRTTResult{Size: cfg.Size}
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
		paper := ibPaperRTT[p.Chipset]
		dma := netsim.Time(p.PCIXRequestCycles+p.DMAReadDelayCycles+(cfg.Size+p.PCIXBytes-1)/p.PCIXBytes) * p.PCIXCycle
		res.Rows = append(res.Rows, IBRTTRow{Chipset: p.Chipset, DoWQEUs: with.Microseconds(), NoDoWQEUs: without.Microseconds(),
			Calibrated: p.Chipset == "gc-le", DMAReadNs: dma.Nanoseconds(), ImpliedDMA: (paper[1] - paper[0]) / 2 * 1000,
			SwitchNs: p.SwitchLatency.Nanoseconds(), FirmwareCyc: p.SQCycles})
	}
	if cfg.part != "" && cfg.part != ibThreeStages {
		return res, nil
	}
	m := ib.DefaultConfig()
	m.Params, m.Topology = ib.E7501(), "fattree:2x2" // nodes 0 and 2: three switches apart
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
func (r *IBRTTResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "pmtest round trip, %d-byte messages, µs, beside the PM/InfiniBand-FJ paper's Table 4 (switch included)\n", r.Size)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("chipset", "with DoWQE", "paper", "without DoWQE", "paper", "DoWQE effect", "paper")
	for _, row := range r.Rows {
		paper := ibPaperRTT[row.Chipset]
		with := fmt.Sprintf("%.2f simulated (%s)", row.DoWQEUs, pct(row.DoWQEUs, paper[0]))
		if row.Calibrated {
			with = fmt.Sprintf("%.2f input: calibration", row.DoWQEUs)
		}
		effect := (1 - row.DoWQEUs/row.NoDoWQEUs) * 100
		if err := t.Append(chipsetLabel(row.Chipset), with, fmt.Sprintf("%.1f", paper[0]),
			fmt.Sprintf("%.2f simulated (%s)", row.NoDoWQEUs, pct(row.NoDoWQEUs, paper[1])), fmt.Sprintf("%.1f", paper[1]),
			fmt.Sprintf("%.1f %% derived", effect), fmt.Sprintf("%.1f %%", ibPaperEffect[row.Chipset])); err != nil {
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
		r.ThreeStages[0], pct(r.ThreeStages[0], ibPaperRTT["e7501"][0]), r.ThreeStages[1], pct(r.ThreeStages[1], ibPaperRTT["e7501"][1]))
	fmt.Fprintln(w, "Table 3's other rows (PM/MyrinetXP 8.3 µs, PM/Ethernet 29.6 µs on E7501): not modelled, the seeds give no NIC parameters for them")
	return nil
}

// IBBandwidthConfig is what lhsim ib bandwidth runs.
type IBBandwidthConfig struct {
	Chipsets []string
	Sizes    []int // message sizes; RDMA sizes are these and larger, up to RDMAMax
	RDMAMax  int
}

// DefaultIBBandwidth is both chipsets, 16 B to 8 KB messages and RDMA up to 1 MB.
func DefaultIBBandwidth() IBBandwidthConfig {
	return IBBandwidthConfig{Chipsets: []string{"gc-le", "e7501"}, Sizes: []int{16, 64, 256, 1024, 2048, 4096, 8192}, RDMAMax: 1 << 20}
}

// IBBandwidthRow is one point of a curve.
type IBBandwidthRow struct {
	Chipset string  `json:"chipset"`
	Kind    string  `json:"kind"` // message or rdma
	Bytes   int     `json:"bytes"`
	MBps    float64 `json:"mb_s"`
}

// IBBandwidthResult is the curves and their peaks beside Table 5.
type IBBandwidthResult struct {
	Rows []IBBandwidthRow `json:"rows"`
	// Peak is each chipset's largest message and RDMA bandwidth, simulated, and the paper's.
	Peak map[string]map[string]float64 `json:"peak"`
}

// streamCount is how many messages a point streams: enough that start-up is a few percent.
func streamCount(size int) int { return max(8, min(400, (4<<20)/size)) }

// RunIBBandwidth streams messages and RDMA writes of each size between two nodes.
func RunIBBandwidth(cfg IBBandwidthConfig) (*IBBandwidthResult, error) {
	res := &IBBandwidthResult{Peak: map[string]map[string]float64{}}
	for _, name := range cfg.Chipsets {
		p, err := ib.ParseChipset(name)
		if err != nil {
			return nil, err
		}
		peak := map[string]float64{"paper_message": ibPaperBW[p.Chipset][0], "paper_rdma": ibPaperBW[p.Chipset][1]}
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
				res.Rows = append(res.Rows, IBBandwidthRow{Chipset: p.Chipset, Kind: kind, Bytes: s, MBps: bw})
				peak[kind] = max(peak[kind], bw)
			}
		}
		res.Peak[strings.ReplaceAll(p.Chipset, "-", "_")] = peak
	}
	return res, nil
}

// WriteTable prints the curves and the peaks beside Table 5.
func (r *IBBandwidthResult) WriteTable(w io.Writer) error {
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
func (r *IBBandwidthResult) WritePlot(file string) error {
	if err := CheckPlotFile(file); err != nil {
		return fmt.Errorf("ib bandwidth: %w", err)
	}
	p := logXPlot("PM/InfiniBand-FJ bandwidth, simulated (cf. the PM/InfiniBand-FJ paper's Figures 5-6)", "bytes", "MB/s")
	var c curves
	for _, row := range r.Rows {
		c.add(chipsetLabel(row.Chipset)+" "+row.Kind, false, float64(row.Bytes), row.MBps)
	}
	return c.draw(p, file)
}

// IBBuffersConfig is what lhsim ib buffers reports.
type IBBuffersConfig struct {
	Nodes    []int // node counts for the memory table
	PerPeer  int   // receive buffers per RC QP (the PM/InfiniBand-FJ paper's §5.4: 128)
	SRQDepth int   // shared receive queue buffers (the PM/InfiniBand-FJ paper's §6: 8 MB of 8 KB)
	Senders  int   // the run-dry study: nodes sending to one receiver
	Messages int   // per sender
	Size     int
	Consume  netsim.Time // the receiving host's time per message
	Depths   []int       // shared receive queue depths to run dry
	RatesKps []float64   // offered messages per second at the receiver, thousands
	Params   ib.Params
}

// DefaultIBBuffers is the PM/InfiniBand-FJ paper's sizes on 2..4,096 nodes, and an incast of 7 senders (the
// GC-LE cluster's 8-port switch) onto queues of 64 and 256 buffers.
func DefaultIBBuffers() IBBuffersConfig {
	var ns []int
	for n := 2; n <= 4096; n *= 2 {
		ns = append(ns, n)
	}
	return IBBuffersConfig{Nodes: ns, PerPeer: 128, SRQDepth: 1024, Senders: 7, Messages: 150, Size: 256,
		Consume: 10 * netsim.Microsecond, Depths: []int{64, 256}, RatesKps: []float64{80, 120, 200}, Params: ib.GCLE()}
}

// IBBufferRow is receive-buffer memory per node, bytes: per-peer RC and one shared queue.
type IBBufferRow struct {
	Nodes    int    `json:"nodes"`
	RCBytes  uint64 `json:"rc_bytes"`
	SRQBytes uint64 `json:"srq_bytes"`
}

// IBDryRow is one incast onto a shared receive queue.
type IBDryRow struct {
	Depth       int     `json:"depth"`
	OfferedKps  float64 `json:"offered_kmsg_s"`   // input
	HostKps     float64 `json:"host_kmsg_s"`      // input (1/Consume)
	ThresholdKp float64 `json:"threshold_kmsg_s"` // derived: the rate above which this burst runs the queue dry (0: never, it fits the queue)
	PredictedUs float64 `json:"predicted_dry_us"` // derived: closed form (0: never)
	FirstRNRUs  float64 `json:"first_rnr_us"`     // simulated (0: never)
	RNRNaks     uint64  `json:"rnr_naks"`
	Retransmits uint64  `json:"retransmitted_messages"`
	Delivered   int     `json:"delivered"`
	Sent        int     `json:"sent"`
}

// IBBuffersResult is the memory table and the run-dry study.
type IBBuffersResult struct {
	Rows    []IBBufferRow `json:"rows"`
	Dry     []IBDryRow    `json:"srq_dry"`
	Senders int           `json:"senders"`
	Size    int           `json:"message_bytes"`
}

// RunIBBuffers computes the memory (from the layout the model allocates) and runs the
// incasts.
func RunIBBuffers(cfg IBBuffersConfig) (*IBBuffersResult, error) {
	res := &IBBuffersResult{Senders: cfg.Senders, Size: cfg.Size}
	rc := ib.DefaultConfig()
	rc.Params, rc.Receive, rc.RecvDepth = cfg.Params, ib.PerPeerRQ, cfg.PerPeer
	srq := ib.DefaultConfig()
	srq.Params, srq.Receive, srq.RecvDepth = cfg.Params, ib.SharedRQ, cfg.SRQDepth
	for _, n := range cfg.Nodes {
		if n < 2 || n > 4096 {
			return nil, fmt.Errorf("ib buffers: %d nodes: want 2..4096", n)
		}
		a, _ := ib.ReceiveBytes(rc, n)
		b, _ := ib.ReceiveBytes(srq, n)
		res.Rows = append(res.Rows, IBBufferRow{Nodes: n, RCBytes: a, SRQBytes: b})
	}
	us := float64(netsim.Microsecond)
	for _, d := range cfg.Depths {
		for _, k := range cfg.RatesKps {
			gap := netsim.Time(float64(cfg.Senders) / (k * 1000) * float64(netsim.Second))
			r, err := ib.RunIncast(ib.IncastConfig{Params: cfg.Params, Nodes: cfg.Senders + 1, Depth: d, Size: cfg.Size,
				Count: cfg.Messages, Gap: gap, Consume: cfg.Consume})
			if err != nil {
				return nil, err
			}
			burst := float64(cfg.Senders * cfg.Messages)
			host := us / float64(cfg.Consume) * 1000
			row := IBDryRow{Depth: d, OfferedKps: r.OfferedRate * 1000, HostKps: host, PredictedUs: r.PredictedDry.Microseconds(),
				FirstRNRUs: r.FirstRNR.Microseconds(), RNRNaks: r.RNRNaks, Retransmits: r.Retransmits, Delivered: r.Delivered,
				Sent: cfg.Senders * cfg.Messages}
			if burst > float64(d) {
				row.ThresholdKp = host * burst / (burst - float64(d))
			}
			res.Dry = append(res.Dry, row)
		}
	}
	return res, nil
}

// WriteTable prints both.
func (r *IBBuffersResult) WriteTable(w io.Writer) error {
	fmt.Fprintln(w, "Receive-buffer memory per node (the PM/InfiniBand-FJ paper §5.4; derived from the layout the model allocates):")
	fmt.Fprintln(w, "per-peer RC: 128 buffers of 8 KB per QP, one QP per other node; SRQ: one queue of 1,024 buffers of 8 KB (the 8 MB of §6)")
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("nodes", "RC bytes", "RC", "SRQ bytes", "SRQ", "RC / SRQ")
	for _, row := range r.Rows {
		if err := t.Append(fmt.Sprint(row.Nodes), fmt.Sprint(row.RCBytes), human(row.RCBytes), fmt.Sprint(row.SRQBytes), human(row.SRQBytes),
			fmt.Sprintf("%.2f", float64(row.RCBytes)/float64(row.SRQBytes))); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if row.Nodes == 1024 {
			fmt.Fprintf(w, "paper: 1 MB per RC QP, 1 GB on 1,024 nodes; here %s (%s)\n", human(row.RCBytes), pct(float64(row.RCBytes), 1<<30))
		}
	}
	if len(r.Dry) == 0 {
		return nil
	}
	d := r.Dry[0]
	fmt.Fprintf(w, "\nA shared receive queue running dry (simulated): %d senders send %d messages of %d bytes in all to one node, whose host takes\n", r.Senders, d.Sent, r.Size)
	fmt.Fprintf(w, "each for %.0f µs (%.0f thousand a second, input) before it posts the buffer again; the first RNR NAK against the closed form\n", 1000/d.HostKps, d.HostKps)
	dt := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	dt.Header("depth", "offered k msg/s", "dry above k msg/s (derived)", "first RNR NAK µs", "predicted µs", "RNR NAKs", "resent", "delivered")
	for _, row := range r.Dry {
		first, pred, dry := "never", "never", "never (fits)"
		if row.ThresholdKp > 0 {
			dry = fmt.Sprintf("%.1f", row.ThresholdKp)
		}
		if row.FirstRNRUs > 0 {
			first = fmt.Sprintf("%.1f", row.FirstRNRUs)
		}
		if row.PredictedUs > 0 {
			pred = fmt.Sprintf("%.1f", row.PredictedUs)
		}
		if err := dt.Append(fmt.Sprint(row.Depth), fmt.Sprintf("%.0f", row.OfferedKps), dry, first, pred,
			fmt.Sprint(row.RNRNaks), fmt.Sprint(row.Retransmits), fmt.Sprintf("%d of %d", row.Delivered, row.Sent)); err != nil {
			return err
		}
	}
	if err := dt.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "when the queue runs dry the receiver answers RNR NAKs, the senders wait the RNR timer (10 µs) and resend from the refused message; every message arrives once, in order")
	return nil
}

// human is a byte count in binary units.
func human(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// WritePlot draws memory per node against node count.
func (r *IBBuffersResult) WritePlot(file string) error {
	if err := CheckPlotFile(file); err != nil {
		return fmt.Errorf("ib buffers: %w", err)
	}
	p := logXPlot("Receive-buffer memory per node (PM/InfiniBand-FJ paper §5.4)", "nodes", "bytes")
	logY(p)
	var c curves
	for _, row := range r.Rows {
		c.add("per-peer RC (128 x 8 KB per QP)", false, float64(row.Nodes), float64(row.RCBytes))
		c.add("shared receive queue (1,024 x 8 KB)", false, float64(row.Nodes), float64(row.SRQBytes))
	}
	return c.draw(p, file)
}

// IBCPRConfig is what lhsim ib cpr times.
type IBCPRConfig struct {
	QPs    []int
	Params ib.Params
}

// DefaultIBCPR is 1 to 4,095 QPs (a node of 2 to 4,096 nodes).
func DefaultIBCPR() IBCPRConfig {
	return IBCPRConfig{QPs: []int{1, 3, 15, 63, 255, 1023, 4095}, Params: ib.GCLE()}
}

// IBCPRRow is one QP count: each step bulk and per QP, µs, simulated.
type IBCPRRow struct {
	QPs        int     `json:"qps"`
	BulkUs     float64 `json:"bulk_us"`   // stop + save + restore + resume, one command each
	PerQPUs    float64 `json:"per_qp_us"` // the same, one command per QP
	SavedUs    float64 `json:"saved_us"`  // derived
	StopBulkUs float64 `json:"stop_bulk_us"`
	StopPerQP  float64 `json:"stop_per_qp_us"`
	SaveBulkUs float64 `json:"save_bulk_us"`
	SavePerQP  float64 `json:"save_per_qp_us"`
	ImageBytes int     `json:"image_bytes"`
}

// IBCPRResult is the table.
type IBCPRResult struct {
	Rows []IBCPRRow `json:"rows"`
}

// RunIBCPR times the four steps on one HCA for each QP count.
func RunIBCPR(cfg IBCPRConfig) (*IBCPRResult, error) {
	res := &IBCPRResult{}
	c := ib.DefaultConfig()
	c.Params = cfg.Params
	for _, n := range cfg.QPs {
		b, err := ib.CPRCost(c, n, true)
		if err != nil {
			return nil, err
		}
		e, err := ib.CPRCost(c, n, false)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, IBCPRRow{QPs: n, BulkUs: b.Total().Microseconds(), PerQPUs: e.Total().Microseconds(),
			SavedUs: (e.Total() - b.Total()).Microseconds(), StopBulkUs: b.Stop.Microseconds(), StopPerQP: e.Stop.Microseconds(),
			SaveBulkUs: b.Save.Microseconds(), SavePerQP: e.Save.Microseconds(), ImageBytes: b.ImageBytes})
	}
	return res, nil
}

// WriteTable prints the comparison.
func (r *IBCPRResult) WriteTable(w io.Writer) error {
	fmt.Fprintln(w, "Checkpoint/restart of QP contexts on one HCA (the PM/InfiniBand-FJ paper §5.5): stop, save, restore, resume of every QP, µs, simulated;")
	fmt.Fprintln(w, "bulk = one range command per step, per QP = one command per QP per step (command costs are assumptions: docs/ib.md)")
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("QPs", "stop bulk", "stop per QP", "save bulk", "save per QP", "all four bulk", "all four per QP", "saved (derived)", "image bytes")
	for _, row := range r.Rows {
		if err := t.Append(fmt.Sprint(row.QPs), fmt.Sprintf("%.1f", row.StopBulkUs), fmt.Sprintf("%.1f", row.StopPerQP),
			fmt.Sprintf("%.1f", row.SaveBulkUs), fmt.Sprintf("%.1f", row.SavePerQP), fmt.Sprintf("%.1f", row.BulkUs),
			fmt.Sprintf("%.1f", row.PerQPUs), fmt.Sprintf("%.1f", row.SavedUs), fmt.Sprint(row.ImageBytes)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	last := r.Rows[len(r.Rows)-1]
	fmt.Fprintf(w, "at %d QPs a gang switch (all four steps) takes %.2f ms in bulk and %.2f ms one QP at a time, against SCore's 100 ms time slice\n",
		last.QPs, last.BulkUs/1000, last.PerQPUs/1000)
	return nil
}

// IBRunConfig is a checkpointed run of mixed traffic (lhsim ib run).
type IBRunConfig struct {
	Machine  ib.Config
	Workload ib.Workload
	// CheckpointAt, when not 0, takes a checkpoint then (Bulk: one range command per step).
	CheckpointAt netsim.Time
	Bulk         bool
	// Checkpoint, when set, is where the checkpoint is written; the run then stops there.
	Checkpoint string
	// Timeline, when set, records the run's packets (docs/timeline.md); not with a
	// checkpoint.
	Timeline *timeline.Writer `json:"-"`
	// Progress, when set, is told of the sends completed (done of total) as the run goes.
	Progress func(done, total int64) `json:"-"`
}

// DefaultIBRun is the GC-LE cluster's 8 nodes, small shared receive queues that run dry,
// 50 messages from each node to each other, every fifth an RDMA write.
func DefaultIBRun() IBRunConfig {
	m := ib.DefaultConfig()
	m.Nodes, m.OneCQ, m.RecvDepth, m.SQDepth, m.CQDepth, m.RDMABytes = 8, true, 4, 8, 64, 8*4096
	return IBRunConfig{Machine: m, Bulk: true,
		Workload: ib.Workload{Messages: 50, RDMAEvery: 5, Gap: 2 * netsim.Microsecond, Consume: 12 * netsim.Microsecond, Seed: 1}}
}

// IBRunResult is how a run ended (or where it stopped into a checkpoint file).
type IBRunResult struct {
	Nodes      []ib.NodeOutcome     `json:"nodes,omitempty"`
	Digest     string               `json:"digest,omitempty"` // of every node's outcome
	EndUs      float64              `json:"end_us,omitempty"`
	Checkpoint *ib.CheckpointReport `json:"checkpoint,omitempty"`
	Saved      string               `json:"saved,omitempty"` // the file, when the run stopped into it
	Resumed    bool                 `json:"resumed"`
	Events     uint64               `json:"events"`
}

// RunIB runs the traffic, checkpointing it where asked.
func RunIB(cfg IBRunConfig) (*IBRunResult, error) {
	if err := cfg.Workload.Validate(); err != nil {
		return nil, err
	}
	// A send buffer per WQE a node can have outstanding to each peer.
	cfg.Machine.SendBuffers = max(cfg.Machine.SendBuffers, (cfg.Machine.Nodes-1)*cfg.Machine.SQDepth)
	c, err := ib.Build(cfg.Machine)
	if err != nil {
		return nil, err
	}
	progs := make([]*ib.Traffic, len(c.Nodes()))
	for i := range c.Nodes() {
		progs[i] = ib.NewTraffic(cfg.Workload, i)
		c.Start(i, 0, progs[i])
	}
	if cfg.Timeline != nil {
		if cfg.CheckpointAt > 0 {
			return nil, errors.New("ib run: a timeline records a whole run in one process; not with a checkpoint")
		}
		tl := timeline.NewNet(cfg.Timeline, len(progs))
		timeline.TracePackets(tl, c.Network()).Name = func(p *fabric.Packet) string { return ib.PacketKind(p.Kind) }
		c.Trace(ibHosts{tl})
	}
	if cfg.Progress != nil && cfg.CheckpointAt == 0 {
		// In steps of simulated time, counting the sends completed (the steps are one run:
		// events fire in the same order).
		n := int64(len(progs))
		total := int64(cfg.Workload.Messages) * n * (n - 1)
		for at := ibProgressStep; ; at += ibProgressStep {
			if err := c.Run(at); err != nil {
				return nil, err
			}
			var done int64
			ended := true
			for i, t := range progs {
				done += int64(t.Done)
				if ok, _ := c.Node(i).Host.Done(); !ok {
					ended = false
				}
			}
			cfg.Progress(done, total)
			if ended {
				break
			}
		}
	}
	res := &IBRunResult{}
	if cfg.CheckpointAt > 0 {
		rep, err := c.Checkpoint(cfg.CheckpointAt, cfg.Bulk)
		if err != nil {
			return nil, err
		}
		res.Checkpoint = rep
		if cfg.Checkpoint != "" {
			if err := c.WriteCheckpoint(cfg.Checkpoint, cfg.Workload); err != nil {
				return nil, err
			}
			res.Saved = cfg.Checkpoint
			res.Events = c.Engine().Fired()
			return res, nil
		}
		if err := c.Continue(); err != nil {
			return nil, err
		}
	}
	return res, finishIB(c, res)
}

// ResumeIB reads a checkpoint file and runs it to the end.
func ResumeIB(path string) (*IBRunResult, error) {
	c, meta, err := ib.ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := c.Continue(); err != nil {
		return nil, err
	}
	res := &IBRunResult{Resumed: true, Checkpoint: &meta.Report}
	return res, finishIB(c, res)
}

// ibProgressStep is how much simulated time ib run runs between two progress reports.
const ibProgressStep = 100 * netsim.Microsecond

func finishIB(c *ib.Cluster, res *IBRunResult) error {
	if err := c.Run(netsim.Never); err != nil {
		return err
	}
	o, err := c.Outcome()
	if err != nil {
		return err
	}
	res.Nodes = o
	res.Events = c.Engine().Fired()
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	res.Digest = hex.EncodeToString(sum[:8])
	for _, n := range o {
		res.EndUs = max(res.EndUs, netsim.Time(n.EndPs).Microseconds())
	}
	return nil
}

// WriteTable prints each node's outcome and the run's digest.
func (r *IBRunResult) WriteTable(w io.Writer) error {
	if r.Checkpoint != nil {
		c := r.Checkpoint
		how := "one range command per node and step"
		if !c.Bulk {
			how = "one command per QP"
		}
		if r.Resumed {
			fmt.Fprintf(w, "resumed in this process from the checkpoint file; its HCAs' QPs and queues made from the saved context images\n")
		}
		fmt.Fprintf(w, "checkpoint requested at %.3f µs (%s); in flight then: packets in the network %d, messages unacknowledged %d, WQEs posted not started %d, QPs waiting to resend after an RNR NAK %d\n",
			c.At.Microseconds(), how, c.InFlight.Packets, c.InFlight.Unacked, c.InFlight.NotStarted, c.InFlight.RNRWaiting)
		fmt.Fprintf(w, "stopped %.3f µs, stable %.3f µs, contexts saved %.3f µs (%d commands)\n", c.Stopped.Microseconds(), c.Stable.Microseconds(),
			c.Saved.Microseconds(), c.Commands)
	}
	if r.Saved != "" {
		return nil
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("node", "received", "RDMA writes", "RNR NAKs sent", "resent", "end µs", "received (digest)")
	for _, n := range r.Nodes {
		if err := t.Append(fmt.Sprint(n.Node), fmt.Sprint(n.Received), fmt.Sprint(n.RDMAWrites), fmt.Sprint(n.Stats.RNRNaksSent),
			fmt.Sprint(n.Stats.Retransmits), fmt.Sprintf("%.3f", netsim.Time(n.EndPs).Microseconds()), n.RecvDigest[:16]); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "every message checked in order, once, byte for byte; run digest %s\n", r.Digest)
	return err
}
