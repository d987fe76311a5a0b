package ib

// lhsim ib buffers: receive-buffer memory against node count, per-peer RC QPs against the
// shared receive queue, and a burst that runs the shared queue dry (§5.4).

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ib"
)

// BuffersConfig is what lhsim ib buffers reports.
type BuffersConfig struct {
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

// DefaultBuffers is the PM/InfiniBand-FJ paper's sizes on 2..4,096 nodes, and an incast of 7 senders (the
// GC-LE cluster's 8-port switch) onto queues of 64 and 256 buffers.
func DefaultBuffers() BuffersConfig {
	var ns []int
	for n := 2; n <= 4096; n *= 2 {
		ns = append(ns, n)
	}
	return BuffersConfig{Nodes: ns, PerPeer: 128, SRQDepth: 1024, Senders: 7, Messages: 150, Size: 256,
		Consume: 10 * netsim.Microsecond, Depths: []int{64, 256}, RatesKps: []float64{80, 120, 200}, Params: ib.GCLE()}
}

// BufferRow is receive-buffer memory per node, bytes: per-peer RC and one shared queue.
type BufferRow struct {
	Nodes    int    `json:"nodes"`
	RCBytes  uint64 `json:"rc_bytes"`
	SRQBytes uint64 `json:"srq_bytes"`
}

// DryRow is one incast onto a shared receive queue.
type DryRow struct {
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

// BuffersResult is the memory table and the run-dry study.
type BuffersResult struct {
	Rows    []BufferRow `json:"rows"`
	Dry     []DryRow    `json:"srq_dry"`
	Senders int         `json:"senders"`
	Size    int         `json:"message_bytes"`
}

// RunBuffers computes the memory (from the layout the model allocates) and runs the
// incasts.
func RunBuffers(cfg BuffersConfig) (*BuffersResult, error) {
	res := &BuffersResult{Senders: cfg.Senders, Size: cfg.Size}
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
		res.Rows = append(res.Rows, BufferRow{Nodes: n, RCBytes: a, SRQBytes: b})
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
			row := DryRow{Depth: d, OfferedKps: r.OfferedRate * 1000, HostKps: host, PredictedUs: r.PredictedDry.Microseconds(),
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
func (r *BuffersResult) WriteTable(w io.Writer) error {
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
func (r *BuffersResult) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("ib buffers: %w", err)
	}
	p := experiment.LogXPlot("Receive-buffer memory per node (PM/InfiniBand-FJ paper §5.4)", "nodes", "bytes")
	experiment.LogY(p)
	var c experiment.Curves
	for _, row := range r.Rows {
		c.Add("per-peer RC (128 x 8 KB per QP)", false, float64(row.Nodes), float64(row.RCBytes))
		c.Add("shared receive queue (1,024 x 8 KB)", false, float64(row.Nodes), float64(row.SRQBytes))
	}
	return c.Draw(p, file)
}
