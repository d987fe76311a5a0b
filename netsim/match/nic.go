package match

import (
	"fmt"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
)

// NICConfig is one node's DIMMnet-2 receive path holding its unexpected queue, as the LHS
// paper's micro-benchmark sets it up (lhsim search's rig): the device, the host driver, the
// host model and the MPI engine running the paper's search loop.
type NICConfig struct {
	// Model is the device: device.Go (the golden model) or device.RTL (Verilated, cgo).
	Model device.Model
	// Entries is the LH buffer's size (0: the RTL build's 1024; the RTL takes only that).
	Entries int
	// LHS: with LHS the host reads each envelope from its LH entry by PIO (a cacheable line);
	// without, every message lies whole in NIC memory and each envelope comes by VL.
	LHS bool
	// Host is the host processor (hostcpu.Pentium4: the paper's).
	Host hostcpu.Config
	// Driver is how the host driver programs the NIC (LHS is set from the field above).
	Driver drivers.Config
	// Costs are the search loop's instructions (experiment.SearchLoopO0.Costs()).
	Costs mpi.Costs
	// Seed is the board's randomness.
	Seed uint64
	// Comm is the communicator the messages travel on, Ranks its size.
	Comm  int32
	Ranks int
}

// datumOffset is the envelope's fourth 4-byte word, the searched datum of the paper's
// entries: the paper's loop loads it from the entry's line with the three match fields
// (lhsim search's rig loads it too).
const datumOffset = 12

// NIC is the unexpected queue on a node's DIMMnet-2 receive path. Messages are injected at
// the network input and run into the NIC (LH buffer or tail ring) in device cycles, which
// cost the host nothing; a search is the host model running the paper's loop over them.
type NIC struct {
	cfg NICConfig
	dev device.Device
	h   *drivers.Host
	m   *mpi.HostModel
	CPU *hostcpu.CPU
	e   *mpi.Engine
	lq  *mpi.LHSQueue // with LHS
	// first is the LH entry of arrival 0 of the current host.
	first uint32
	// Spilled counts messages the host moved off a full LH buffer into host memory (the
	// library's software fallback); a match among them is a fallback.
	spilledIDs map[uint64]bool
	arrived    uint64
}

// OpenNIC opens the device and programs it.
func OpenNIC(cfg NICConfig) (*NIC, error) {
	dc := device.Config{Model: cfg.Model, Bridge: device.Cgo, Entries: cfg.Entries}
	dc.Board.Seed = cfg.Seed
	dev, err := device.Open(dc)
	if err != nil {
		return nil, err
	}
	n := &NIC{cfg: cfg, dev: dev, spilledIDs: map[uint64]bool{}}
	dcfg := cfg.Driver
	dcfg.LHS = cfg.LHS
	if n.h, err = drivers.NewHost(dev, dcfg); err == nil {
		err = n.FreshHost()
	}
	if err != nil {
		dev.Close()
		return nil, err
	}
	return n, nil
}

// FreshHost gives the NIC a new host: a CPU with cold caches and a new queue and engine
// starting at the messages still to come (the rig starts one for every LHS depth).
func (n *NIC) FreshHost() error {
	cpu, err := hostcpu.New(n.cfg.Host)
	if err != nil {
		return err
	}
	if n.m == nil {
		if n.m, err = mpi.NewHostModel(cpu, n.dev, mpi.DefaultDeviceBase, true); err != nil {
			return err
		}
	} else {
		if err := mpi.MapDevice(cpu, mpi.DefaultDeviceBase, true); err != nil {
			return err
		}
		n.m.CPU = cpu
	}
	n.CPU = cpu
	var q mpi.Queue
	if n.cfg.LHS {
		first, err := n.dev.ReadReg(hw.RegLHProd)
		if err != nil {
			return err
		}
		n.first = first
		if n.lq, err = mpi.NewLHSQueue(n.h, n.m); err != nil {
			return err
		}
		q = datumQueue{Queue: n.lq, cpu: cpu, datum: func(id uint64) uint64 {
			return n.m.Addr(n.h.EntryAddr(first+uint32(id))) + datumOffset
		}}
	} else {
		rq, err := mpi.NewRingQueue(n.h, n.m)
		if err != nil {
			return err
		}
		// Every envelope comes by VL into the read window at offset 0.
		q = datumQueue{Queue: rq, cpu: cpu, datum: func(uint64) uint64 { return n.m.Addr(hw.ReadWindowBase) + datumOffset }}
	}
	n.e = mpi.NewEngine(q, cpu, n.cfg.Costs)
	n.arrived = 0
	n.spilledIDs = map[uint64]bool{}
	return n.e.AddComm(n.cfg.Comm, n.cfg.Ranks)
}

