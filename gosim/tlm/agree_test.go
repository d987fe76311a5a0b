package tlm_test

// The transaction-level model against the cycle-accurate ones, message by message: the
// Verilated RTL where its build's 1024-entry LH buffer will do, and the Go golden model (which
// the lockstep suite holds to the RTL every cycle) for smaller buffers.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/gosim/tlm"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/internal/testseed"
)

// scenario is one kind of randomized run.
type scenario struct {
	name     string
	model    device.Model
	entries  int  // LH buffer (0: the RTL build's 1024)
	lhsOn    bool //
	ringMin  uint32
	ringMax  uint32 // tail ring bytes, drawn in [ringMin, ringMax]
	idle     int    // the board's IdlePercent at most
	busy     int    // the SO-DIMM's BusyPercent at most
	maxDelay int    // the host waits up to this many cycles before it handles an entry
	msgs     int
	short    bool // mostly short messages, so that a slow host fills the LH buffer
	want     func(c tlm.Counters) bool
	wantText string
}

var scenarios = []scenario{
	{name: "go-lh64", model: device.Go, entries: 64, lhsOn: true, ringMin: 1 << 16, ringMax: 1 << 20, idle: 30, maxDelay: 300, msgs: 2000,
		want: func(c tlm.Counters) bool { return c.LHWaits > 50 }, wantText: "LH buffer full"},
	{name: "go-lh4-ring", model: device.Go, entries: 4, lhsOn: true, ringMin: 16, ringMax: 2048, idle: 40, busy: 30, maxDelay: 60, msgs: 2000,
		want: func(c tlm.Counters) bool { return c.LHWaits > 50 && c.RingWaits > 20 && c.TooLong > 0 }, wantText: "LH and ring waits, too long"},
	{name: "go-lhs-off", model: device.Go, entries: 64, ringMin: 16, ringMax: 4096, idle: 40, busy: 30, maxDelay: 100, msgs: 2000,
		want: func(c tlm.Counters) bool { return c.RingWaits > 50 && c.Drops > 0 }, wantText: "ring waits and drops"},
	{name: "rtl-lh", model: device.RTL, lhsOn: true, ringMin: 1 << 20, ringMax: 1 << 20, idle: 10, maxDelay: 40, msgs: 3000, short: true,
		want: func(c tlm.Counters) bool { return c.LHWaits > 100 }, wantText: "LH buffer full"},
	{name: "rtl-ring", model: device.RTL, lhsOn: true, ringMin: 16, ringMax: 4096, idle: 30, busy: 20, maxDelay: 200, msgs: 1500,
		want: func(c tlm.Counters) bool { return c.RingWaits > 50 && c.TooLong > 0 }, wantText: "ring waits, too long"},
	{name: "rtl-lhs-off", model: device.RTL, ringMin: 16, ringMax: 4096, idle: 30, busy: 20, maxDelay: 100, msgs: 1500,
		want: func(c tlm.Counters) bool { return c.RingWaits > 50 && c.Drops > 0 }, wantText: "ring waits and drops"},
}

// run is one randomized run: the configuration and the world around the NIC.
type run struct {
	seed   uint64
	cfg    tlm.Config
	idle   int // IdlePercent
	busy   int // BusyPercent
	msgs   [][]byte
	delay  []uint64   // the host's delay before it handles message k's entry
	gaps   [][]uint32 // the source's idle cycles before each beat of each message
	memRng uint64     // the seeds the board gives its SO-DIMM and its source
}

