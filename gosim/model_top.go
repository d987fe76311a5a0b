package gosim

import "github.com/lhsim/lhsim/hw"

// The golden model of rtl/lhs_top.v around its two blocks: host bus decode, the register file
// and statistics, the large-memory arbiter and the two-stage read pipeline.

// topBlock is lhs_top's own state.
type topBlock struct {
	cfg                                  rxConfig // CTRL, SIZE_POS, SPLIT_POS, MAX_MSG, TAIL_BASE, TAIL_SIZE
	cmd                                  vecCmd   // VEC_MEM_ADDR, VEC_WIN_OFF, VEC_LEN
	err                                  uint32   // ERR
	msgCount, stall, drop, mismatchCount uint32
	stored                               uint32 // STORED_COUNT
	rd1Valid                             bool   // read pipeline, stage 1
	rd1Src, rd1Lane, rd1Value            uint32
	hostRValid                           bool // stage 2: the bus
	hostRData                            uint32
}

// reset sets the host registers and statistics to their reset values (the read pipeline
// is not reset: it drops what reset holds).
func (t *topBlock) reset() {
	t.cfg.reset()
	t.cmd = vecCmd{memAddr: hw.VecMemAddrReset, winOff: hw.VecWinOffReset, length: hw.VecLenReset}
	t.err, t.msgCount, t.stall, t.drop, t.mismatchCount, t.stored = 0, 0, 0, 0, 0, 0
}

// hostReq is the request on the host bus, decoded.
type hostReq struct {
	valid, write                    bool
	addr, wdata                     uint32
	selReg, selRwin, selWwin, selLH bool
	regAddr                         uint32
	regWr, regRd                    bool
	relTailBad                      bool // a TAIL_RELEASE that is not a 16-byte multiple, or >= 256 MiB
	lhBeyond                        bool // an LH window address past ENTRIES (reads 0)
}

// decode decodes the request on the host bus into q.
func (q *hostReq) decode(p *Pins) {
	q.valid, q.write, q.addr, q.wdata = p.HostValid != 0, p.HostWrite != 0, p.HostAddr&0xfffff, p.HostWData
	q.selReg = q.addr>>16 == hw.RegistersBase>>16
	q.selRwin = q.addr>>16 == hw.ReadWindowBase>>16
	q.selWwin = q.addr>>16 == hw.WriteWindowBase>>16
	q.selLH = q.addr>>19&1 == 1
	q.regAddr = q.addr & 0xff
	q.regWr = q.valid && q.write && q.selReg && (q.addr>>8)&0xff == 0
	q.regRd = q.valid && !q.write
	q.relTailBad = q.regWr && q.regAddr == hw.RegTailRelease && (q.wdata&15 != 0 || q.wdata>>28 != 0)
}

// rxInputs sets the receive block's inputs from the host request: releases and LH buffer
// reads.
func (m *Model) rxInputs(q *hostReq, in *rxIn) {
	in.relLH = q.regWr && q.regAddr == hw.RegLHRelease
	in.relLHCount = q.wdata
	in.relTail = q.regWr && q.regAddr == hw.RegTailRelease && !q.relTailBad
	in.relTailUnits = q.wdata >> 4 & 0xffffff
	in.rdEn = q.valid && !q.write && q.selLH
	in.rdAddr = (q.addr >> 4) & (m.rx.entries*4 - 1)
	q.lhBeyond = (q.addr&0x7ffff)>>(m.idxW+6) != 0
}

// vecInputs sets the vector engine's inputs: the command registers, the arbiter's ready and
// the host's window accesses.
func (m *Model) vecInputs(p *Pins, q *hostReq, w *topWrites, rxMemValid bool, in *vecIn) {
	winWords := m.vec.winBytes / 16
	in.cmd = w.vecTake && q.regAddr == hw.RegVecCmd
	in.op = q.wdata
	in.memReady = p.MemReady != 0 && !rxMemValid
	in.rwinRdEn = q.valid && !q.write && q.selRwin
	in.rwinRdAddr = (q.addr >> 4) & (winWords - 1)
	in.wwinWrEn = q.valid && q.write && q.selWwin && (q.addr&0xffff)>>(m.winAW+4) == 0
	in.wwinWrAddr = (q.addr >> 2) & (4*winWords - 1)
	in.wwinWrData = q.wdata
}

