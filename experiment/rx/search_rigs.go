package rx

// The three rigs of the search experiment. Each runs every depth and appends one search time
// per depth to its curves in SearchResult.Series: without LHS (a device with LHS off, VL per
// envelope), with LHS (a device with LHS on, every host variant over the same arrivals), and
// QsNET-II (gosim/qsnet, no device).

import (
	"fmt"
	"math/rand/v2"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/gosim/qsnet"
	"github.com/lhsim/lhsim/hw"
)

// searchVariant is one host configuration searched over the same LHS arrivals.
type searchVariant struct {
	cold, warm  string // curve keys for the first and the repeated search ("" to skip)
	cfg         hostcpu.Config
	lhCacheable bool
}

func (c SearchConfig) variants() []searchVariant {
	adj := c.CPU
	adj.StreamPrefetch = false
	none := adj
	none.AdjacentLine = false
	inOrder := c.CPU
	inOrder.ROBEntries = 0
	return []searchVariant{
		{cold: CurveLHSCold, warm: CurveLHS, cfg: c.CPU, lhCacheable: true},
		{cold: CurveLHSColdAdjacent, cfg: adj, lhCacheable: true},
		{cold: CurveLHSColdNoPrefeth, cfg: none, lhCacheable: true},
		{warm: CurveLHSUncached, cfg: c.CPU, lhCacheable: false},
		{warm: CurveLHSInOrder, cfg: inOrder, lhCacheable: true},
	}
}

// newSearchRNG draws the tags of the non-target messages. Every rig starts its own from the
// same seed, so that all three search the same queues.
func newSearchRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// searchMessages is the arrival order for depth x: x messages from the target's source and
// communicator with other tags (so every search compares all three fields, as the paper's
// loop compared every field of every entry), then the target.
func searchMessages(x int, rng *rand.Rand) [][]byte {
	msgs := make([][]byte, 0, x+1)
	for i := 0; i < x; i++ {
		msgs = append(msgs, mpi.Eager(searchSource, int32(rng.IntN(searchTargetTag)), searchComm, nil))
	}
	return append(msgs, mpi.Eager(searchSource, searchTargetTag, searchComm, nil))
}

var searchTarget = mpi.Pattern{Source: searchSource, Tag: searchTargetTag, Comm: searchComm}

func openSearchDevice(c SearchConfig, entries int) (device.Device, error) {
	cfg := device.Config{Model: c.Model, Bridge: c.Bridge}
	cfg.Board.Seed = c.Seed
	if c.SODIMMReadLatency > 0 {
		cfg.Board.Memory = gosim.DefaultSODIMM
		cfg.Board.Memory.ReadLatency = c.SODIMMReadLatency
	}
	if entries != 1024 {
		cfg.Entries = entries
	}
	return device.Open(cfg)
}

func newSearchCPU(cfg hostcpu.Config, dev device.Device, lhCacheable bool) (*hostcpu.CPU, error) {
	cpu, err := hostcpu.New(cfg)
	if err != nil {
		return nil, err
	}
	return cpu, mpi.MapDevice(cpu, mpi.DefaultDeviceBase, lhCacheable)
}

// openSearchRig opens a device with LHS on or off, its host driver, and a host timing model
// over it.
func openSearchRig(cfg SearchConfig, entries int, lhs bool) (dev device.Device, h *drivers.Host, cpu *hostcpu.CPU, m *mpi.HostModel, err error) {
	if dev, err = openSearchDevice(cfg, entries); err != nil {
		return nil, nil, nil, nil, err
	}
	if h, err = drivers.NewHost(dev, cfg.driver(lhs)); err == nil {
		if cpu, err = hostcpu.New(cfg.CPU); err == nil {
			m, err = mpi.NewHostModel(cpu, dev, mpi.DefaultDeviceBase, true)
		}
	}
	if err != nil {
		dev.Close()
		return nil, nil, nil, nil, err
	}
	return dev, h, cpu, m, nil
}

// closeSearchDevice closes dev and reports its error (a lockstep device reports there whether
// the RTL and the Go model disagreed) unless the run already failed.
func closeSearchDevice(dev device.Device, err *error) {
	if cerr := dev.Close(); *err == nil && cerr != nil {
		*err = fmt.Errorf("closing the device: %w", cerr)
	}
}