// newRun draws a run from seed.
func newRun(sc scenario, seed uint64) *run {
	rng := rand.New(rand.NewPCG(seed, 0x746c6d))
	cfg := tlm.DefaultConfig()
	cfg.LHSOn = sc.lhsOn
	if sc.entries != 0 {
		cfg.Entries = sc.entries
	}
	cfg.SizePos = 4 * uint32(rng.IntN(4))
	cfg.SplitPos = 16 * uint32(1+rng.IntN(3))
	cfg.MaxMsg = []uint32{0xffff, 200, 100, 1000}[rng.IntN(4)]
	cfg.TailSize = 16 * uint32(sc.ringMin/16+uint32(rng.IntN(int((sc.ringMax-sc.ringMin)/16)+1)))
	cfg.TailBase = 16 * uint32(rng.IntN(1<<16))
	r := &run{seed: seed, cfg: cfg, idle: rng.IntN(sc.idle + 1), busy: rng.IntN(sc.busy + 1)}
	if sc.idle > 0 && r.idle == 0 {
		r.idle = sc.idle / 2
	}
	for range sc.msgs {
		r.msgs = append(r.msgs, randMessage(rng, cfg, sc.short))
		r.delay = append(r.delay, uint64(rng.IntN(sc.maxDelay+1)))
	}

	// The board seeds its SO-DIMM and its source from its own seed (gosim.NewBoard): replay the
	// source's draws to give the model the same idle cycles. The source draws once a cycle
	// while it has a beat to show and is not showing one, so each beat's idle cycles are
	// drawn in turn whatever the NIC does.
	brd := gosim.NewRand(seed)
	r.memRng = brd.Uint64()
	src := gosim.NewRand(brd.Uint64())
	for _, m := range r.msgs {
		g := make([]uint32, (len(m)+15)/16)
		for j := range g {
			for r.idle > 0 && src.Intn(100) < r.idle {
				g[j]++
			}
		}
		r.gaps = append(r.gaps, g)
	}
	return r
}

// randMessage draws a message whose length and size field cross the rule's boundaries: the
// inline limit, SPLIT_POS, MAX_MSG and the ring's size; some size fields lie.
func randMessage(rng *rand.Rand, cfg tlm.Config, short bool) []byte {
	var n int
	switch p := rng.IntN(100); {
	case short && p < 70:
		n = 1 + rng.IntN(40)
	case p < 15:
		n = 1 + rng.IntN(16)
	case p < 45:
		n = 40 + rng.IntN(30) // around 48 and 56
	case p < 90:
		n = 60 + rng.IntN(260)
	default:
		n = 300 + rng.IntN(1500)
	}
	m := make([]byte, n)
	for i := range m {
		m[i] = byte(rng.Uint32())
	}
	size := uint32(n)
	switch p := rng.IntN(100); {
	case p < 8:
		size = uint32(rng.IntN(120)) // lies, often across 56
	case p < 14:
		size = uint32(n + 1 + rng.IntN(500))
	case p < 18:
		size = cfg.MaxMsg + 1 + uint32(rng.IntN(100))
	case p < 20:
		size = 0x10000 + uint32(rng.IntN(1000)) // past the 16 bits the ring arithmetic uses
	case p < 22:
		size = 0
	}
	var f [4]byte
	binary.LittleEndian.PutUint32(f[:], size)
	copy(m[min(int(cfg.SizePos), n):], f[:]) // a short message carries part of it, or none
	return m
}

// offUnits is the ring space the host gives back for a message with LHS off: what it
// reserved, known to the host from the envelope (0 when dropped).
func offUnits(cfg tlm.Config, m []byte) uint32 {
	var b [16]byte
	copy(b[:], m)
	size := binary.LittleEndian.Uint32(b[cfg.SizePos:])
	if size > cfg.MaxMsg || hw.RingUnits(size) > cfg.TailSize/16 {
		return 0
	}
	return hw.RingUnits(size)
}

// host is the host of the randomized runs: it handles entries in order, each no earlier
// than delay cycles after the message finished and after it is done with the last one. With
// LHS on it reads the entry (16 word reads, the last answered two cycles later), releases it
// and then, if SPLIT, its tail; with LHS off it gives back each message's ring space.
type host struct {
	lhsOn   bool
	busFree uint64
}

// ops are the cycles of one entry's host bus operations.
type ops struct {
	read, relLH, relTail uint64
	tail                 bool
}

func (h *host) plan(done, delay uint64, units uint32) ops {
	s := max(done+1+delay, h.busFree)
	if !h.lhsOn {
		if units == 0 {
			return ops{}
		}
		h.busFree = s + 1
		return ops{relTail: s, tail: true}
	}
	o := ops{read: s, relLH: s + 18, relTail: s + 19, tail: units > 0}
	h.busFree = o.relLH + 1
	if o.tail {
		h.busFree = o.relTail + 1
	}
	return o
}

