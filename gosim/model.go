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

// DefaultParams match the default Verilated build.
var DefaultParams = ModelParams{Entries: 1024, WinBytes: 4096}

func (p ModelParams) check() error {
	if p.Entries < 4 || bits.OnesCount(uint(p.Entries)) != 1 {
		return fmt.Errorf("gosim: Entries must be a power of two >= 4, got %d", p.Entries)
	}
	if p.WinBytes < 64 || p.WinBytes > 65536 || bits.OnesCount(uint(p.WinBytes)) != 1 {
		return fmt.Errorf("gosim: WinBytes must be a power of two in 64..65536, got %d", p.WinBytes)
	}
	return nil
}

type word = [2]uint64

const (
	rxFirst = iota
	rxBody
	rxCommit
)

const (
	vecIdle = iota
	vecVL
	vecVS
)

// Model is the golden model of rtl/lhs_top.v: the same registers, updated by the same rules,
// so that its ports agree with the RTL's on every cycle. It is also the fast pure-Go device.
// Field names follow the RTL's *_reg names.
type Model struct {
	p      ModelParams
	idxW   uint
	winAW  uint
	rst    bool
	cycles uint64

	// lhs_rx
	rxState, prod, cons, wptr, used uint32
	beat                            uint16
	inline, split, tooLong          bool
	size, delivered                 uint32
	tailOff, tailLeft, tailPtr      uint32
	hold                            uint64
	lhRAM                           []word
	lhRd                            word

	// lhs_vector_engine
	vecState, reqLeft, rspLeft, vecAddr, vecWin uint32
	vecDone, vecErr                             bool
	vecCause                                    uint32
	rwin                                        []word
	rwinRd                                      word
	wwin                                        [4][]uint32
	wwinRd                                      [4]uint32

	// lhs_top
	enable, lhsOn                        bool
	sizeWord, splitBeats, maxMsg         uint32
	tailBase, tailUnits                  uint32
	vecMemAddrR, vecWinOffR, vecLenR     uint32
	errR                                 uint32
	msgCount, stall, drop, mismatchCount uint32
	rd1Valid                             bool
	rd1Src, rd1Lane, rd1Value            uint32
	hostRValid                           bool
	hostRData                            uint32
}

// NewModel builds a model in its power-on state.
func NewModel(p ModelParams) (*Model, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	m := &Model{p: p, idxW: uint(bits.TrailingZeros(uint(p.Entries))), winAW: uint(bits.TrailingZeros(uint(p.WinBytes))) - 4}
	m.lhRAM = make([]word, p.Entries*4)
	m.rwin = make([]word, p.WinBytes/16)
	for i := range m.wwin {
		m.wwin[i] = make([]uint32, p.WinBytes/16)
	}
	m.powerOn()
	return m, nil
}

