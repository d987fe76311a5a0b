package mbcf

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// The seed's benchmark programs (§4.1), between task 0 on node 0 and task 1 on node 1.

// Addresses in the benchmark tasks' spaces.
const (
	benchKey   = 0x5a5a_0001
	benchKey2  = 0x5a5a_0002
	benchData  = 0x1_0000 // the remote buffer written, read or swapped
	benchLocal = 0x2_0000 // the requester's buffer (READ and SWAP land there)
	benchFlag  = 0x3_0000 // the requester's flag
	benchBytes = 0x1_0000
)

// Pair is a fresh two-node machine with one task on each, set up as the seed's benchmarks
// need: a 64 KiB read-write segment at benchData and private buffers in the requester.
func Pair(cfg Config) (*System, *Task, *Task, error) {
	s, err := New(cfg, 2)
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := s.AddTask(0, 1, benchKey, Segment{Base: benchData, Size: benchBytes, Perm: PermReadWrite},
		Segment{Base: benchLocal, Size: benchBytes}, Segment{Base: benchFlag, Size: 4096})
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := s.AddTask(1, 1, benchKey2, Segment{Base: benchData, Size: benchBytes, Perm: PermReadWrite})
	if err != nil {
		return nil, nil, nil, err
	}
	return s, a, b, nil
}

// RoundTrip is the seed's round-trip benchmark: iters times, task 0 issues op (its _STAT form)
// of n bytes at task 1's buffer and spins on the flag, from just before the system call to
// seeing the flag (§4.1). It returns the mean round trip, as simulated (the timer's reads
// are not added); the faults, if any, make the Ethernet lossy.
func RoundTrip(cfg Config, op Opcode, n, iters int, faults ether.Faults) (netsim.Time, error) {
	if iters < 1 {
		return 0, fmt.Errorf("mbcf: %d iterations", iters)
	}
	s, a, b, err := Pair(cfg)
	if err != nil {
		return 0, err
	}
	if err := s.SetFaults(faults); err != nil {
		return 0, err
	}
	var total netsim.Time
	prog := func(t *Task) error {
		data := make([]byte, n)
		for i := range iters {
			for k := range data {
				data[k] = byte(i + k)
			}
			start := t.Now()
			var err error
			switch op {
			case OpWrite:
				err = t.Write(b.Remote(), benchData, data, benchFlag)
			case OpRead:
				err = t.Read(b.Remote(), benchData, n, benchLocal, benchFlag)
			case OpSwap:
				err = t.Swap(b.Remote(), benchData, data, benchLocal, benchFlag)
			case OpFIFO:
				err = t.FIFOWrite(b.Remote(), benchData, data, benchFlag)
			default:
				return fmt.Errorf("mbcf: no round trip for %v", op)
			}
			if err != nil {
				return err
			}
			r, err := t.Await(benchFlag)
			if err != nil {
				return err
			}
			if r != ReasonNone {
				return fmt.Errorf("mbcf: %v round trip %d failed: %v", op, i, r)
			}
			total += t.Now() - start
		}
		return nil
	}
	if op == OpFIFO {
		if err := b.Space().InitFIFO(benchData, benchBytes-FIFOHeaderBytes); err != nil {
			return 0, err
		}
	}
	if _, err := s.Run(map[int]Program{a.Num(): prog}); err != nil {
		return 0, err
	}
	return total / netsim.Time(iters), nil
}

// SendCost is the send system call's time for an n-byte MBCF_WRITE without a flag, from the
// call to its return (Table 3's measurement, less the timer).
func SendCost(cfg Config, n int) (netsim.Time, error) {
	s, a, b, err := Pair(cfg)
	if err != nil {
		return 0, err
	}
	var d netsim.Time
	_, err = s.Run(map[int]Program{a.Num(): func(t *Task) error {
		start := t.Now()
		if err := t.Write(b.Remote(), benchData, make([]byte, n), 0); err != nil {
			return err
		}
		d = t.Now() - start
		return nil
	}})
	return d, err
}

// StreamResult is a burst of writes.
type StreamResult struct {
	Bytes   int64       // data written
	Elapsed netsim.Time // first system call to the last flag
	Stats   NodeStats   // both nodes' counters
	Hub     ether.Stats
}

// MBps is the net rate, in 10^6 bytes a second (the seed's "Mbyte/s": 12.5 for 100 Mb/s).
func (r StreamResult) MBps() float64 {
	return float64(r.Bytes) / r.Elapsed.Microseconds()
}

// Stream is the seed's peak-bandwidth benchmark (§4.1, Table 4): MBCF_WRITEs of n bytes in a
// burst to one address of task 1; the last write of every group asks for its completion flag
// ("16 転送毎に完了フラグを返送させてチェックするアクノリッジによって流量を調節"). With inFlight 1,
// task 0 waits for a group's flag before it sends the next group (the plain reading of the
// seed's sentence); with k, it waits for the flag of the group k-1 before the one it has just
// sent, so that k groups may be on their way. The rate counts the data alone; the faults, if
// any, make the Ethernet lossy.
func Stream(cfg Config, n, writes, group, inFlight int, faults ether.Faults) (StreamResult, error) {
	if writes < 1 || group < 1 || writes%group != 0 || inFlight < 1 || inFlight > 64 {
		return StreamResult{}, fmt.Errorf("mbcf: %d writes in groups of %d, %d groups in flight: want a whole number of groups and 1..64 in flight", writes, group, inFlight)
	}
	s, a, b, err := Pair(cfg)
	if err != nil {
		return StreamResult{}, err
	}
	if err := s.SetFaults(faults); err != nil {
		return StreamResult{}, err
	}
	var res StreamResult
	_, err = s.Run(map[int]Program{a.Num(): func(t *Task) error {
		data := make([]byte, n)
		flag := func(g int) uint32 { return benchFlag + 4*uint32(g%inFlight) }
		wait := func(g int) error {
			r, err := t.Await(flag(g))
			if err != nil {
				return err
			}
			if r != ReasonNone {
				return fmt.Errorf("mbcf: group %d failed: %v", g, r)
			}
			return nil
		}
		start := t.Now()
		groups := writes / group
		for g := range groups {
			for i := range group {
				f := uint32(0)
				if i == group-1 {
					f = flag(g)
				}
				if err := t.Write(b.Remote(), benchData, data, f); err != nil {
					return err
				}
			}
			if w := g - inFlight + 1; w >= 0 {
				if err := wait(w); err != nil {
					return err
				}
			}
		}
		for w := max(0, groups-inFlight+1); w < groups; w++ {
			if err := wait(w); err != nil {
				return err
			}
		}
		res.Elapsed = t.Now() - start
		res.Bytes = int64(writes) * int64(n)
		return nil
	}})
	res.Stats = s.Stats()
	res.Hub = s.Hub().Stats()
	return res, err
}