// topWrites are lhs_top's register-write decisions this cycle.
type topWrites struct {
	cfgTake   bool // a configuration write taken
	cfgBusy   bool // one refused: the receive block is not quiet
	cfgBad    bool // one refused: the value is out of range
	vecTake   bool // a VEC_* write taken
	vecWrBusy bool // one refused: the engine is busy
	relError  bool // a release refused
	stall     bool // the network input held off
}

// writes decides this cycle's register writes; configuration waits for a quiet receive block.
// Every decision needs a register write on the bus; most cycles have none.
func (t *topBlock) writes(p *Pins, q *hostReq, rx *rxOut, vecBusy bool, w *topWrites) {
	*w = topWrites{relError: rx.relError || q.relTailBad, stall: p.MsgValid != 0 && !rx.tready}
	if !q.regWr {
		return
	}
	hd, regAddr := q.wdata, q.regAddr
	lhsOnChange := regAddr == hw.RegCtrl && (hd&hw.CtrlLHSOn != 0) != t.cfg.lhsOn
	cfgAddr := regAddr == hw.RegSizePos || regAddr == hw.RegSplitPos || regAddr == hw.RegMaxMsg ||
		regAddr == hw.RegTailBase || regAddr == hw.RegTailSize
	if cfgAddr || lhsOnChange {
		tailBaseBytes := uint64(t.cfg.tailBase) << 4
		tailSizeBytes := uint64(t.cfg.tailUnits) << 4
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
			cfgBad = hd&15 != 0 || hd < 16 || hd > hw.TailSizeMax || tailBaseBytes+uint64(hd) > hw.MemBytes
		}
		w.cfgTake = rx.quiet && !cfgBad
		w.cfgBusy = !rx.quiet
		w.cfgBad = rx.quiet && cfgBad
	}
	if regAddr == hw.RegVecMemAddr || regAddr == hw.RegVecWinOff || regAddr == hw.RegVecLen || regAddr == hw.RegVecCmd {
		w.vecTake = !vecBusy
		w.vecWrBusy = vecBusy
	}
}

// readReg is the register value at offset a (reg_value).
func (m *Model) readReg(a uint32) uint32 {
	t, rx, vec := &m.top, &m.rx, &m.vec
	switch a {
	case hw.RegID:
		return hw.ID
	case hw.RegCtrl:
		return b2u(t.cfg.lhsOn)<<1 | b2u(t.cfg.enable)
	case hw.RegSizePos:
		return t.cfg.sizeWord << 2
	case hw.RegSplitPos:
		return t.cfg.splitBeats << 4
	case hw.RegMaxMsg:
		return t.cfg.maxMsg
	case hw.RegTailBase:
		return t.cfg.tailBase << 4
	case hw.RegTailSize:
		return t.cfg.tailUnits << 4
	case hw.RegParams:
		return uint32(m.p.WinBytes>>4)<<hw.ParamsWinUnitsShift | uint32(m.idxW)<<hw.ParamsLog2EntriesShift
	case hw.RegLHProd:
		return rx.prod
	case hw.RegLHCons:
		return rx.cons
	case hw.RegTailWptr:
		return rx.wptr << 4
	case hw.RegTailUsed:
		return rx.used << 4
	case hw.RegVecMemAddr:
		return t.cmd.memAddr
	case hw.RegVecWinOff:
		return t.cmd.winOff
	case hw.RegVecLen:
		return t.cmd.length
	case hw.RegVecStatus:
		return vec.cause<<hw.VecCauseShift | b2u(vec.err)<<2 | b2u(vec.done)<<1 | b2u(vec.busy())
	case hw.RegErr:
		return t.err
	case hw.RegMsgCount:
		return t.msgCount
	case hw.RegStallCycles:
		return t.stall
	case hw.RegDropCount:
		return t.drop
	case hw.RegMismatchCount:
		return t.mismatchCount
	case hw.RegStoredCount:
		return t.stored
	}
	return 0
}