func psToNs(ps int64) float64 { return float64(ps) / 1000 }

// searchArrive injects msgs into dev and runs it until they have all arrived.
func searchArrive(dev device.Device, msgs [][]byte) error {
	for _, msg := range msgs {
		if err := dev.Inject(msg); err != nil {
			return err
		}
	}
	return dev.RunUntilIdle(uint64(1000 + 200*len(msgs)))
}

// datumOffset is the envelope's fourth 4-byte word: the searched datum of the paper's
// entries, where our envelope carries its size field.
const datumOffset = 12

// datumQueue is the unexpected queue as the paper's loop reads it. The MPI layer loads the
// three match fields of each envelope it examines; the paper's loop also loads the fourth
// word, the searched datum, from the same line (and SearchLoop.Costs charges its compare).
// datum is the host address of message id's fourth word.
type datumQueue struct {
	mpi.Queue
	m     *mpi.HostModel
	datum func(id uint64) uint64
}

func (q datumQueue) Envelope(id uint64) (mpi.Envelope, error) {
	env, err := q.Queue.Envelope(id)
	if err == nil {
		q.m.CPU.Load(q.datum(id), 4)
	}
	return env, err
}

// newSearchEngine is a matching engine that knows the experiment's one communicator and
// charges the compiled loop's instructions.
func newSearchEngine(q mpi.Queue, cpu *hostcpu.CPU, loop SearchLoop) *mpi.Engine {
	e := mpi.NewEngine(q, cpu, loop.Costs())
	if err := e.AddComm(searchComm, searchSource+1); err != nil {
		panic(err) // constants
	}
	return e
}

// timeSearch searches e's unexpected queue for the target, checks that it was found at depth
// x (where names the search in the error otherwise), and returns how long the search took on
// cpu, the host model e charges, in nanoseconds.
func timeSearch(e *mpi.Engine, cpu *hostcpu.CPU, x int, where string) (float64, error) {
	t0 := cpu.Now()
	st, ok, err := e.Search(searchTarget) // the search loop alone: the caller ran Progress
	if err != nil {
		return 0, err
	}
	if !ok || st.Depth != x {
		return 0, fmt.Errorf("%s: target found=%v at depth %d", where, ok, st.Depth)
	}
	return psToNs(cpu.Now() - t0), nil
}

// searchDrain receives every queued message (n of them), oldest first, so the rings are empty.
func searchDrain(e *mpi.Engine, n int) error {
	for i := 0; i < n; i++ {
		r, err := e.Irecv(mpi.Pattern{Source: mpi.AnySource, Tag: mpi.AnyTag, Comm: searchComm})
		if err != nil {
			return err
		}
		if !r.Done() {
			return fmt.Errorf("drain: %d of %d messages received", i, n)
		}
	}
	if e.Pending() != 0 || e.Posted() != 0 {
		return fmt.Errorf("drain: %d unexpected, %d posted left", e.Pending(), e.Posted())
	}
	return nil
}

// runSearchNoLHS: one device with LHS off, every message whole in the tail ring.
func runSearchNoLHS(cfg SearchConfig, depths []int, res *SearchResult) (err error) {
	dev, h, cpu, m, err := openSearchRig(cfg, 1024, false)
	if err != nil {
		return err
	}
	defer closeSearchDevice(dev, &err)
	rq, err := mpi.NewRingQueue(h, m)
	if err != nil {
		return err
	}
	// Every envelope comes by VL into the read window at offset 0.
	q := datumQueue{Queue: rq, m: m, datum: func(uint64) uint64 { return m.Addr(hw.ReadWindowBase) + datumOffset }}
	e := newSearchEngine(q, cpu, cfg.Loop)
	rng := newSearchRNG(cfg.Seed)
	for _, x := range depths {
		msgs := searchMessages(x, rng)
		if err := searchArrive(dev, msgs); err != nil {
			return err
		}
		if err := e.Progress(); err != nil {
			return err
		}
		ns, err := timeSearch(e, cpu, x, fmt.Sprintf("depth %d", x))
		if err != nil {
			return err
		}
		res.Series[CurveNoLHS] = append(res.Series[CurveNoLHS], ns)
		if err := searchDrain(e, len(msgs)); err != nil {
			return err
		}
		cfg.step("no LHS", x)
	}
	// Every VL of the run is a 16-byte envelope load (the messages have no body).
	res.VL.Count = m.VLs
	res.VL.DeviceCyclesEach = float64(m.VLDeviceCycles) / float64(m.VLs)
	res.VL.DeviceNsEach = res.VL.DeviceCyclesEach * mpi.DeviceCyclePs / 1000
	res.VL.HostVisibleNsEach = psToNs(m.VLHostPs) / float64(m.VLs)
	return nil
}

