package gosim

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// BoardConfig is what the user chose for the world around the receive path.
type BoardConfig struct {
	Memory      SODIMMParams
	IdlePercent int // random idle cycles at the network input
	// WireNoise drives random bytes past each message's end in its last beat and random
	// tkeep bits below its last byte (Source.SetNoise): what the wire may carry there.
	WireNoise bool
	Seed      uint64 // seeds every random choice on the board
}

// Counters are what a Board saw on the ports.
type Counters struct {
	Commits   uint64 // LH entries committed
	Messages  uint64 // messages finished by the receive path
	VecDone   uint64 // vector commands ended
	Stalls    uint64 // cycles the network input was held off
	HostReads uint64
}

type hostOp struct {
	write bool
	addr  uint32
	data  uint32
	dst   *uint32 // where a read's data goes
}

// Board is the NIC board around a Core: the network source, the SO-DIMM and the host bus,
// stepped together one clock at a time. It is the host bus (drivers.Bus), the network input
// and the clock for the Go model and for the RTL alike: the one path data takes from the
// network to the host.
type Board struct {
	core  Core
	pins  Pins
	mem   *SODIMM
	src   *Source
	ops   []hostOp
	reads []*uint32 // reads issued and not yet answered, oldest first
	cycle uint64
	Count Counters
	watch []func(cycle uint64, p *Pins)
	// Stretches (stretch.go): the core when it runs them, its buffers, and the observers
	// that leave them on.
	fast      Stretcher
	scratch   *Stretch
	onEvent   []func(cycle uint64, flags uint8)
	onAdvance []func(cycle uint64)
}

// NewBoard resets core and puts it on a board.
func NewBoard(core Core, cfg BoardConfig) *Board {
	rng := NewRand(cfg.Seed)
	mp := cfg.Memory
	if mp == (SODIMMParams{}) {
		mp = DefaultSODIMM
	}
	core.Reset()
	b := &Board{
		core: core,
		mem:  NewSODIMM(mp, NewRand(rng.Uint64())),
		src:  NewSource(cfg.IdlePercent, NewRand(rng.Uint64())),
	}
	b.src.SetNoise(cfg.WireNoise)
	b.fast, _ = core.(Stretcher)
	return b
}

// OnCycle calls f after every cycle with that cycle's ports (for tracing and checking).
func (b *Board) OnCycle(f func(cycle uint64, p *Pins)) { b.watch = append(b.watch, f) }

// Core returns the receive path on the board.
func (b *Board) Core() Core { return b.core }

// Memory returns the SO-DIMM model.
func (b *Board) Memory() *SODIMM { return b.mem }

// Step runs one clock.
func (b *Board) Step() {
	p := &b.pins
	b.src.Drive(p)
	b.mem.Drive(p, b.cycle)
	p.HostValid, p.HostWrite = 0, 0
	if len(b.ops) > 0 {
		op := b.ops[0]
		b.ops = b.ops[1:]
		p.HostValid, p.HostAddr, p.HostWData = 1, op.addr, op.data
		if op.write {
			p.HostWrite = 1
		} else {
			b.reads = append(b.reads, op.dst)
		}
	}
	b.core.Cycle(p)
	if p.HostRValid != 0 && len(b.reads) > 0 {
		*b.reads[0] = p.HostRData
		b.reads = b.reads[1:]
		b.Count.HostReads++
	}
	b.src.Observe(p)
	b.mem.Observe(p, b.cycle)
	if p.EvCommit != 0 {
		b.Count.Commits++
	}
	if p.EvMsgDone != 0 {
		b.Count.Messages++
	}
	if p.EvVecDone != 0 {
		b.Count.VecDone++
	}
	if p.MsgValid != 0 && p.MsgReady == 0 {
		b.Count.Stalls++
	}
	for _, f := range b.watch {
		f(b.cycle, p)
	}
	if len(b.onEvent) > 0 {
		if ev := p.EvCommit | p.EvMsgDone<<1 | p.EvVecDone<<2; ev != 0 {
			for _, f := range b.onEvent {
				f(b.cycle, ev)
			}
		}
	}
	b.cycle++
	for _, f := range b.onAdvance {
		f(b.cycle)
	}
}

// Post queues a host bus write without waiting for it (one op per cycle, in order).
func (b *Board) Post(addr, val uint32) {
	b.ops = append(b.ops, hostOp{write: true, addr: addr, data: val})
}

// hostLimit bounds how long a host access may wait: the bus never stalls, so only a broken
// core would exceed it.
const hostLimit = 1000

func (b *Board) drainHost() error {
	limit := hostLimit + len(b.ops)
	for i := 0; len(b.ops) > 0 || len(b.reads) > 0; i++ {
		if i > limit {
			return fmt.Errorf("board: host bus read not answered after %d cycles (cycle %d)", i, b.cycle)
		}
		b.Step()
	}
	return nil
}