func (m *Model) powerOn() {
	m.lhsOn = true
	m.sizeWord = 3
	m.splitBeats = 3
	m.maxMsg = 0xffff
	m.tailUnits = 0x10000
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
	valid := p.MsgValid != 0
	memReady := p.MemReady != 0
	entries := uint32(m.p.Entries)
	winWords := uint32(m.p.WinBytes / 16)
	unitMask := uint32(1)<<(hw.MemAW-4) - 1

	// ---- host decode (lhs_top) ----
	hv, hwr, ha, hd := p.HostValid != 0, p.HostWrite != 0, p.HostAddr&0xfffff, p.HostWData
	selReg := ha>>16 == 0
	selRwin := ha>>16 == 1
	selWwin := ha>>16 == 2
	selLH := ha>>19&1 == 1
	regAddr := ha & 0xff
	regWr := hv && hwr && selReg && (ha>>8)&0xff == 0
	regRd := hv && !hwr

	// ---- lhs_rx, combinational ----
	tdata := p.MsgData
	size := uint32(tdata[m.sizeWord/2] >> (32 * (m.sizeWord % 2)))
	splitBytes := m.splitBeats * 16
	isInline := m.lhsOn && size <= hw.InlineMax
	var span uint32
	if m.lhsOn {
		span = ((size & 0xffff) + 15 - splitBytes) & 0x1ffff
	} else if size == 0 {
		span = 16
	} else {
		span = (size & 0xffff) + 15
	}
	units := span >> 4
	tooLong := !isInline && (size > m.maxMsg || units > m.tailUnits)
	var need uint32
	if !isInline && !tooLong {
		need = units
	}
	fits := m.used+need <= m.tailUnits
	wptrAfter := m.wptr + need
	if wptrAfter >= m.tailUnits {
		wptrAfter -= m.tailUnits
	}
	lhFull := m.prod-m.cons == entries

	first := m.rxState == rxFirst
	headBeats := m.splitBeats
	if m.inline {
		headBeats = 3
	}
	beatToRAM := m.lhsOn && (first || uint32(m.beat) < headBeats)
	beatToHold := m.lhsOn && !first && m.inline && m.beat == 3
	var beatToMem bool
	if first {
		beatToMem = !m.lhsOn && !tooLong && fits
	} else {
		beatToMem = m.tailLeft != 0 && !beatToRAM && !beatToHold
	}
	firstOK := m.enable && fits && (m.lhsOn && !lhFull || !m.lhsOn && (tooLong || memReady))
	var tready bool
	if first {
		tready = firstOK
	} else {
		tready = m.rxState == rxBody && (!beatToMem || memReady)
	}
	fire := valid && tready
	startUnit := (m.tailBase + m.wptr) & unitMask
	memUnit := (m.tailBase + m.tailOff) & unitMask
	if first {
		memUnit = startUnit
	}
	var rxMemValid bool
	if first {
		rxMemValid = valid && beatToMem && m.enable
	} else {
		rxMemValid = valid && m.rxState == rxBody && beatToMem
	}
	lb := lastBytes(p.MsgKeep)
	deliveredNow := lb
	if !first {
		deliveredNow = uint32(m.beat)*16 + lb
	}
	lenField := m.delivered
	if lenField > 0xffff {
		lenField = 0xffff
	}
	mismatchNow := m.delivered != m.size
	flags := b2u(m.tooLong)<<2 | b2u(mismatchNow)<<1 | b2u(m.split)
	var ptrField uint32
	if m.split {
		ptrField = m.tailPtr << 4
	}
	commit := m.rxState == rxCommit
	ramWr := commit || fire && beatToRAM
	ramWord := uint32(m.beat) & 3
	if commit {
		ramWord = 3
	} else if first {
		ramWord = 0
	}
	ramAddr := (m.prod&(entries-1))<<2 | ramWord
	ramData := tdata
	if commit {
		ramData = word{m.hold, uint64(lenField) | uint64(flags)<<16 | uint64(ptrField)<<32}
	}

	relLH := regWr && regAddr == hw.RegLHRelease
	relTail := regWr && regAddr == hw.RegTailRelease
	relTailBadAlign := relTail && hd&15 != 0
	relTailValid := relTail && !relTailBadAlign
	relTailUnits := hd >> 4 & 0xffffff
	relLHBad := relLH && hd > m.prod-m.cons
	relTailBad := relTailValid && relTailUnits > m.used
	relError := relLHBad || relTailBad

	lastFire := fire && p.MsgLast != 0
	offDone := lastFire && !m.lhsOn
	evCommit := commit
	evMsgDone := commit || offDone
	var evMismatch, evTooLong bool
	if commit {
		evMismatch, evTooLong = mismatchNow, m.tooLong
	} else if offDone {
		sz, tl := m.size, m.tooLong
		if first {
			sz, tl = size, tooLong
		}
		evMismatch, evTooLong = deliveredNow != sz, tl
	}
	quiet := first && !fire && m.prod == m.cons && m.used == 0

	// ---- lhs_top: register writes that depend on the receive block ----
	lhsOnChange := regAddr == hw.RegCtrl && (hd>>1&1 == 1) != m.lhsOn
	cfgAddr := regAddr == hw.RegSizePos || regAddr == hw.RegSplitPos || regAddr == hw.RegMaxMsg ||
		regAddr == hw.RegTailBase || regAddr == hw.RegTailSize
	cfgWr := regWr && (cfgAddr || lhsOnChange)
	cfgBusy := cfgWr && !quiet
	tailBaseBytes := uint64(m.tailBase) << 4
	tailSizeBytes := uint64(m.tailUnits) << 4
	var cfgBad bool
	switch regAddr {
	case hw.RegSizePos:
		cfgBad = hd&3 != 0 || hd > 12
	case hw.RegSplitPos:
		cfgBad = hd&15 != 0 || hd < 16 || hd > 48
	case hw.RegMaxMsg:
		cfgBad = hd > 0xffff
	case hw.RegTailBase:
		cfgBad = hd&15 != 0 || uint64(hd)+tailSizeBytes > hw.MemBytes
	case hw.RegTailSize:
		cfgBad = hd&15 != 0 || hd < 16 || hd > 0x0800_0000 || tailBaseBytes+uint64(hd) > hw.MemBytes
	}
	cfgTake := cfgWr && quiet && !cfgBad

	vecRegAddr := regAddr == hw.RegVecMemAddr || regAddr == hw.RegVecWinOff || regAddr == hw.RegVecLen || regAddr == hw.RegVecCmd
	vecBusyNow := m.vecState != vecIdle
	vecWrBusy := regWr && vecRegAddr && vecBusyNow
	vecTake := regWr && vecRegAddr && !vecBusyNow
	vecCmd := vecTake && regAddr == hw.RegVecCmd

	// ---- lhs_vector_engine, combinational ----
	op, cmdLen, cmdMem, cmdWin := hd, m.vecLenR, m.vecMemAddrR, m.vecWinOffR
	var check uint32
	switch {
	case op != hw.VecOpVL && op != hw.VecOpVS:
		check = hw.CauseOpcode
	case cmdLen == 0:
		check = hw.CauseLen
	case cmdMem&15 != 0 || cmdWin&15 != 0:
		check = hw.CauseAlign
	case uint64(cmdWin)+uint64(cmdLen) > uint64(m.p.WinBytes):
		check = hw.CauseWindow
	case uint64(cmdMem)+uint64(cmdLen) > hw.MemBytes:
		check = hw.CauseMemory
	}
	vStart := vecCmd && m.vecState == vecIdle
	vStartOK := vStart && check == 0
	beats := (cmdLen>>4)&0x1fff + b2u(cmdLen&15 != 0)
	var vecMemValid bool
	switch m.vecState {
	case vecVL:
		vecMemValid = m.reqLeft != 0
	case vecVS:
		vecMemValid = true
	}
	vecMemWrite := m.vecState == vecVS
	vecMemReady := memReady && !rxMemValid
	vecFire := vecMemValid && vecMemReady
	wwinRdEn := vStartOK || m.vecState == vecVS && vecFire
	wwinRdAddr := (m.vecWin + 1) & (winWords - 1)
	if vStart {
		wwinRdAddr = cmdWin >> 4 & (winWords - 1)
	}
	rvalid := p.MemRValid != 0
	rwinWr := m.vecState == vecVL && rvalid
	vlLast := m.vecState == vecVL && rvalid && m.rspLeft == 1
	vsLast := m.vecState == vecVS && vecFire && m.reqLeft == 1
	evVecDone := vStart && check != 0 || vlLast || vsLast

	// ---- outputs ----
	p.MsgReady = uint8(b2u(tready))
	p.MemValid = uint8(b2u(rxMemValid || vecMemValid))
	p.MemWrite = uint8(b2u(rxMemValid || vecMemWrite))
	if rxMemValid {
		p.MemAddr = memUnit << 4
		p.MemWData = tdata
	} else {
		p.MemAddr = (m.vecAddr & unitMask) << 4
		p.MemWData = word{uint64(m.wwinRd[0]) | uint64(m.wwinRd[1])<<32, uint64(m.wwinRd[2]) | uint64(m.wwinRd[3])<<32}
	}
	p.HostRValid = uint8(b2u(m.hostRValid))
	p.HostRData = m.hostRData
	p.EvCommit = uint8(b2u(evCommit))
	p.EvMsgDone = uint8(b2u(evMsgDone))
	p.EvVecDone = uint8(b2u(evVecDone))

	// ---- register read value and read pipeline (lhs_top) ----
	var regValue uint32
	if (ha>>8)&0xff == 0 {
		regValue = m.readReg(regAddr)
	}
	rd1Word := m.lhRd
	if m.rd1Src == 1 {
		rd1Word = m.rwinRd
	}
	var rd1Data uint32
	switch m.rd1Src {
	case 0:
		rd1Data = m.rd1Value
	case 3:
		rd1Data = 0
	default:
		rd1Data = uint32(rd1Word[m.rd1Lane/2] >> (32 * (m.rd1Lane % 2)))
	}

	// ---- clock edge ----
	rst := m.rst
	m.cycles++

	// RAM ports (read-first).
	if hv && !hwr && selLH {
		m.lhRd = m.lhRAM[(ha>>4)&(entries*4-1)]
	}
	if ramWr {
		m.lhRAM[ramAddr] = ramData
	}
	if hv && !hwr && selRwin {
		m.rwinRd = m.rwin[(ha>>4)&(winWords-1)]
	}
	if rwinWr {
		m.rwin[m.vecWin&(winWords-1)] = p.MemRData
	}
	if wwinRdEn {
		for l := range m.wwin {
			m.wwinRd[l] = m.wwin[l][wwinRdAddr]
		}
	}
	if hv && hwr && selWwin && (ha&0xffff)>>(m.winAW+4) == 0 {
		m.wwin[(ha>>2)&3][(ha>>4)&(winWords-1)] = hd
	}

	// Read pipeline.
	m.hostRValid = m.rd1Valid && !rst
	m.hostRData = rd1Data
	m.rd1Valid = regRd && !rst
	switch {
	case selLH:
		m.rd1Src = 2
	case selRwin:
		m.rd1Src = 1
	case selReg:
		m.rd1Src = 0
	default:
		m.rd1Src = 3
	}
	m.rd1Lane = ha >> 2 & 3
	m.rd1Value = regValue

	m.rxNext(rst, valid, first, fire, p.MsgLast != 0, commit, isInline, tooLong, size, need, wptrAfter, startUnit,
		beatToMem, beatToHold, deliveredNow, tdata, relLH && !relLHBad, hd, relTailValid && !relTailBad, relTailUnits)
	m.vecNext(rst, vStart, check, op, beats, cmdMem, cmdWin, vecFire, rvalid, vlLast, vsLast)
	m.topNext(rst, hd, regWr, regAddr, cfgTake, cfgBusy, cfgWr && quiet && cfgBad, vecTake, vecWrBusy,
		evMsgDone, evMismatch, evTooLong, relError || relTailBadAlign, valid && !tready)
}