// entryUnits is the tail space the host gives back for an entry: hw.TailUnits of its size
// field if it is SPLIT, as device.Local's consumer does.
func entryUnits(cfg tlm.Config, e []byte) uint32 {
	if e[hw.EntryFlagsOffset]&hw.FlagSplit == 0 {
		return 0
	}
	return hw.TailUnits(binary.LittleEndian.Uint32(e[cfg.SizePos:]), cfg.SplitPos)
}

// result is what a run produced, per message and at the end.
type result struct {
	start   uint64   // the cycle the first message was first shown (the source may idle then)
	done    []uint64 // ev_commit (LHS on) or ev_msg_done (LHS off) cycles
	entries [][]byte // each entry as the host read it (LHS on)
	regs    map[string]uint32
	ring    []byte // the tail ring at the end
	count   tlm.Counters
}

var endRegs = []struct {
	name string
	addr uint32
}{{"LH_PROD", hw.RegLHProd}, {"LH_CONS", hw.RegLHCons}, {"TAIL_WPTR", hw.RegTailWptr}, {"TAIL_USED", hw.RegTailUsed},
	{"MSG_COUNT", hw.RegMsgCount}, {"STALL_CYCLES", hw.RegStallCycles}, {"MISMATCH_COUNT", hw.RegMismatchCount},
	{"DROP_COUNT", hw.RegDropCount}, {"STORED_COUNT", hw.RegStoredCount}}

// onDevice runs r on the cycle-accurate device.
func onDevice(t *testing.T, model device.Model, r *run) result {
	t.Helper()
	cfg := r.cfg
	dc := device.Config{Model: model, Board: gosim.BoardConfig{IdlePercent: r.idle, Seed: r.seed,
		Memory: gosim.SODIMMParams{ReadLatency: gosim.DefaultSODIMM.ReadLatency, MaxOutstanding: gosim.DefaultSODIMM.MaxOutstanding, BusyPercent: r.busy}}}
	if cfg.Entries != gosim.DefaultParams.Entries {
		dc.Entries = cfg.Entries
	}
	l, err := device.OpenLocal(dc)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	b := l.Board
	ctrl := uint32(hw.CtrlEnable)
	if cfg.LHSOn {
		ctrl |= hw.CtrlLHSOn
	}
	for _, w := range [][2]uint32{{hw.RegTailSize, cfg.TailSize}, {hw.RegTailBase, cfg.TailBase}, {hw.RegSizePos, cfg.SizePos},
		{hw.RegSplitPos, cfg.SplitPos}, {hw.RegMaxMsg, cfg.MaxMsg}, {hw.RegCtrl, ctrl}} {
		require.NoError(t, b.WriteReg(w[0], w[1]))
	}
	e, err := b.ReadReg(hw.RegErr)
	require.NoError(t, err)
	require.Zero(t, e, "ERR after the set-up")

	var res result
	b.OnCycle(func(c uint64, p *gosim.Pins) {
		if p.EvMsgDone != 0 {
			res.done = append(res.done, c)
		}
	})
	for _, m := range r.msgs {
		require.NoError(t, b.Inject(m))
	}
	res.start = b.Cycle()
	limit := b.Cycle() + 100_000 // far more than any run needs
	for _, m := range r.msgs {
		limit += 2000 + 10*uint64(len(m)/16)
	}
	step := func() {
		if b.Cycle() > limit {
			t.Fatalf("device: %d of %d messages done after %d cycles\n%s", len(res.done), len(r.msgs), b.Cycle(), testseed.Replay(t, r.seed, "./gosim/tlm"))
		}
		b.Step()
	}
	h := host{lhsOn: cfg.LHSOn}
	buf := make([]byte, hw.EntryBytes)
	for k, m := range r.msgs {
		for len(res.done) <= k {
			step()
		}
		units := offUnits(cfg, m)
		if cfg.LHSOn {
			// The read starts at o.read; the entry tells the host what tail to give back.
			s := max(res.done[k]+1+r.delay[k], h.busFree)
			for b.Cycle() < s {
				step()
			}
			require.NoError(t, b.ReadBlock(hw.LHBase+hw.EntryBytes*uint32(k%cfg.Entries), buf))
			res.entries = append(res.entries, bytes.Clone(buf))
			units = entryUnits(cfg, buf)
		}
		o := h.plan(res.done[k], r.delay[k], units)
		if cfg.LHSOn {
			require.Equal(t, o.relLH, b.Cycle(), "the read took the cycles the host plans for")
			b.Post(hw.RegLHRelease, 1) // on the bus at o.relLH
			if o.tail {
				b.Post(hw.RegTailRelease, units*16) // and at o.relTail
			}
		} else if o.tail {
			for b.Cycle() < o.relTail {
				step()
			}
			b.Post(hw.RegTailRelease, units*16)
		}
	}
	for range 4 {
		step()
	}
	res.regs = map[string]uint32{}
	for _, rg := range endRegs {
		v, err := b.ReadReg(rg.addr)
		require.NoError(t, err)
		res.regs[rg.name] = v
	}
	e, err = b.ReadReg(hw.RegErr)
	require.NoError(t, err)
	require.Zero(t, e&hw.ErrRelease, "a release was refused\n%s", testseed.Replay(t, r.seed, "./gosim/tlm"))
	res.ring = make([]byte, cfg.TailSize)
	require.NoError(t, b.MemRead(uint64(cfg.TailBase), res.ring))
	return res
}