func checkAddr(addr uint32) error {
	if addr&3 != 0 || addr >= 1<<20 {
		return fmt.Errorf("board: host address %#x is not a 4-byte-aligned address below 0x100000", addr)
	}
	return nil
}

// ReadReg reads one word over the host bus.
func (b *Board) ReadReg(addr uint32) (uint32, error) {
	if err := checkAddr(addr); err != nil {
		return 0, err
	}
	var v uint32
	b.ops = append(b.ops, hostOp{addr: addr, dst: &v})
	return v, b.drainHost()
}

// WriteReg writes one word over the host bus.
func (b *Board) WriteReg(addr, val uint32) error {
	if err := checkAddr(addr); err != nil {
		return err
	}
	b.Post(addr, val)
	return b.drainHost()
}

// ReadBlock reads consecutive words, one request per cycle.
func (b *Board) ReadBlock(addr uint32, dst []byte) error {
	if len(dst)%4 != 0 {
		return fmt.Errorf("board: block of %d bytes is not whole words", len(dst))
	}
	if err := checkAddr(addr); err != nil {
		return err
	}
	if err := checkAddr(addr + uint32(len(dst)) - 4); len(dst) > 0 && err != nil {
		return err
	}
	words := make([]uint32, len(dst)/4)
	for i := range words {
		b.ops = append(b.ops, hostOp{addr: addr + uint32(4*i), dst: &words[i]})
	}
	if err := b.drainHost(); err != nil {
		return err
	}
	for i, w := range words {
		binary.LittleEndian.PutUint32(dst[4*i:], w)
	}
	return nil
}

// WriteBlock writes consecutive words, one per cycle.
func (b *Board) WriteBlock(addr uint32, src []byte) error {
	if len(src)%4 != 0 {
		return fmt.Errorf("board: block of %d bytes is not whole words", len(src))
	}
	if err := checkAddr(addr); err != nil {
		return err
	}
	if err := checkAddr(addr + uint32(len(src)) - 4); len(src) > 0 && err != nil {
		return err
	}
	for i := 0; i < len(src); i += 4 {
		b.Post(addr+uint32(i), binary.LittleEndian.Uint32(src[i:]))
	}
	return b.drainHost()
}

// Inject queues a message at the network input.
func (b *Board) Inject(msg []byte) error { return b.src.Push(msg) }

// Run advances n cycles.
func (b *Board) Run(n uint64) error {
	b.RunWhile(Until{Max: n, Always: true})
	return nil
}

// ErrNotIdle is returned by RunUntilIdle when the limit passes first.
var ErrNotIdle = errors.New("board: not idle")

// RunUntilIdle runs until every injected message has been taken, no memory read is in
// flight and the last message has had time to commit.
func (b *Board) RunUntilIdle(limit uint64) error {
	quietFor := 0
	for i := uint64(0); i < limit; {
		if b.src.Pending() == 0 && !b.mem.Busy() && len(b.ops) == 0 && len(b.reads) == 0 {
			quietFor++
			if quietFor > 2 {
				return nil
			}
			b.Step()
			i++
			continue
		}
		quietFor = 0
		// Busy: run until the input and the host bus are done (a stretch stops at a memory
		// read), then look again.
		n, _ := b.RunWhile(Until{Max: limit - i, Input: true, Host: true})
		if n == 0 {
			b.Step()
			n = 1
		}
		i += n
	}
	return fmt.Errorf("%w after %d cycles: %d messages still queued at the input (LH buffer or tail ring full?)",
		ErrNotIdle, limit, b.src.Pending())
}

// Busy reports whether the board has work in flight: a message queued or streaming at the
// input, a memory request outstanding, or a host access not yet done. A board that is not
// busy changes nothing by running (once the last message has had a cycle to commit), so a
// caller may skip its idle cycles.
func (b *Board) Busy() bool {
	return b.src.Pending() > 0 || b.mem.Busy() || len(b.ops) > 0 || len(b.reads) > 0
}

// HostBusy reports whether a host access is queued or waiting for its answer.
func (b *Board) HostBusy() bool { return len(b.ops) > 0 || len(b.reads) > 0 }

// Pending is the number of injected messages the NIC has not fully taken.
func (b *Board) Pending() int { return b.src.Pending() }

// Cycle is the number of clocks since the board was built.
func (b *Board) Cycle() uint64 { return b.cycle }

// MemRead reads the SO-DIMM by backdoor.
func (b *Board) MemRead(addr uint64, dst []byte) error { return b.mem.Read(addr, dst) }

// MemWrite writes the SO-DIMM by backdoor.
func (b *Board) MemWrite(addr uint64, src []byte) error { return b.mem.Write(addr, src) }

// Close frees the core.
func (b *Board) Close() error { return b.core.Close() }