func (m *Model) readReg(a uint32) uint32 {
	switch a {
	case hw.RegID:
		return hw.ID
	case hw.RegCtrl:
		return b2u(m.lhsOn)<<1 | b2u(m.enable)
	case hw.RegSizePos:
		return m.sizeWord << 2
	case hw.RegSplitPos:
		return m.splitBeats << 4
	case hw.RegMaxMsg:
		return m.maxMsg
	case hw.RegTailBase:
		return m.tailBase << 4
	case hw.RegTailSize:
		return m.tailUnits << 4
	case hw.RegParams:
		return uint32(m.p.WinBytes>>4)<<16 | uint32(m.idxW)
	case hw.RegLHProd:
		return m.prod
	case hw.RegLHCons:
		return m.cons
	case hw.RegTailWptr:
		return m.wptr << 4
	case hw.RegTailUsed:
		return m.used << 4
	case hw.RegVecMemAddr:
		return m.vecMemAddrR
	case hw.RegVecWinOff:
		return m.vecWinOffR
	case hw.RegVecLen:
		return m.vecLenR
	case hw.RegVecStatus:
		return m.vecCause<<8 | b2u(m.vecErr)<<2 | b2u(m.vecDone)<<1 | b2u(m.vecState != vecIdle)
	case hw.RegErr:
		return m.errR
	case hw.RegMsgCount:
		return m.msgCount
	case hw.RegStallCycles:
		return m.stall
	case hw.RegDropCount:
		return m.drop
	case hw.RegMismatchCount:
		return m.mismatchCount
	}
	return 0
}

