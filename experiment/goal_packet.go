package experiment

import (
	"fmt"
	"math"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
)

// GoalTopology is the machine a schedule of n ranks runs on without --topology: a crossbar
// of n nodes up to 64, else the smallest torus X×Y×Z (X ≥ Y ≥ Z, as near a cube as it goes)
// of at least n nodes.
func GoalTopology(n int) string {
	if n <= 64 {
		return fmt.Sprintf("crossbar:%d", max(n, 2))
	}
	z := int(math.Floor(math.Cbrt(float64(n))))
	for z > 1 && z*z*z > n {
		z--
	}
	y := z
	for y*y*z < n && y*(y+1)*z < n {
		y++
	}
	x := (n + y*z - 1) / (y * z)
	for x < y {
		x, y = y, x
	}
	return fmt.Sprintf("torus:%dx%dx%d", x, y, z)
}

func runGoalPacket(cfg GoalConfig, s *goal.Schedule) (*GoalResult, error) {
	if cfg.Topology == "" {
		cfg.Topology = GoalTopology(len(s.Ranks))
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
	res, err := goal.RunPacket(s, c, cfg.LogGP.S, goal.Options{Stats: true})
	if err != nil {
		return nil, err
	}
	r := &GoalResult{Schedule: cfg.Schedule, Network: "packet", Ranks: len(s.Ranks), Ops: s.NumOps, EndNs: float64(res.End) / 1000, Events: res.Events,
		Params: fmt.Sprintf("%s, node latency %.3f µs, S=%d B", cfg.Topology, cfg.Cluster.NodeLatency.Microseconds(), cfg.LogGP.S)}
	for i, f := range res.Finished {
		r.PerRank = append(r.PerRank, GoalRankResult{Rank: i, DoneNs: float64(f) / 1000, Match: &res.Match[i], MaxDepth: res.Match[i].MaxDepth(), NotStarted: res.NotRun[i]})
	}
	return r, r.unmatched(res.Unmatched, res.NotRun)
}
