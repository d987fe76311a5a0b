package fabric

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lhsim/lhsim/cputime"
	"github.com/lhsim/lhsim/netsim"
)

// SpeedConfig is one point of the network's speed benchmark (lhsim bench-net,
// docs/performance.md): uniform random traffic at Load flits per cycle per node in packets
// of PacketFlits flits on Topology with the router of Config, run WarmupCycles and then
// measured over MeasureCycles router cycles.
type SpeedConfig struct {
	Topology                    Topology
	Config                      Config
	Load                        float64
	PacketFlits                 int
	WarmupCycles, MeasureCycles int64
	Seed                        uint64
	// Shared says other points run in this process at the same time (lhsim bench-net
	// --jobs): the heap, the process's, is then not measured (HeapPerNode is 0) and no
	// collection is forced; Speed.CPU counts their CPU too, ThreadCPU this point's alone.
	Shared bool
}

// Speed is what one point measured, over the measured cycles only (the warm-up and the
// building of the network excluded).
type Speed struct {
	// Events the simulation ran: engine events on the event-driven router; on the booksim
	// router, what its channels delivered (a flit or a credit arriving at a router or a
	// node), the unit of its cycle-by-cycle work.
	Events   uint64
	FlitHops uint64  // flits moved over a link (injection and ejection links included)
	CPU      float64 // seconds of CPU the process used (user + system, every thread)
	// ThreadCPU is the CPU seconds (user + system) of the one OS thread the point ran on
	// (MeasureSpeed locks its goroutine to it): its own work and the garbage collector's
	// assists it made, but not the collector's background workers, which run on other
	// threads. Unlike CPU it does not count other points run at once.
	ThreadCPU float64
	Wall      float64 // wall seconds of the measured cycles
	Cycles    int64   // router cycles simulated
	// HeapPerNode is the live heap after the measured cycles, less the heap before the
	// network was built, over the nodes: the network, the packets inside it and the ones
	// queued at their sources (which grow without bound past saturation).
	HeapPerNode float64
	Accepted    float64 // flits per cycle per node delivered over the measured cycles
}

// SpeedRun is a network under the speed benchmark's traffic: Step runs its next cycles,
// Count says what it has done so far (events, flits moved over a link, flits delivered).
// Another router model (netsim/fabric/booksim) measures itself through MeasureSpeedOf.
type SpeedRun interface {
	Step(cycles int64)
	Count() (events, flitHops, delivered uint64)
}

// MeasureSpeed runs one point of the speed benchmark on the event model's router.
func MeasureSpeed(c SpeedConfig) (Speed, error) {
	if c.Config.Router != NSIMRouter {
		return Speed{}, fmt.Errorf("%w: MeasureSpeed runs the event model's router; %v measures itself (booksim.MeasureSpeed)", ErrBadConfig, c.Config.Router)
	}
	return MeasureSpeedOf(c, func() (SpeedRun, error) {
		eng := &netsim.Engine{}
		n, err := New(eng, c.Topology, c.Config)
		if err != nil {
			return nil, err
		}
		pat, err := ParsePattern("uniform", c.Topology)
		if err != nil {
			return nil, err
		}
		syn, err := NewSynthetic(n, SyntheticConfig{Pattern: pat, Load: c.Load, PacketFlits: c.PacketFlits, Seed: c.Seed})
		if err != nil {
			return nil, err
		}
		syn.Start(0)
		return &eventRun{eng, n, c.Config.ClockPeriod}, nil
	})
}

type eventRun struct {
	eng   *netsim.Engine
	n     *Network
	clock netsim.Time
}

func (r *eventRun) Step(cycles int64) { r.eng.Run(r.eng.Now() + netsim.Time(cycles)*r.clock) }
func (r *eventRun) Count() (uint64, uint64, uint64) {
	st := r.n.Stats()
	return r.eng.Fired(), st.FlitHops, st.Flits
}

// MeasureSpeedOf runs one point of the speed benchmark on the network build makes (after
// the heap is first read, so that the network counts in HeapPerNode).
func MeasureSpeedOf(c SpeedConfig, build func() (SpeedRun, error)) (Speed, error) {
	var sp Speed
	if c.Topology == nil || c.WarmupCycles < 0 || c.MeasureCycles < 1 {
		return sp, fmt.Errorf("speed: need a topology, a warm-up >= 0 and a measurement >= 1 cycle")
	}
	runtime.LockOSThread() // ThreadCPU: every cycle on this thread
	defer runtime.UnlockOSThread()
	var ms runtime.MemStats
	var heap0 uint64
	if !c.Shared {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap0 = ms.HeapAlloc
	}
	nodes := c.Topology.Nodes()
	run, err := build()
	if err != nil {
		return sp, err
	}
	step, count := run.Step, run.Count
	step(c.WarmupCycles)
	ev0, fh0, fl0 := count()
	cpu0, err := cputime.Process()
	if err != nil {
		return sp, err
	}
	thread0, err := threadCPU()
	if err != nil {
		return sp, err
	}
	start := time.Now()
	step(c.MeasureCycles)
	sp.Wall = time.Since(start).Seconds()
	thread1, err := threadCPU()
	if err != nil {
		return sp, err
	}
	cpu1, err := cputime.Process()
	if err != nil {
		return sp, err
	}
	ev1, fh1, fl1 := count()
	sp.Events, sp.FlitHops, sp.CPU, sp.Cycles = ev1-ev0, fh1-fh0, (cpu1 - cpu0).Seconds(), c.MeasureCycles
	sp.ThreadCPU = (thread1 - thread0).Seconds()
	sp.Accepted = float64(fl1-fl0) / float64(c.MeasureCycles) / float64(nodes)
	if !c.Shared {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		sp.HeapPerNode = (float64(ms.HeapAlloc) - float64(heap0)) / float64(nodes)
	}
	runtime.KeepAlive(count)
	return sp, nil
}

// threadCPU is the CPU time (user + system) the calling OS thread has used.
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("speed: thread CPU time: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
