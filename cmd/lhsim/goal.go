package main

import (
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func init() {
	register("goal", goalSummary, runGoal)
}

const goalSummary = "run your own rank programs, a GOAL-subset schedule (send, recv, calc), on the simulated network"

func runGoal(args []string) error {
	cfg := experiment.GoalConfig{Topology: "crossbar:16", Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()}
	fs := newFlags("goal", goalSummary)
	fs.StringVar(&cfg.Schedule, "schedule", "", "the schedule file (docs/network.md: the GOAL subset)")
	fs.StringVar(&cfg.Topology, "topology", cfg.Topology, "crossbar:N, fattree:KxN or torus:XxYxZ; rank r runs on node r")
	cfg.Cluster.NodeLatency = netsim.Microsecond
	timeVar(fs, &cfg.Cluster.NodeLatency, "node-latency", delayUS, "node latency in µs (seed 003 section 5.1)")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if cfg.Schedule == "" {
		return badUsage(fs, errMsg("--schedule FILE is required"))
	}
	if _, err := checkTopology(fs, "topology", cfg.Topology, cfg.Fabric, 1); err != nil {
		return err
	}
	if err := out.check(fs); err != nil {
		return err
	}
	r, err := experiment.RunGoal(cfg)
	if err != nil {
		return err
	}
	return out.write(r, r.WriteTable)
}
