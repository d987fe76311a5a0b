package gosim

import "github.com/lhsim/lhsim/hw"

// The golden model of rtl/lhs_vector_engine.v: the read and write windows and the VL/VS engine.

const (
	vecIdle = iota // STATE_IDLE
	vecVL          // STATE_VL
	vecVS          // STATE_VS
)

// vecBlock is lhs_vector_engine's state: its *_reg registers and the window RAMs.
type vecBlock struct {
	winBytes                uint32 // WIN_BYTES
	state, reqLeft, rspLeft uint32
	addr                    uint32 // next memory unit
	win                     uint32 // VL: next window word; VS: word in the read register
	done, err               bool
	cause                   uint32
	rwin                    []word      // rwin_ram
	rwinRd                  word        // rwin_ram's read data register (rwin_rd_data)
	wwin                    [4][]uint32 // wwin_ram, one per 32-bit lane
	wwinRd                  [4]uint32   // the lanes' read data registers (m_mem_wdata)
}

// vecCmd are lhs_vector_engine's cmd_mem_addr, cmd_win_off and cmd_len inputs: lhs_top's
// VEC_MEM_ADDR, VEC_WIN_OFF and VEC_LEN registers, wired straight in.
type vecCmd struct {
	memAddr, winOff, length uint32
}

// vecIn are lhs_vector_engine's other inputs from lhs_top (s_mem_* come straight from the
// pins).
type vecIn struct {
	cmd        bool   // cmd_valid
	op         uint32 // cmd_op
	memReady   bool   // m_mem_ready, after the arbiter
	rwinRdEn   bool   // rwin_rd_en
	rwinRdAddr uint32 // rwin_rd_addr
	wwinWrEn   bool   // wwin_wr_en
	wwinWrAddr uint32 // wwin_wr_addr: 32-bit word of the write window
	wwinWrData uint32 // wwin_wr_data
}

// vecOut are lhs_vector_engine's outputs during the cycle (m_mem_addr and m_mem_wdata are
// registers: memWord and wdata).
type vecOut struct {
	memValid, memWrite bool // m_mem_valid, m_mem_write
	evDone             bool // ev_done
}

// vecNext is what lhs_vector_engine's clocked process takes from this cycle's logic.
type vecNext struct {
	start          bool
	check          uint32 // refusal cause, 0 when the command is good
	beats          uint32
	fire           bool // mem_fire
	vlLast, vsLast bool
	rwinWr         bool // read window write port (VL response)
	wwinRdEn       bool // write window read port
	wwinRdAddr     uint32
}

// memWord is m_mem_addr / 16.
func (v *vecBlock) memWord() uint32 { return v.addr & (uint32(1)<<(hw.MemAW-4) - 1) }

// wdata is m_mem_wdata: the four lanes' read registers.
func (v *vecBlock) wdata() word {
	return word{uint64(v.wwinRd[0]) | uint64(v.wwinRd[1])<<32, uint64(v.wwinRd[2]) | uint64(v.wwinRd[3])<<32}
}

// busy is the busy output.
func (v *vecBlock) busy() bool { return v.state != vecIdle }

// eval is lhs_vector_engine's combinational logic.
func (v *vecBlock) eval(p *Pins, cmd *vecCmd, in *vecIn, out *vecOut, nx *vecNext) {
	winWords := v.winBytes / 16

	// A command starts; its check (the first rule broken names the cause) and its beats
	// matter only then.
	start := in.cmd && v.state == vecIdle
	var check, beats uint32
	if start {
		switch {
		case in.op != hw.VecOpVL && in.op != hw.VecOpVS:
			check = hw.CauseOpcode
		case cmd.length == 0:
			check = hw.CauseLen
		case cmd.memAddr&15 != 0 || cmd.winOff&15 != 0:
			check = hw.CauseAlign
		case uint64(cmd.winOff)+uint64(cmd.length) > uint64(v.winBytes):
			check = hw.CauseWindow
		case uint64(cmd.memAddr)+uint64(cmd.length) > hw.MemBytes:
			check = hw.CauseMemory
		}
		beats = (cmd.length>>4)&0x1fff + b2u(cmd.length&15 != 0)
	}
	startOK := start && check == 0

	var memValid bool
	switch v.state {
	case vecVL:
		memValid = v.reqLeft != 0
	case vecVS:
		memValid = true
	}
	fire := memValid && in.memReady
	wwinRdAddr := (v.win + 1) & (winWords - 1)
	if start {
		wwinRdAddr = cmd.winOff >> 4 & (winWords - 1)
	}
	rvalid := p.MemRValid != 0
	vlLast := v.state == vecVL && rvalid && v.rspLeft == 1
	vsLast := v.state == vecVS && fire && v.reqLeft == 1

	out.memValid, out.memWrite = memValid, v.state == vecVS
	out.evDone = start && check != 0 || vlLast || vsLast

	nx.start, nx.check, nx.beats, nx.fire = start, check, beats, fire
	nx.vlLast, nx.vsLast = vlLast, vsLast
	nx.rwinWr = v.state == vecVL && rvalid
	nx.wwinRdEn, nx.wwinRdAddr = startOK || v.state == vecVS && fire, wwinRdAddr
}

// clock is lhs_vector_engine's clock edge: the window RAMs' ports (read-first) and the
// clocked process.
func (v *vecBlock) clock(rst bool, p *Pins, cmd *vecCmd, in *vecIn, nx *vecNext) {
	winMask := v.winBytes/16 - 1
	unitMask := uint32(1)<<(hw.MemAW-4) - 1

	if in.rwinRdEn {
		v.rwinRd = v.rwin[in.rwinRdAddr]
	}
	if nx.rwinWr {
		v.rwin[v.win&winMask] = p.MemRData
	}
	if nx.wwinRdEn {
		for l := range v.wwin {
			v.wwinRd[l] = v.wwin[l][nx.wwinRdAddr]
		}
	}
	if in.wwinWrEn {
		v.wwin[in.wwinWrAddr&3][in.wwinWrAddr>>2&winMask] = in.wwinWrData
	}

	state, done, verr, cause := v.state, v.done, v.err, v.cause
	reqLeft, rspLeft := v.reqLeft, v.rspLeft
	addr, win := v.addr, v.win

	if nx.start {
		done, verr, cause = nx.check != 0, nx.check != 0, nx.check
		if nx.check == 0 {
			state = vecVS
			if in.op == hw.VecOpVL {
				state = vecVL
			}
			reqLeft, rspLeft = nx.beats, nx.beats
			addr = cmd.memAddr >> 4 & unitMask
			win = cmd.winOff >> 4 & winMask
		}
	}
	if v.state == vecVL {
		if nx.fire {
			reqLeft = v.reqLeft - 1
			addr = (v.addr + 1) & unitMask
		}
		if p.MemRValid != 0 {
			rspLeft = v.rspLeft - 1
			win = (v.win + 1) & winMask
		}
		if nx.vlLast {
			state, done = vecIdle, true
		}
	}
	if v.state == vecVS && nx.fire {
		reqLeft = v.reqLeft - 1
		addr = (v.addr + 1) & unitMask
		win = (v.win + 1) & winMask
		if nx.vsLast {
			state, done = vecIdle, true
		}
	}
	if rst {
		state, done, verr, cause, reqLeft, rspLeft = vecIdle, false, false, 0, 0, 0
	}
	v.state, v.done, v.err, v.cause = state, done, verr, cause
	v.reqLeft, v.rspLeft, v.addr, v.win = reqLeft, rspLeft, addr, win
}
