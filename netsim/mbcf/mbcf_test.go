package mbcf

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
)

// The target's space in the tests: read-write, read-only, and a queue.
const (
	rwBase   = 0x1000
	rwSize   = 0x1000
	roBase   = 0x8000
	roSize   = 0x100
	fifoQ    = 0x10000
	fifoRing = 4096
	keyA     = 0x0a0a0a0a
	keyB     = 0x0b0b0b0b
	// In the requester's space.
	aBuf  = 0x4000
	aFlag = 0x5000
)

type rig struct {
	s       *System
	a, b    *Task
	tap     [][]byte // frames node 0 sent, in order
	applied []Applied
}

// newRig is three nodes: task A on node 0 sends to task B on node 1; node 2 is a bystander.
func newRig(t testing.TB, cfg Config) *rig {
	t.Helper()
	s, err := New(cfg, 3)
	require.NoError(t, err)
	a, err := s.AddTask(0, 7, keyA, Segment{Base: aBuf, Size: 0x1000}, Segment{Base: aFlag, Size: 0x100})
	require.NoError(t, err)
	b, err := s.AddTask(1, 9, keyB, Segment{Base: rwBase, Size: rwSize, Perm: PermReadWrite},
		Segment{Base: roBase, Size: roSize, Perm: PermRead}, Segment{Base: fifoQ, Size: FIFOHeaderBytes + fifoRing, Perm: PermReadWrite})
	require.NoError(t, err)
	require.NoError(t, b.Space().InitFIFO(fifoQ, fifoRing))
	ro, _ := b.Space().find(roBase, roSize, 0)
	for i := range ro {
		ro[i] = byte(0xc0 + i)
	}
	r := &rig{s: s, a: a, b: b}
	s.Hub().Tap = func(_ netsim.Time, port int, f []byte) {
		if port == 0 {
			r.tap = append(r.tap, bytes.Clone(f))
		}
	}
	s.Nodes()[1].Trace = func(ap Applied) {
		ap.Cmd.Data = bytes.Clone(ap.Cmd.Data)
		r.applied = append(r.applied, ap)
	}
	return r
}

// snapshot is all of B's memory.
func (r *rig) snapshot() []byte {
	var out []byte
	for _, g := range r.b.space.segs {
		out = append(out, g.mem...)
	}
	return out
}

func (r *rig) run(t testing.TB, prog Program) {
	t.Helper()
	_, err := r.s.Run(map[int]Program{r.a.Num(): prog})
	require.NoError(t, err)
}

// The simulator meets the closed form to the picosecond on an idle pair, for every operation,
// size and network: the model the adapter is calibrated from is the simulator's own.
func TestModelAgrees(t *testing.T) {
	for _, name := range Networks() {
		cfg, err := ForNetwork(name)
		require.NoError(t, err)
		for _, op := range []Opcode{OpWrite, OpRead, OpSwap, OpFIFO} {
			for _, n := range []int{4, 8, 16, 64, 256, 1024, 1408} {
				got, err := RoundTrip(cfg, op, n, 3, ether.Faults{})
				require.NoError(t, err, "%s %v %d", name, op, n)
				require.Equal(t, Model(cfg, op, n), got, "%s %v %d bytes", name, op, n)
			}
		}
	}
}

// Each preset meets the measurement its adapter was calibrated from, and nothing else was
// calibrated (the host's costs are the seed's figures).
func TestCalibration(t *testing.T) {
	fe, e10 := FastEthernet(), Ethernet10()
	us := func(d netsim.Time) float64 { return d.Microseconds() }
	require.InDelta(t, 50.0, us(Model(fe, OpWrite, 4)), 0.001, "§4.2's 4-byte round trip")
	require.InDelta(t, 149.0, us(Model(fe, OpWrite, 1024)-Model(fe, OpWrite, 4)), 0.001, "Table 1's WRITE slope")
	require.InDelta(t, 211.8, us(Model(e10, OpWrite, 4)), 0.001, "Table 2's 4-byte WRITE less the timer")
	require.Zero(t, e10.Adapter.RxDMAByte, "10BASE-T receives at the wire's pace")
	require.Positive(t, fe.Adapter.RxDMAByte)
	require.Equal(t, fe.Host, e10.Host, "one host, two adapters")
	h := DefaultHost()
	require.InDelta(t, 6.40, us(h.RxBase+4*h.CopyByte), 0.0005, "§4.2: the receive routine of a 4-byte write")
	require.InDelta(t, 8.00, us(h.RxBase+h.ReplyExtra+4*h.CopyByte), 0.0005, "§4.2: the status reply's routine")

	_, err := Calibrate(fe, 10*netsim.Microsecond, 0)
	require.Error(t, err, "a round trip shorter than the host and wire alone cannot be met")
	_, err = Calibrate(fe, 50*netsim.Microsecond, 10*netsim.Microsecond)
	require.Error(t, err, "a slope shorter than the wire's cannot be met")
}