// rxNext is lhs_rx's next-state block and clocked process.
func (m *Model) rxNext(rst, valid, first, fire, last, commit, isInline, tooLong bool, size, need, wptrAfter, startUnit uint32,
	beatToMem, beatToHold bool, deliveredNow uint32, tdata word, relLH bool, relLHCount uint32, relTail bool, relTailUnits uint32) {
	state, prod, cons, wptr, used := m.rxState, m.prod, m.cons, m.wptr, m.used
	beat := m.beat
	inline, split, tl := m.inline, m.split, m.tooLong

	if relLH {
		cons = m.cons + relLHCount
	}
	if relTail {
		used = m.used - relTailUnits
	}
	if commit {
		prod = m.prod + 1
		state = rxFirst
	}
	if fire {
		if first {
			inline = isInline
			split = !isInline && !tooLong && m.lhsOn
			tl = tooLong
			m.size = size
			m.hold = 0
			m.tailPtr = startUnit
			m.tailOff = m.wptr
			if beatToMem {
				m.tailOff = m.ringNext(m.wptr)
			}
			m.tailLeft = (need - b2u(beatToMem)) & 0x1fff
			wptr = wptrAfter
			used = used + need
		} else {
			if beatToHold {
				m.hold = tdata[0]
			}
			if beatToMem {
				m.tailOff = m.ringNext(m.tailOff)
				m.tailLeft--
			}
		}
		if first {
			beat = 1
		} else if m.beat != 0xffff {
			beat = m.beat + 1
		}
		if last {
			m.delivered = deliveredNow
			if m.lhsOn {
				state = rxCommit
			} else {
				state = rxFirst
			}
		} else {
			state = rxBody
		}
	}
	_ = valid
	if rst {
		state, prod, cons, wptr, used, beat = rxFirst, 0, 0, 0, 0, 0
		inline, split, tl = false, false, false
		m.tailLeft = 0
	}
	m.rxState, m.prod, m.cons, m.wptr, m.used, m.beat = state, prod, cons, wptr, used, beat
	m.inline, m.split, m.tooLong = inline, split, tl
}

