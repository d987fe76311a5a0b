package gosim

import (
	"fmt"
	"math/bits"

	"github.com/lhsim/lhsim/hw"
)

// ModelParams are the RTL parameters the model mirrors.
type ModelParams struct {
	Entries  int // LH entries (power of two, >= 4); the RTL build's default is 1024
	WinBytes int // bytes per window (power of two, 64..65536); default 4096
}

// MaxEntries is the most LH entries the host can read: the host bus's LH region
// (hw.LHBase to 0xFFFFF, hw/contract.json) holds 8192 entries of hw.EntryBytes.
const MaxEntries = (0x100000 - hw.LHBase) / hw.EntryBytes

// DefaultParams match the default Verilated build.
var DefaultParams = ModelParams{Entries: 1024, WinBytes: 4096}

// Check reports the first parameter the RTL could not be built with.
func (p ModelParams) Check() error {
	if p.Entries < 4 || bits.OnesCount(uint(p.Entries)) != 1 {
		return fmt.Errorf("gosim: Entries must be a power of two >= 4, got %d", p.Entries)
	}
	if p.Entries > MaxEntries {
		return fmt.Errorf("gosim: Entries %d: the host bus's LH region holds %d", p.Entries, MaxEntries)
	}
	if p.WinBytes < 64 || p.WinBytes > 65536 || bits.OnesCount(uint(p.WinBytes)) != 1 {
		return fmt.Errorf("gosim: WinBytes must be a power of two in 64..65536, got %d", p.WinBytes)
	}
	return nil
}

type word = [2]uint64

// Model is the golden model of rtl/lhs_top.v: the same registers, updated by the same rules,
// so that its ports agree with the RTL's on every cycle. It is also the fast pure-Go device.
// It is built like the RTL: one block per module (model_rx.go for lhs_rx, model_vec.go for
// lhs_vector_engine, model_top.go for lhs_top itself), each with its state, a combinational
// eval and a clock edge, and the signals between them in small structs named after the
// modules' ports. Field names follow the RTL's *_reg names.
type Model struct {
	p      ModelParams
	idxW   uint // IDX_W
	winAW  uint // WIN_AW
	rst    bool
	cycles uint64

	rx  rxBlock
	vec vecBlock
	top topBlock
}

// NewModel builds a model in its power-on state.
func NewModel(p ModelParams) (*Model, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	m := &Model{p: p, idxW: uint(bits.TrailingZeros(uint(p.Entries))), winAW: uint(bits.TrailingZeros(uint(p.WinBytes))) - 4}
	m.rx = rxBlock{entries: uint32(p.Entries), ram: make([]word, p.Entries*4)}
	m.vec = vecBlock{winBytes: uint32(p.WinBytes), rwin: make([]word, p.WinBytes/16)}
	for i := range m.vec.wwin {
		m.vec.wwin[i] = make([]uint32, p.WinBytes/16)
	}
	m.top.reset() // the RTL's registers power on at their reset values
	return m, nil
}

// Params returns the parameters the model was built with.
func (m *Model) Params() ModelParams { return m.p }

// Reset holds reset for hw.ResetCycles cycles with idle inputs, as the RTL bridge does.
func (m *Model) Reset() {
	m.rst = true
	for i := 0; i < hw.ResetCycles; i++ {
		var idle Pins
		m.Cycle(&idle)
	}
	m.rst = false
}

// Close does nothing: the model holds no outside resources.
func (m *Model) Close() error { return nil }

// Cycles is the number of clocks since construction, reset included.
func (m *Model) Cycles() uint64 { return m.cycles }

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func lastBytes(keep uint16) uint32 {
	if keep == 0 {
		return 16
	}
	return uint32(bits.Len16(keep))
}

// Cycle evaluates one clock: outputs from the current registers and p's inputs, then the
// next state. Every expression mirrors one in the RTL; keep them in step.
func (m *Model) Cycle(p *Pins) {
	// lhs_top: the request on the host bus and what it asks of the blocks.
	var req hostReq
	req.decode(p)
	var rxIn rxIn
	m.rxInputs(&req, &rxIn)

	// lhs_rx, then lhs_top's register writes (configuration waits for rx quiet), then
	// lhs_vector_engine behind the memory arbiter (the receive block goes first).
	var rx rxOut
	var rxNx rxNext
	m.rx.eval(p, &m.top.cfg, &rxIn, &rx, &rxNx)
	var w topWrites
	m.top.writes(p, &req, &rx, m.vec.busy(), &w)
	rxIn.ringReset = w.cfgTake && (req.regAddr == hw.RegTailBase || req.regAddr == hw.RegTailSize)
	var vecIn vecIn
	m.vecInputs(p, &req, &w, rx.memValid, &vecIn)
	var vec vecOut
	var vecNx vecNext
	m.vec.eval(p, &m.top.cmd, &vecIn, &vec, &vecNx)

	// Outputs: the arbiter, the read pipeline's last stage and the events.
	p.MsgReady = uint8(b2u(rx.tready))
	p.MemValid = uint8(b2u(rx.memValid || vec.memValid))
	p.MemWrite = uint8(b2u(rx.memValid || vec.memWrite))
	if rx.memValid {
		p.MemAddr = rx.memUnit << 4
		p.MemWData = rxNx.beatData
	} else {
		p.MemAddr = m.vec.memWord() << 4
		p.MemWData = m.vec.wdata()
	}
	p.HostRValid = uint8(b2u(m.top.hostRValid))
	p.HostRData = m.top.hostRData
	p.EvCommit = uint8(b2u(rx.evCommit))
	p.EvMsgDone = uint8(b2u(rx.evMsgDone))
	p.EvVecDone = uint8(b2u(vec.evDone))
	regValue, rd1Data := m.readPath(&req)

	// Clock edge: every block from this cycle's values; lhs_top last, as the blocks read its
	// configuration registers.
	rst := m.rst
	m.cycles++
	m.rx.clock(rst, p, &m.top.cfg, &rxIn, &rxNx)
	m.vec.clock(rst, p, &m.top.cmd, &vecIn, &vecNx)
	m.top.clock(rst, &req, &w, &rx, regValue, rd1Data)
}
