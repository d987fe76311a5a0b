package ib

// lhsim ib cpr and lhsim ib run: what bulk commands save at checkpoint/restart (§5.5), and a
// verbs program run, stopped into a checkpoint file and resumed.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lhsim/lhsim/experiment"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/ib"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// CPRConfig is what lhsim ib cpr times.
type CPRConfig struct {
	QPs    []int
	Params ib.Params
}

// DefaultCPR is 1 to 4,095 QPs (a node of 2 to 4,096 nodes).
func DefaultCPR() CPRConfig {
	return CPRConfig{QPs: []int{1, 3, 15, 63, 255, 1023, 4095}, Params: ib.GCLE()}
}

// CPRRow is one QP count: each step bulk and per QP, µs, simulated.
type CPRRow struct {
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

// CPRResult is the table.
type CPRResult struct {
	Rows []CPRRow `json:"rows"`
}

// RunCPR times the four steps on one HCA for each QP count.
func RunCPR(cfg CPRConfig) (*CPRResult, error) {
	res := &CPRResult{}
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
		res.Rows = append(res.Rows, CPRRow{QPs: n, BulkUs: b.Total().Microseconds(), PerQPUs: e.Total().Microseconds(),
			SavedUs: (e.Total() - b.Total()).Microseconds(), StopBulkUs: b.Stop.Microseconds(), StopPerQP: e.Stop.Microseconds(),
			SaveBulkUs: b.Save.Microseconds(), SavePerQP: e.Save.Microseconds(), ImageBytes: b.ImageBytes})
	}
	return res, nil
}

// WriteTable prints the comparison.
func (r *CPRResult) WriteTable(w io.Writer) error {
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

// RunConfig is a checkpointed run of mixed traffic (lhsim ib run).
type RunConfig struct {
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
	Progress *experiment.Progress `json:"-"`
}

// DefaultRun is the GC-LE cluster's 8 nodes, small shared receive queues that run dry,
// 50 messages from each node to each other, every fifth an RDMA write.
func DefaultRun() RunConfig {
	m := ib.DefaultConfig()
	m.Nodes, m.OneCQ, m.RecvDepth, m.SQDepth, m.CQDepth, m.RDMABytes = 8, true, 4, 8, 64, 8*4096
	return RunConfig{Machine: m, Bulk: true,
		Workload: ib.Workload{Messages: 50, RDMAEvery: 5, Gap: 2 * netsim.Microsecond, Consume: 12 * netsim.Microsecond, Seed: 1}}
}

// RunResult is how a run ended (or where it stopped into a checkpoint file).
type RunResult struct {
	Nodes      []ib.NodeOutcome     `json:"nodes,omitempty"`
	Digest     string               `json:"digest,omitempty"` // of every node's outcome
	EndUs      float64              `json:"end_us,omitempty"`
	Checkpoint *ib.CheckpointReport `json:"checkpoint,omitempty"`
	Saved      string               `json:"saved,omitempty"` // the file, when the run stopped into it
	Resumed    bool                 `json:"resumed"`
	Events     uint64               `json:"events"`
}

// Run runs the traffic, checkpointing it where asked.
func Run(cfg RunConfig) (*RunResult, error) {
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
		c.Trace(hostTracer{tl})
	}
	if cfg.Progress != nil && cfg.CheckpointAt == 0 {
		// In steps of simulated time, counting the sends completed (the steps are one run:
		// events fire in the same order).
		n := int64(len(progs))
		cfg.Progress.Expect(int64(cfg.Workload.Messages) * n * (n - 1))
		var told int64
		for at := progressStep; ; at += progressStep {
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
			cfg.Progress.Step(done-told, "")
			told = done
			if ended {
				break
			}
		}
	}
	res := &RunResult{}
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
	return res, finish(c, res)
}

// Resume reads a checkpoint file and runs it to the end.
func Resume(path string) (*RunResult, error) {
	c, meta, err := ib.ReadCheckpoint(path)
	if err != nil {
		return nil, experiment.Input(err) // not a checkpoint of an InfiniBand run, or a broken one
	}
	if err := c.Continue(); err != nil {
		return nil, err
	}
	res := &RunResult{Resumed: true, Checkpoint: &meta.Report}
	return res, finish(c, res)
}

// progressStep is how much simulated time ib run runs between two progress reports.
const progressStep = 100 * netsim.Microsecond

func finish(c *ib.Cluster, res *RunResult) error {
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
func (r *RunResult) WriteTable(w io.Writer) error {
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