// portReplay is the SO-DIMM's m_mem_ready, replayed from its seed: with no reads in flight
// it draws once a cycle, from the board's cycle 0.
type portReplay struct {
	rng   *gosim.Rand
	busy  int
	ready []bool
}

func (p *portReplay) NextReady(c uint64) uint64 {
	for {
		for uint64(len(p.ready)) <= c {
			p.ready = append(p.ready, p.rng.Intn(100) >= p.busy)
		}
		if p.ready[c] {
			return c
		}
		c++
	}
}

// onModel runs r on the transaction-level model from cycle start (where the device's first
// message was injected), with the same host.
func onModel(t *testing.T, r *run, start uint64) result {
	t.Helper()
	n, err := tlm.New(r.cfg)
	require.NoError(t, err)
	mem := gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0))
	n.SetMemory(mem)
	if r.busy > 0 {
		n.SetPort(&portReplay{rng: gosim.NewRand(r.memRng), busy: r.busy})
	}
	var res result
	h := host{lhsOn: r.cfg.LHSOn}
	at := start
	for k, m := range r.msgs {
		a, err := n.OfferMessage(at+uint64(r.gaps[k][0]), tlm.Message{Bytes: m, Idle: r.gaps[k][1:]})
		require.NoError(t, err, "message %d\n%s", k, testseed.Replay(t, r.seed, "./gosim/tlm"))
		res.done = append(res.done, a.Commit)
		units := offUnits(r.cfg, m)
		if r.cfg.LHSOn {
			e := n.Entry(uint32(a.Seq))
			res.entries = append(res.entries, e[:])
			units = entryUnits(r.cfg, e[:])
		}
		require.Equal(t, units, a.TailUnits, "message %d: the units the host gives back are the units reserved", k)
		o := h.plan(a.Commit, r.delay[k], units)
		if r.cfg.LHSOn {
			require.NoError(t, n.Release(o.relLH, 1, 0), "message %d\n%s", k, testseed.Replay(t, r.seed, "./gosim/tlm"))
		}
		if o.tail {
			require.NoError(t, n.Release(o.relTail, 0, units*16), "message %d\n%s", k, testseed.Replay(t, r.seed, "./gosim/tlm"))
		}
		at = a.Last + 1
	}
	st := n.Status()
	res.regs = map[string]uint32{"LH_PROD": st.LHProd, "LH_CONS": st.LHCons, "TAIL_WPTR": st.TailWptr, "TAIL_USED": st.TailUsed,
		"MSG_COUNT": uint32(st.Messages), "STALL_CYCLES": uint32(st.Stalls), "MISMATCH_COUNT": uint32(st.Mismatches),
		"DROP_COUNT": uint32(st.Drops), "STORED_COUNT": uint32(st.Stored())}
	res.ring = make([]byte, r.cfg.TailSize)
	require.NoError(t, mem.Read(uint64(r.cfg.TailBase), res.ring))
	res.count = st.Counters
	return res
}