// runSearchLHS: one device with LHS on; every host variant searches the same arrivals, each on its
// own host model (fresh at every depth, so no variant inherits another's cache).
func runSearchLHS(cfg SearchConfig, depths []int, entries int, res *SearchResult) (err error) {
	dev, h, _, m, err := openSearchRig(cfg, entries, true)
	if err != nil {
		return err
	}
	defer closeSearchDevice(dev, &err)
	vs := cfg.variants()
	rng := newSearchRNG(cfg.Seed)
	for _, x := range depths {
		type run struct {
			cpu *hostcpu.CPU
			e   *mpi.Engine
		}
		runs := make([]run, len(vs))
		for i, v := range vs {
			cpu, err := newSearchCPU(v.cfg, dev, v.lhCacheable)
			if err != nil {
				return err
			}
			m.CPU = cpu
			first, err := dev.ReadReg(hw.RegLHProd) // the queue's first entry, as NewLHSQueue reads it
			if err != nil {
				return err
			}
			lq, err := mpi.NewLHSQueue(h, m)
			if err != nil {
				return err
			}
			q := datumQueue{Queue: lq, m: m, datum: func(id uint64) uint64 {
				return m.Addr(h.EntryAddr(first+uint32(id))) + datumOffset
			}}
			runs[i] = run{cpu, newSearchEngine(q, cpu, cfg.Loop)}
		}
		msgs := searchMessages(x, rng)
		if err := searchArrive(dev, msgs); err != nil {
			return err
		}
		for i, v := range vs {
			r := runs[i]
			m.CPU = r.cpu
			if err := r.e.Progress(); err != nil { // learns of the arrivals, flushes their lines
				return err
			}
			for pass, key := range []string{v.cold, v.warm} {
				ns, err := timeSearch(r.e, r.cpu, x, fmt.Sprintf("depth %d, pass %d", x, pass))
				if err != nil {
					return err
				}
				if key != "" {
					res.Series[key] = append(res.Series[key], ns)
				}
			}
		}
		m.CPU = runs[0].cpu
		if err := searchDrain(runs[0].e, len(msgs)); err != nil {
			return err
		}
		cfg.step("LHS", x)
	}
	return nil
}

// runSearchQsNet: a fresh QsNET-II list for every depth, walked by the NIC's thread processor.
func runSearchQsNet(cfg SearchConfig, depths []int, res *SearchResult) error {
	qc := cfg.QsNet
	qc.Seed = cfg.Seed
	rng := newSearchRNG(cfg.Seed)
	for _, x := range depths {
		q, err := qsnet.New(qc)
		if err != nil {
			return err
		}
		for _, msg := range searchMessages(x, rng) {
			var env [16]byte
			copy(env[:], msg)
			q.Arrive(env)
		}
		d, ps, err := q.Search(func(b [16]byte) bool {
			env, _ := mpi.ParseEnvelope(b[:])
			ok, _ := searchTarget.Match(env)
			return ok
		}, false)
		if err != nil {
			return err
		}
		if d != x {
			return fmt.Errorf("depth %d: found at %d", x, d)
		}
		res.Series[CurveQsNet2] = append(res.Series[CurveQsNet2], psToNs(ps))
		cfg.step("QsNET-II", x)
	}
	return nil
}

// driver is how the host driver programs the NIC for one curve.
func (c SearchConfig) driver(lhs bool) drivers.Config {
	d := c.Driver
	d.LHS = lhs
	return d
}