// The send system call is Table 3's line (an input): within the line's own residuals of the
// table, 1.2 µs timer included.
func TestSendCostIsTable3(t *testing.T) {
	cfg := FastEthernet()
	for i, n := range Table3Sizes {
		got, err := SendCost(cfg, n)
		require.NoError(t, err)
		require.Equal(t, cfg.Host.SendBase+netsim.Time(n)*cfg.Host.CopyByte, got)
		require.InDelta(t, Table3Us[i], got.Microseconds()+1.2, 0.3, "%d bytes", n)
	}
}

// What each operation does to the target's memory and the requester's, and its flag.
func TestOperations(t *testing.T) {
	r := newRig(t, FastEthernet())
	var got struct {
		read, old []byte
		rec       [][]byte
	}
	r.run(t, func(a *Task) error {
		b := r.b.Remote()
		require.NoError(t, a.Write(b, rwBase+3, []byte("hello, world"), aFlag))
		require.NoError(t, must(a.Await(aFlag)))
		require.NoError(t, a.Read(b, roBase+1, 5, aBuf, aFlag))
		require.NoError(t, must(a.Await(aFlag)))
		got.read, _ = a.Space().Load(aBuf, 5)
		// SWAP of three words: old back, new in, at once.
		require.NoError(t, a.Swap(b, rwBase, []byte("ABCDEFGHIJKL"), aBuf+64, aFlag))
		require.NoError(t, must(a.Await(aFlag)))
		got.old, _ = a.Space().Load(aBuf+64, 12)
		for _, s := range []string{"one", "two!", "three"} {
			require.NoError(t, a.FIFOWrite(b, fifoQ, []byte(s), 0))
		}
		require.NoError(t, a.FIFOWrite(b, fifoQ, []byte("four"), aFlag))
		return must(a.Await(aFlag))
	})
	require.Equal(t, []byte{0xc1, 0xc2, 0xc3, 0xc4, 0xc5}, got.read)
	require.Equal(t, append([]byte{0, 0, 0}, []byte("hello, wo")...), got.old)
	mem, _ := r.b.Space().Load(rwBase, 16)
	require.Equal(t, []byte("ABCDEFGHIJKLrld\x00"), mem)
	for _, want := range []string{"one", "two!", "three", "four"} {
		rec, ok, err := r.b.Space().TakeFIFO(fifoQ)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, want, string(rec))
	}
	_, ok, err := r.b.Space().TakeFIFO(fifoQ)
	require.NoError(t, err)
	require.False(t, ok)
	require.Len(t, r.applied, 7)
	require.Zero(t, r.s.Nodes()[1].Stats().Refused)
}

