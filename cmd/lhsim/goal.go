package main

import (
	"fmt"
	"strconv"

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
	nl := fs.String("node-latency", "1.0", "node latency in µs (seed 003 section 5.1)")
	out := addOutputFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if cfg.Schedule == "" {
		return badUsage(fs, errMsg("--schedule FILE is required"))
	}
	if _, err := fabric.ParseTopology(cfg.Topology); err != nil {
		return badUsage(fs, fmt.Errorf("--topology: %w", err))
	}
	us, err := strconv.ParseFloat(*nl, 64)
	if err != nil || us < 0 {
		return badUsage(fs, fmt.Errorf("--node-latency %q: want microseconds >= 0", *nl))
	}
	cfg.Cluster.NodeLatency = netsim.NS(us * 1000)
	if err := out.check(fs); err != nil {
		return err
	}
	r, err := experiment.RunGoal(cfg)
	if err != nil {
		return err
	}
	return out.write(r, r.WriteTable)
}