// ringNext is the tail-ring offset after off.
func (m *Model) ringNext(off uint32) uint32 {
	if off+1 == m.tailUnits {
		return 0
	}
	return off + 1
}

// vecNext is lhs_vector_engine's next-state block and clocked process.
func (m *Model) vecNext(rst, start bool, check, op, beats, cmdMem, cmdWin uint32, fire, rvalid, vlLast, vsLast bool) {
	state, done, verr, cause := m.vecState, m.vecDone, m.vecErr, m.vecCause
	reqLeft, rspLeft := m.reqLeft, m.rspLeft
	addr, win := m.vecAddr, m.vecWin
	winMask := uint32(m.p.WinBytes/16 - 1)
	unitMask := uint32(1)<<(hw.MemAW-4) - 1

	if start {
		done, verr, cause = check != 0, check != 0, check
		if check == 0 {
			state = vecVS
			if op == hw.VecOpVL {
				state = vecVL
			}
			reqLeft, rspLeft = beats, beats
			addr = cmdMem >> 4 & unitMask
			win = cmdWin >> 4 & winMask
		}
	}
	if m.vecState == vecVL {
		if fire {
			reqLeft = m.reqLeft - 1
			addr = (m.vecAddr + 1) & unitMask
		}
		if rvalid {
			rspLeft = m.rspLeft - 1
			win = (m.vecWin + 1) & winMask
		}
		if vlLast {
			state, done = vecIdle, true
		}
	}
	if m.vecState == vecVS && fire {
		reqLeft = m.reqLeft - 1
		addr = (m.vecAddr + 1) & unitMask
		win = (m.vecWin + 1) & winMask
		if vsLast {
			state, done = vecIdle, true
		}
	}
	if rst {
		state, done, verr, cause, reqLeft, rspLeft = vecIdle, false, false, 0, 0, 0
	}
	m.vecState, m.vecDone, m.vecErr, m.vecCause = state, done, verr, cause
	m.reqLeft, m.rspLeft, m.vecAddr, m.vecWin = reqLeft, rspLeft, addr, win
}