// readPath is the read pipeline's combinational part: the register value for the request on
// the bus (stage 1's input) and the data stage 1 hands to the bus (stage 2's input).
func (m *Model) readPath(q *hostReq) (regValue, rd1Data uint32) {
	if (q.addr>>8)&0xff == 0 {
		regValue = m.readReg(q.regAddr)
	}
	t := &m.top
	rd1Word := m.rx.rd
	if t.rd1Src == 1 {
		rd1Word = m.vec.rwinRd
	}
	switch t.rd1Src {
	case 0:
		rd1Data = t.rd1Value
	case 3:
		rd1Data = 0
	default:
		rd1Data = uint32(rd1Word[t.rd1Lane/2] >> (32 * (t.rd1Lane % 2)))
	}
	return regValue, rd1Data
}

// clock is lhs_top's clock edge: the read pipeline, then the register writes and statistics.
func (t *topBlock) clock(rst bool, q *hostReq, w *topWrites, rx *rxOut, regValue, rd1Data uint32) {
	t.hostRValid = t.rd1Valid && !rst
	t.hostRData = rd1Data
	t.rd1Valid = q.regRd && !rst
	switch {
	case q.selLH && q.lhBeyond:
		t.rd1Src = 3
	case q.selLH:
		t.rd1Src = 2
	case q.selRwin:
		t.rd1Src = 1
	case q.selReg:
		t.rd1Src = 0
	default:
		t.rd1Src = 3
	}
	t.rd1Lane = q.addr >> 2 & 3
	t.rd1Value = regValue

	if rst {
		t.reset()
		return
	}
	hd, regAddr := q.wdata, q.regAddr
	lhsOn := t.cfg.lhsOn
	if q.regWr && regAddr == hw.RegCtrl {
		t.cfg.enable = hd&hw.CtrlEnable != 0
	}
	if w.cfgTake {
		switch regAddr {
		case hw.RegCtrl:
			t.cfg.lhsOn = hd&hw.CtrlLHSOn != 0
		case hw.RegSizePos:
			t.cfg.sizeWord = hd >> 2 & 3
		case hw.RegSplitPos:
			t.cfg.splitBeats = hd >> 4 & 3
		case hw.RegMaxMsg:
			t.cfg.maxMsg = hd & 0xffff
		case hw.RegTailBase:
			t.cfg.tailBase = hd >> 4
		case hw.RegTailSize:
			t.cfg.tailUnits = hd >> 4 & 0xffffff
		}
	}
	if w.vecTake {
		switch regAddr {
		case hw.RegVecMemAddr:
			t.cmd.memAddr = hd
		case hw.RegVecWinOff:
			t.cmd.winOff = hd
		case hw.RegVecLen:
			t.cmd.length = hd
		}
	}
	msgDone := rx.evMsgDone
	errR := t.err
	if q.regWr && regAddr == hw.RegErr {
		errR &^= hd & hw.ErrAll
	}
	if w.cfgBusy {
		errR |= hw.ErrCfgBusy
	}
	if w.cfgBad {
		errR |= hw.ErrCfgValue
	}
	if msgDone && rx.evMismatch {
		errR |= hw.ErrMismatch
	}
	if msgDone && rx.evTooLong {
		errR |= hw.ErrTooLong
	}
	if w.relError {
		errR |= hw.ErrRelease
	}
	if w.vecWrBusy {
		errR |= hw.ErrVecBusy
	}
	t.err = errR
	if msgDone {
		t.msgCount++
	}
	if msgDone && rx.evMismatch {
		t.mismatchCount++
	}
	if msgDone && rx.evTooLong && !lhsOn {
		t.drop++
	}
	if msgDone && !(rx.evTooLong && !lhsOn) {
		t.stored++
	}
	if w.stall {
		t.stall++
	}
}
