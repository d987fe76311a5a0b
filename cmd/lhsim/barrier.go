package main

import (
	"github.com/lhsim/lhsim/experiment/net"
)

func init() {
	register(&command{name: "barrier", summary: "RDMA barriers (ring, recursive doubling, dissemination) against process count on a simulated network (Susukita et al.'s NSIM-ACE paper)", flags: barrierFlags})
}

func barrierFlags(r *runner) func() error {
	cfg := net.DefaultBarrier()
	topos := topologiesVar(r.fs, &cfg.Topologies, "topology", "comma-separated topologies: crossbar:N, fattree:KxN, torus:XxYxZ")
	algs := r.fs.String("algorithm", "ring,recursive_doubling,dissemination", "comma-separated barriers")
	intsVar(r.fs, &cfg.Processes, "processes", nil, 2, maxRanks, "comma-separated process counts (default: powers of two and the count above each, up to the topology's size)")
	timesVar(r.fs, &cfg.NodeLatency, "node-latency", delayUS, "comma-separated node latencies in µs (the NSIM-ACE paper's section 5.1)")
	intVar(r.fs, &cfg.RingMax, "ring-max", 2, maxRanks, "largest process count for the ring, which sends p(p-1) puts")
	r.outputs()
	r.plotFlag("draw barrier time against processes (node latency 1.0 µs when swept) to this .svg or .png")
	r.sweep()
	threads := r.threadsFlag()
	r.timeline()
	return func() (err error) {
		if cfg.Algorithms, err = net.ParseAlgorithms(splitList(*algs)); err != nil {
			return r.check(err)
		}
		if err := topos.check(r); err != nil {
			return err
		}
		if err := r.check(cfg.Validate()); err != nil {
			return err
		}
		if cfg.Timeline, err = r.openTimeline(); err != nil {
			return err
		}
		cfg.Threads = r.splitThreads(*threads, len(cfg.Parts()), func(t int) (int, string) {
			c := cfg
			c.Threads = t
			return net.BarrierThreads(c)
		}, &successLines)
		cfg.Windows = windowsTo("barrier")
		cfg.Progress = r.progress("barrier", "barriers")
		res, err := runSweep(r, cfg, net.RunBarrier)
		return report(r, res, err)
	}
}