// datumQueue loads each examined envelope's fourth word, as the paper's loop did.
type datumQueue struct {
	mpi.Queue
	cpu   *hostcpu.CPU
	datum func(id uint64) uint64
}

func (q datumQueue) Envelope(id uint64) (mpi.Envelope, error) {
	env, err := q.Queue.Envelope(id)
	if err == nil {
		q.cpu.Load(q.datum(id), 4)
	}
	return env, err
}

// Close frees the device; its error reports a crash of the RTL.
func (n *NIC) Close() error { return n.dev.Close() }

// Cycle is the device's clock.
func (n *NIC) Cycle() uint64 { return n.dev.Cycle() }

// Arrive injects the message (envelope only: matching reads no body) and runs the NIC until
// it is in, then lets the host learn of it (Progress, which flushes a new entry's line). With
// LHS, a full LH buffer first has its oldest message moved to host memory (mpi.LHSQueue.Spill).
// It returns the message's arrival number.
func (n *NIC) Arrive(src, tag int32) (uint64, error) {
	if n.lq != nil {
		for n.lq.Held() >= n.h.Entries() {
			oldest := n.h.Released()
			ok, err := n.lq.Spill()
			if err != nil {
				return 0, err
			}
			if !ok {
				return 0, fmt.Errorf("the LH buffer is full and holds nothing to move")
			}
			n.spilledIDs[uint64(oldest-n.first)] = true
		}
	}
	if err := n.dev.Inject(mpi.Eager(src, tag, n.cfg.Comm, nil)); err != nil {
		return 0, err
	}
	if err := n.dev.RunUntilIdle(2000); err != nil {
		return 0, err
	}
	if err := n.e.Progress(); err != nil {
		return 0, err
	}
	id := n.arrived
	n.arrived++
	return id, nil
}

func pattern(comm int32, src, tag int32) mpi.Pattern {
	return mpi.Pattern{Source: src, Tag: tag, Comm: comm}
}

// Search times the search loop for (src, tag) over the queue (the message stays): what
// lhsim search's rig times. depth is the messages passed before the match (-1: none).
func (n *NIC) Search(src, tag int32) (id uint64, depth int, ok bool, ps int64, err error) {
	t0 := n.CPU.Now()
	st, ok, err := n.e.Search(pattern(n.cfg.Comm, src, tag))
	if err != nil || !ok {
		return 0, -1, false, n.CPU.Now() - t0, err
	}
	return st.ID, st.Depth, true, n.CPU.Now() - t0, nil
}

// Take is a receive's matching: the search, and when it matches, taking the message out of
// the queue and releasing its storage (mpi.Engine.Improbe and Mrecv with an empty buffer).
// ps is the host time of it all.
func (n *NIC) Take(src, tag int32) (id uint64, depth int, ok bool, ps int64, err error) {
	t0 := n.CPU.Now()
	msg, ok, err := n.e.Improbe(pattern(n.cfg.Comm, src, tag))
	if err != nil || !ok {
		return 0, -1, false, n.CPU.Now() - t0, err
	}
	if _, err := n.e.Mrecv(msg, []byte{}); err != nil {
		return 0, 0, false, n.CPU.Now() - t0, err
	}
	st := msg.Status()
	return st.ID, st.Depth, true, n.CPU.Now() - t0, nil
}

// Spilled says whether message id was moved off the LH buffer to host memory.
func (n *NIC) Spilled(id uint64) bool { return n.spilledIDs[id] }

// Pending is how many messages are in the queue.
func (n *NIC) Pending() int { return n.e.Pending() }

// Drain receives every queued message, oldest first.
func (n *NIC) Drain() error {
	for n.e.Pending() > 0 {
		if _, _, ok, _, err := n.Take(mpi.AnySource, mpi.AnyTag); err != nil || !ok {
			return fmt.Errorf("drain: %d messages left: %v", n.e.Pending(), err)
		}
	}
	return nil
}
