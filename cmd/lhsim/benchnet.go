package main

import (
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/internal/flagval"
)

func init() {
	register(&command{name: "bench-net", summary: "network simulation speed: events and flit-hops per CPU second and memory per node, both routers (docs/performance.md)", flags: benchNetFlags})
}

func benchNetFlags(r *runner) func() error {
	cfg := net.BenchNetConfig{Loads: []float64{0.05, 1}, Flits: []int{1, 16}, Warmup: 2000, Measure: 2000, Seed: 1}
	fs := r.fs
	cfg.Topologies = experiment.MustTopologies("torus:8x8x8,torus:16x16x16,fattree:4x3,fattree:4x6")
	topos := topologiesVar(fs, &cfg.Topologies, "topologies", "topologies, comma-separated")
	routers := fs.String("routers", "nsim,booksim", "routers, comma-separated: nsim (the default event-driven router), booksim (--preset booksim)")
	flagval.Floats(fs, &cfg.Loads, "loads", 1e-6, 1, "offered loads, flits/cycle/node (1, the node link's rate, is past every default configuration's saturation)")
	flagval.Ints(fs, &cfg.Flits, "packet-flits", cfg.Flits, 1, 16, "packet sizes in flits")
	flagval.Int64(fs, &cfg.Warmup, "warmup", 0, 1_000_000, "router cycles run before the measurement")
	flagval.Int64(fs, &cfg.Measure, "measure", 1, 1_000_000, "router cycles measured")
	flagval.Seed(fs, &cfg.Seed, "seed", "seed of the traffic")
	r.outputs()
	r.slurmFlags()
	r.jobsFlag(1, "rows measured at once; with more than 1 the rates are per CPU second of each row's own thread and the heap per node is not measured (docs/performance.md)")
	return func() error {
		cfg.Routers, cfg.Jobs = flagval.SplitList(*routers), r.jobs
		if err := topos.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		res, err := runSweep(r, cfg, net.RunBenchNet)
		return report(r, res, err)
	}
}