// compare requires the model's result to be the device's, message by message.
func compare(t *testing.T, r *run, dev, mod result) {
	t.Helper()
	require.Len(t, mod.done, len(dev.done))
	for k := range dev.done {
		if dev.done[k] != mod.done[k] {
			t.Fatalf("message %d (%d bytes, size field at %d): device finishes it at cycle %d, the model at %d (config %+v)\n%s",
				k, len(r.msgs[k]), r.cfg.SizePos, dev.done[k], mod.done[k], r.cfg, testseed.Replay(t, r.seed, "./gosim/tlm"))
		}
		if r.cfg.LHSOn && !bytes.Equal(dev.entries[k], mod.entries[k]) {
			t.Fatalf("message %d: entry\ndevice % x\nmodel  % x\n%s", k, dev.entries[k], mod.entries[k], testseed.Replay(t, r.seed, "./gosim/tlm"))
		}
	}
	require.Equal(t, dev.regs, mod.regs, "registers at the end\n%s", testseed.Replay(t, r.seed, "./gosim/tlm"))
	if !bytes.Equal(dev.ring, mod.ring) {
		i := 0
		for dev.ring[i] == mod.ring[i] {
			i++
		}
		t.Fatalf("tail ring differs first at byte %d\n%s", i, testseed.Replay(t, r.seed, "./gosim/tlm"))
	}
}

// Randomized back-pressure: small LH buffers and rings, the host releasing late, idle cycles
// at the input, a busy memory port, size fields that lie. Every message finishes on the same
// cycle in the model as on the device, with the same entry; the registers and the ring agree
// at the end.
func TestAgreeRandom(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var total tlm.Counters
			for _, seed := range testseed.List(t, 3) {
				t.Run(fmt.Sprint(seed), func(t *testing.T) {
					r := newRun(sc, seed)
					dev := onDevice(t, sc.model, r)
					mod := onModel(t, r, dev.start)
					compare(t, r, dev, mod)
					c := mod.count
					total.LHWaits += c.LHWaits
					total.RingWaits += c.RingWaits
					total.TooLong += c.TooLong
					total.Drops += c.Drops
					t.Logf("%d messages, %+v", len(r.msgs), c)
				})
			}
			if os.Getenv("SEED") == "" && !sc.want(total) {
				t.Errorf("the runs did not exercise %s: %+v", sc.wantText, total)
			}
		})
	}
}

// The benchmark workload on the RTL (rx.Workload: LHS on, a 128 MiB ring, the host
// releasing each entry the cycle after it commits and a split message's tail the cycle after
// that) and on the model: every commit on the same
// cycle, the same LH buffer and tail ring at the end, and with the full 100,000 messages the
// benchmark's 995750 cycles.
func TestAgreeBenchWorkload(t *testing.T) {
	for _, tc := range []struct {
		msgs   int
		seed   uint64
		cycles uint64 // 0: not pinned
	}{{100_000, 1, 995750}, {20_000, 7, 0}} {
		t.Run(fmt.Sprintf("%d-seed%d", tc.msgs, tc.seed), func(t *testing.T) {
			l, err := device.OpenLocal(device.Config{Model: device.RTL})
			require.NoError(t, err)
			defer func() { require.NoError(t, l.Close()) }()
			var commits []uint64
			l.Board.OnCycle(func(c uint64, p *gosim.Pins) {
				if p.EvCommit != 0 {
					commits = append(commits, c)
				}
			})
			cycles, err := rx.Workload(l, uint64(tc.msgs), tc.seed)
			require.NoError(t, err)
			if tc.cycles != 0 {
				require.Equal(t, tc.cycles, cycles)
			}
			start := l.Board.Cycle() - cycles
			require.Len(t, commits, tc.msgs)

			cfg := tlm.DefaultConfig()
			cfg.TailSize = 0x0800_0000 // as the workload programs it
			n, err := tlm.New(cfg)
			require.NoError(t, err)
			mem := gosim.NewSODIMM(gosim.DefaultSODIMM, gosim.NewRand(0))
			n.SetMemory(mem)
			msgs := rx.WorkloadMessages(tc.msgs, tc.seed)
			for k, m := range msgs {
				a, err := n.Offer(start, m)
				require.NoError(t, err)
				if a.Commit != commits[k] {
					t.Fatalf("message %d (%d bytes): the RTL commits it at cycle %d, the model at %d", k, len(m), commits[k], a.Commit)
				}
				require.NoError(t, n.Release(a.Commit+1, 1, 0))
				if a.TailUnits > 0 { // a split message's tail, with the host's next write
					require.NoError(t, n.Release(a.Commit+2, 0, 16*a.TailUnits))
				}
			}
			require.Equal(t, start+cycles, commits[len(commits)-1]+1)

			// Feed, the benchmark's loop, ends on the same cycle in the same state.
			f, err := tlm.New(cfg)
			require.NoError(t, err)
			end, err := f.Feed(start, msgs)
			require.NoError(t, err)
			require.Equal(t, start+cycles, end)
			require.Equal(t, n.Status(), f.Status())

			// The whole LH buffer and the ring as far as it was written.
			st := n.Status()
			for i := range uint32(cfg.Entries) {
				e := make([]byte, hw.EntryBytes)
				require.NoError(t, l.Board.ReadBlock(hw.LHBase+hw.EntryBytes*i, e))
				me, fe := n.Entry(i), f.Entry(i)
				require.Equal(t, e, me[:], "entry %d", i)
				require.Equal(t, me, fe, "entry %d after Feed", i)
			}
			for name, addr := range map[string]uint32{"LH_PROD": hw.RegLHProd, "LH_CONS": hw.RegLHCons,
				"TAIL_WPTR": hw.RegTailWptr, "TAIL_USED": hw.RegTailUsed, "STALL_CYCLES": hw.RegStallCycles, "MSG_COUNT": hw.RegMsgCount} {
				v, err := l.Board.ReadReg(addr)
				require.NoError(t, err)
				want := map[string]uint32{"LH_PROD": st.LHProd, "LH_CONS": st.LHCons, "TAIL_WPTR": st.TailWptr,
					"TAIL_USED": st.TailUsed, "STALL_CYCLES": uint32(st.Stalls), "MSG_COUNT": uint32(st.Messages)}[name]
				require.Equal(t, v, want, name)
			}
			got, want := make([]byte, st.TailWptr), make([]byte, st.TailWptr)
			require.NoError(t, l.Board.MemRead(0, got))
			require.NoError(t, mem.Read(0, want))
			require.True(t, bytes.Equal(got, want), "tail ring")
			t.Logf("%d messages, %d cycles, %d commits equal", tc.msgs, cycles, len(commits))
		})
	}
}

