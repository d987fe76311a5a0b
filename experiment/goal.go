package experiment

// lhsim goal: a user's rank programs, read from a GOAL-subset schedule (netsim/goal), run on
// the simulated machine.

import (
	"fmt"
	"io"
	"os"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
)

// GoalConfig is what the user chose.
type GoalConfig struct {
	Schedule string // file
	Topology string
	Fabric   fabric.Config
	Cluster  cluster.Config
}

// GoalResult is when each rank finished.
type GoalResult struct {
	Schedule    string    `json:"schedule"`
	Topology    string    `json:"topology"`
	Ranks       int       `json:"ranks"`
	EndUs       float64   `json:"end_us"`
	FinishedUs  []float64 `json:"finished_us"`
	Events      uint64    `json:"events"`
	NodeLatency float64   `json:"node_latency_us"`
}

// RunGoal reads the schedule and runs it, rank r on node r.
func RunGoal(cfg GoalConfig) (*GoalResult, error) {
	f, err := os.Open(cfg.Schedule)
	if err != nil {
		return nil, err
	}
	s, err := goal.Parse(f)
	f.Close()
	if err != nil {
		return nil, &InputError{err}
	}
	topo, err := fabric.ParseTopology(cfg.Topology)
	if err != nil {
		return nil, err
	}
	if len(s.Ranks) > topo.Nodes() {
		return nil, fmt.Errorf("goal: %d ranks on %s (%d nodes)", len(s.Ranks), cfg.Topology, topo.Nodes())
	}
	c, err := cluster.Build(topo, cfg.Fabric, cfg.Cluster)
	if err != nil {
		return nil, err
	}
	res, err := c.Run(len(s.Ranks), s.Program())
	if err != nil {
		return nil, err
	}
	r := &GoalResult{Schedule: cfg.Schedule, Topology: cfg.Topology, Ranks: len(s.Ranks), EndUs: res.End.Microseconds(),
		Events: res.Events, NodeLatency: cfg.Cluster.NodeLatency.Microseconds()}
	for _, t := range res.Finished {
		r.FinishedUs = append(r.FinishedUs, t.Microseconds())
	}
	return r, nil
}

// WriteTable prints each rank's end.
func (r *GoalResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s on %s, node latency %.1f µs: %d ranks, last done at %.3f µs (%d events)\n",
		r.Schedule, r.Topology, r.NodeLatency, r.Ranks, r.EndUs, r.Events)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("rank", "done at µs")
	for i, f := range r.FinishedUs {
		if err := t.Append(fmt.Sprint(i), fmt.Sprintf("%.3f", f)); err != nil {
			return err
		}
	}
	return t.Render()
}