// Figure 2(b) through the machine: commands combined go in one frame and all land.
func TestCombinedSend(t *testing.T) {
	r := newRig(t, FastEthernet())
	r.run(t, func(a *Task) error {
		return a.Send(r.b.Num(), []Command{
			{Key: keyB, Op: OpWrite, Addr: rwBase, Length: 1, Data: []byte{0xee}},
			{Key: keyB, Op: OpWrite, Addr: rwBase + 8, Length: 4, Data: []byte{1, 2, 3, 4}},
			{Key: keyB, Op: OpRead, Opts: OptStat, Addr: rwBase, Length: 12, Reply: aBuf, Flag: aFlag},
		})
	})
	require.Len(t, r.tap, 2, "one frame for three commands, then the acknowledgement of the reply")
	last, err := ether.Open(r.tap[1])
	require.NoError(t, err)
	require.NotZero(t, last[OffCtrl]&CtrlAckOnly)
	p, err := ether.Open(r.tap[0])
	require.NoError(t, err)
	q, err := Decode(p)
	require.NoError(t, err)
	require.Len(t, q.Cmds, 3)
	mem, _ := r.b.Space().Load(rwBase, 12)
	require.Equal(t, []byte{0xee, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, mem)
	back, _ := r.a.Space().Load(aBuf, 12)
	require.Equal(t, mem, back, "the READ after the WRITEs in the same packet sees them")
	w, _ := r.a.Space().Word(aFlag)
	require.Equal(t, StatusDone, w)
}

// Every wait has a limit and its error names what it waited for.
func TestWaitLimits(t *testing.T) {
	cfg := FastEthernet()
	cfg.Protocol.WaitLimit = 3 * netsim.Millisecond
	r := newRig(t, cfg)
	var e1, e2 error
	var at netsim.Time
	_, err := r.s.Run(map[int]Program{r.a.Num(): func(a *Task) error {
		_, e1 = a.Await(aFlag)
		at = a.Now()
		e2 = a.Spin("the moon", func() bool { return false })
		return nil
	}})
	require.NoError(t, err)
	require.ErrorIs(t, e1, ErrWaitLimit)
	require.Contains(t, e1.Error(), "the flag at 0x5000")
	require.Equal(t, 3*netsim.Millisecond, at)
	require.ErrorIs(t, e2, ErrWaitLimit)
	require.Contains(t, e2.Error(), "the moon")
	// A program's error comes back from Run with its task.
	_, err = r.s.Run(map[int]Program{r.a.Num(): func(a *Task) error { _, err := a.Await(aFlag); return err }})
	require.ErrorIs(t, err, ErrWaitLimit)
	require.Contains(t, err.Error(), "task 0 (node 0, ID 7)")
}

// Bad calls are refused with an error before anything is sent.
func TestBadCalls(t *testing.T) {
	r := newRig(t, FastEthernet())
	c, err := r.s.AddTask(0, 8, 3, Segment{Base: 0, Size: 16})
	require.NoError(t, err)
	var errs []error
	r.run(t, func(a *Task) error {
		b := r.b.Remote()
		errs = append(errs,
			a.Write(Remote{Task: 99}, rwBase, []byte{1}, 0),
			a.Write(c.Remote(), 0, []byte{1}, 0),
			a.Write(b, rwBase, nil, 0),
			a.Write(b, rwBase, make([]byte, MaxWriteData+1), 0),
			a.Write(b, rwBase, []byte{1}, 0x9999),
			a.Read(b, rwBase, 16, 0x9999, 0),
			a.Read(b, rwBase, 0x2000, aBuf, 0),
			a.Read(b, rwBase, -1, aBuf, 0),
			a.Read(b, rwBase, MaxReplyData+4, aBuf, 0),
			a.Swap(b, rwBase, make([]byte, MaxReplyData+4), aBuf, 0),
			a.Swap(b, rwBase, make([]byte, MaxSwapData+4), aBuf, aFlag),
			a.Swap(b, rwBase, []byte{1, 2, 3}, aBuf, 0),
			a.Send(b.Task, nil),
			a.Send(b.Task, []Command{{Key: keyB, Op: OpStatus, Length: 4, Data: make([]byte, 4)}}),
			a.Send(b.Task, []Command{{Key: keyB, Op: OpWrite, Length: 2, Data: []byte{1}}}),
			a.Compute(-1),
		)
		return nil
	})
	for i, e := range errs {
		require.ErrorIs(t, e, ErrBadCall, "call %d", i)
	}
	require.Zero(t, r.s.Hub().Stats().Frames, "nothing was sent")
	require.Zero(t, r.s.Nodes()[0].Stats().KernelTime, "no system call was made")
	// Configurations and machines that cannot work.
	bad := FastEthernet()
	bad.Protocol.Window = 128
	_, err = New(bad, 2)
	require.Error(t, err)
	_, err = New(FastEthernet(), 1)
	require.Error(t, err)
	_, err = r.s.AddTask(1, 9, 0, Segment{Base: 0, Size: 4})
	require.Error(t, err, "a task ID used twice on a node")
	_, err = r.s.AddTask(1, 10, 0, Segment{Base: 0, Size: 8}, Segment{Base: 4, Size: 8})
	require.Error(t, err, "overlapping segments")
	_, err = r.s.Run(map[int]Program{5: nil})
	require.Error(t, err)
}

// A full window and backlog make the send system call wait for room; nothing is lost.
func TestBacklogWaits(t *testing.T) {
	cfg := FastEthernet()
	cfg.Protocol.Window, cfg.Protocol.AckEvery, cfg.Protocol.Backlog = 2, 1, 1
	r := newRig(t, cfg)
	r.run(t, func(a *Task) error {
		for i := range 20 {
			if err := a.FIFOWrite(r.b.Remote(), fifoQ, []byte{byte(i)}, 0); err != nil {
				return err
			}
		}
		return nil
	})
	require.Len(t, r.applied, 20)
	for i, ap := range r.applied {
		require.Equal(t, []byte{byte(i)}, ap.Cmd.Data)
	}
}

// The kernel's work preempts a task's computation, which ends late by exactly that work.
func TestComputeIsPreempted(t *testing.T) {
	r := newRig(t, FastEthernet())
	var end, kernel netsim.Time
	_, err := r.s.Run(map[int]Program{
		r.a.Num(): func(a *Task) error {
			for i := range 10 {
				if err := a.Write(r.b.Remote(), rwBase, []byte{byte(i)}, 0); err != nil {
					return err
				}
			}
			return nil
		},
		r.b.Num(): func(b *Task) error {
			if err := b.Compute(netsim.Millisecond); err != nil {
				return err
			}
			end, kernel = b.Now(), b.Node().Stats().KernelTime
			return nil
		},
	})
	require.NoError(t, err)
	require.Len(t, r.applied, 10)
	require.Positive(t, kernel)
	require.Equal(t, netsim.Millisecond+kernel, end)
}

// Same seeds, same run, bit for bit; another seed, another run.
func TestDeterministic(t *testing.T) {
	run := func(seed uint64) StreamResult {
		cfg := FastEthernet()
		cfg.Seed = seed
		s, err := Stream(cfg, 256, 160, 16, 1, ether.Faults{Drop: 0.05, Duplicate: 0.05, Reorder: 0.05, Seed: seed})
		require.NoError(t, err)
		return s
	}
	require.Equal(t, run(3), run(3))
	require.NotEqual(t, run(3), run(4))
}

// The space's rules: mapping, remote permissions, local access, and the FIFO's wrap-around.
func TestSpace(t *testing.T) {
	s, err := NewSpace(Segment{Base: 0x100, Size: 0x100, Perm: PermRead}, Segment{Base: 0x1000, Size: 64, Perm: PermReadWrite})
	require.NoError(t, err)
	require.True(t, s.Remote(0x100, 0x100, PermRead))
	require.False(t, s.Remote(0x100, 0x101, PermRead))
	require.False(t, s.Remote(0x100, 4, PermWrite))
	require.False(t, s.Remote(0xfc, 8, PermRead), "a range must lie in one segment")
	require.NoError(t, s.Store(0x100, []byte{1}), "the owner writes its read-only segment")
	require.ErrorIs(t, s.Store(0x200, []byte{1}), ErrUnmapped)
	_, err = s.Word(0x1000 + 62)
	require.ErrorIs(t, err, ErrUnmapped)
	for _, bad := range [][]Segment{{{Base: 0, Size: 0}}, {{Base: 0xffff_fff0, Size: 0x20}}, {{Base: 0, Size: 4, Perm: 4}}} {
		_, err := NewSpace(bad...)
		require.Error(t, err)
	}

	require.NoError(t, s.InitFIFO(0x1000, 40))
	require.Error(t, s.InitFIFO(0x1000, 42))
	require.Error(t, s.InitFIFO(0x1000, 64))
	// 40 bytes of ring: records of 4+8 = 12 bytes wrap around after three.
	for round := range 10 {
		for k := range 3 {
			require.Equal(t, ReasonNone, fifoAppend(s, 0x1000, []byte(fmt.Sprintf("r%dk%d....", round, k)[:8])), "round %d", round)
		}
		require.Equal(t, ReasonFIFOFull, fifoAppend(s, 0x1000, make([]byte, 8)), "a fourth does not fit")
		for k := range 3 {
			rec, ok, err := s.TakeFIFO(0x1000)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, fmt.Sprintf("r%dk%d....", round, k)[:8], string(rec))
		}
	}
	require.NoError(t, s.SetWord(0x1000, 6)) // capacity not a multiple of 4
	require.Equal(t, ReasonFIFOBad, fifoAppend(s, 0x1000, []byte{1}))
	require.Equal(t, ReasonRange, fifoAppend(s, 0x100, []byte{1}), "a read-only header")
}