// Messages at the edges, on the golden model: the lengths around every boundary of the rule
// (a beat, SPLIT_POS, the inline limit), the 16-bit len field and the 1 MiB the source
// carries, with true and lying size fields, LHS on and off.
func TestAgreeEdges(t *testing.T) {
	lengths := []int{1, 3, 15, 16, 17, 31, 32, 33, 47, 48, 49, 55, 56, 57, 63, 64, 65, 200, 65535, 65536, 65537, 70000, gosim.MaxMessage}
	for _, lhsOn := range []bool{true, false} {
		for _, pos := range [][2]uint32{{12, 48}, {0, 16}, {8, 32}} {
			t.Run(fmt.Sprintf("lhs%v-size%d-split%d", lhsOn, pos[0], pos[1]), func(t *testing.T) {
				cfg := tlm.DefaultConfig()
				cfg.LHSOn, cfg.SizePos, cfg.SplitPos = lhsOn, pos[0], pos[1]
				cfg.TailSize = 1 << 20
				r := &run{cfg: cfg}
				for _, n := range lengths {
					for _, size := range []uint32{uint32(n), uint32(n) + 100, uint32(n) / 2, 56, 57, 0xffff} {
						m := make([]byte, n)
						for i := range m {
							m[i] = byte(i*7 + n)
						}
						var f [4]byte
						binary.LittleEndian.PutUint32(f[:], size)
						copy(m[min(int(cfg.SizePos), n):], f[:])
						r.msgs = append(r.msgs, m)
						r.delay = append(r.delay, 0)
						r.gaps = append(r.gaps, make([]uint32, (n+15)/16))
					}
				}
				dev := onDevice(t, device.Go, r)
				mod := onModel(t, r, dev.start)
				compare(t, r, dev, mod)
			})
		}
	}
}

// BenchTLM, the tlm row of lhsim bench, takes the benchmark's cycles.
func TestBenchTLM(t *testing.T) {
	s, err := rx.BenchTLM(100_000, 1, 1)
	require.NoError(t, err)
	require.Equal(t, uint64(995750), s.Cycles)
	require.Positive(t, s.MessagesPer)
}