// topNext is lhs_top's register-write and statistics process.
func (m *Model) topNext(rst bool, hd uint32, regWr bool, regAddr uint32, cfgTake, cfgBusy, cfgBad, vecTake, vecWrBusy,
	msgDone, mismatch, tooLong, relError, stall bool) {
	if rst {
		m.enable = false
		m.powerOn()
		m.tailBase = 0
		m.vecMemAddrR, m.vecWinOffR, m.vecLenR = 0, 0, 0
		m.errR, m.msgCount, m.stall, m.drop, m.mismatchCount = 0, 0, 0, 0, 0
		return
	}
	lhsOn := m.lhsOn
	if regWr && regAddr == hw.RegCtrl {
		m.enable = hd&hw.CtrlEnable != 0
	}
	if cfgTake {
		switch regAddr {
		case hw.RegCtrl:
			m.lhsOn = hd&hw.CtrlLHSOn != 0
		case hw.RegSizePos:
			m.sizeWord = hd >> 2 & 3
		case hw.RegSplitPos:
			m.splitBeats = hd >> 4 & 3
		case hw.RegMaxMsg:
			m.maxMsg = hd & 0xffff
		case hw.RegTailBase:
			m.tailBase = hd >> 4
		case hw.RegTailSize:
			m.tailUnits = hd >> 4 & 0xffffff
		}
	}
	if vecTake {
		switch regAddr {
		case hw.RegVecMemAddr:
			m.vecMemAddrR = hd
		case hw.RegVecWinOff:
			m.vecWinOffR = hd
		case hw.RegVecLen:
			m.vecLenR = hd
		}
	}
	errR := m.errR
	if regWr && regAddr == hw.RegErr {
		errR &^= hd & 0x3f
	}
	if cfgBusy {
		errR |= hw.ErrCfgBusy
	}
	if cfgBad {
		errR |= hw.ErrCfgValue
	}
	if msgDone && mismatch {
		errR |= hw.ErrMismatch
	}
	if msgDone && tooLong {
		errR |= hw.ErrTooLong
	}
	if relError {
		errR |= hw.ErrRelease
	}
	if vecWrBusy {
		errR |= hw.ErrVecBusy
	}
	m.errR = errR
	if msgDone {
		m.msgCount++
	}
	if msgDone && mismatch {
		m.mismatchCount++
	}
	if msgDone && tooLong && !lhsOn {
		m.drop++
	}
	if stall {
		m.stall++
	}
}
