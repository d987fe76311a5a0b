package gosim

import "github.com/lhsim/lhsim/hw"

// The golden model of rtl/lhs_rx.v: the splitter and the LH buffer.

const (
	rxFirst  = iota // STATE_FIRST
	rxBody          // STATE_BODY
	rxCommit        // STATE_COMMIT
)

// rxBlock is lhs_rx's state: its *_reg registers and the LH buffer RAM.
type rxBlock struct {
	entries                    uint32 // ENTRIES
	state, prod, cons          uint32
	wptr, used                 uint32 // tail ring, 16-byte units
	beat                       uint16 // index of the next beat, saturating
	inline, split, tooLong     bool
	size, delivered            uint32
	tailOff, tailLeft, tailPtr uint32
	hold                       uint64 // entry bytes 48..55
	short                      bool   // the message ended before its size field did
	ram                        []word // lh_ram: four words per entry
	rd                         word   // lh_ram's read data register (rd_data)
}

// rxConfig are lhs_rx's cfg_* inputs: lhs_top's configuration registers, wired straight in.
type rxConfig struct {
	enable, lhsOn bool
	sizeWord      uint32 // cfg_size_word: SIZE_POS / 4
	splitBeats    uint32 // cfg_split_beats: SPLIT_POS / 16
	maxMsg        uint32
	tailBase      uint32 // 16-byte units
	tailUnits     uint32 // ring size in 16-byte units
}

// reset sets the configuration registers to their reset values (docs/design.md).
func (c *rxConfig) reset() {
	c.enable = hw.CtrlReset&hw.CtrlEnable != 0
	c.lhsOn = hw.CtrlReset&hw.CtrlLHSOn != 0
	c.sizeWord = hw.SizePosReset >> 2 & 3
	c.splitBeats = hw.SplitPosReset >> 4 & 3
	c.maxMsg = hw.MaxMsgReset & 0xffff
	c.tailBase = hw.TailBaseReset >> 4
	c.tailUnits = hw.TailSizeReset >> 4 & 0xffffff
}

// rxIn are lhs_rx's inputs from lhs_top's host decode (the message stream and m_mem_ready
// come straight from the pins).
type rxIn struct {
	relLH        bool   // rel_lh_valid
	relLHCount   uint32 // rel_lh_count
	relTail      bool   // rel_tail_valid
	relTailUnits uint32 // rel_tail_units
	rdEn         bool   // rd_en: a host read of the LH buffer
	rdAddr       uint32 // rd_addr: LH buffer word
	ringReset    bool   // cfg_ring_reset: TAIL_BASE or TAIL_SIZE taken, TAIL_WPTR to 0
}

// rxOut are lhs_rx's outputs during the cycle.
type rxOut struct {
	tready     bool   // s_msg_tready
	memValid   bool   // m_mem_valid
	memUnit    uint32 // m_mem_addr / 16 (m_mem_wdata is the beat on the bus)
	relError   bool   // rel_error
	quiet      bool   // between messages, both rings empty, no beat now
	evCommit   bool   // ev_commit
	evMsgDone  bool   // ev_msg_done
	evMismatch bool   // ev_mismatch
	evTooLong  bool   // ev_too_long
}

// rxNext is what lhs_rx's clocked process takes from this cycle's combinational logic.
type rxNext struct {
	first, fire, commit   bool
	isInline, tooLong     bool // first-beat decisions from the size field
	size, need, wptrAfter uint32
	startUnit             uint32
	beatToMem, beatToHold bool
	deliveredNow          uint32
	beatData              word // the beat, bytes past the message's end 0 (beat_data)
	sizeShort             bool
	ramWr                 bool // LH buffer write port
	ramAddr               uint32
	ramData               word
	relLH, relTail        bool // releases taken (valid and not refused)
}

// eval is lhs_rx's combinational logic: its outputs for p's inputs, and its next-state inputs.
func (r *rxBlock) eval(p *Pins, cfg *rxConfig, in *rxIn, out *rxOut, nx *rxNext) {
	valid := p.MsgValid != 0
	memReady := p.MemReady != 0
	unitMask := uint32(1)<<(hw.MemAW-4) - 1

	first := r.state == rxFirst
	commit := r.state == rxCommit

	// The beat as the message has it: on the last beat, bytes past its end are 0.
	lb := lastBytes(p.MsgKeep)
	beatData := p.MsgData
	if p.MsgLast != 0 {
		beatData = maskBeat(beatData, lb)
	}

	// First-beat decisions, from the size field of the beat on the bus (the RTL computes them
	// on every cycle; they are used at the first beat only).
	var size, need, wptrAfter, startUnit uint32
	var isInline, tooLong, fits, sizeShort bool
	if first {
		size = uint32(beatData[cfg.sizeWord/2] >> (32 * (cfg.sizeWord % 2)))
		sizeShort = p.MsgLast != 0 && lb < cfg.sizeWord*4+4
		splitBytes := cfg.splitBeats * 16
		isInline = cfg.lhsOn && size <= hw.InlineMax
		var span uint32
		if cfg.lhsOn {
			span = ((size & 0xffff) + 15 - splitBytes) & 0x1ffff
		} else if size == 0 {
			span = 16
		} else {
			span = (size & 0xffff) + 15
		}
		units := span >> 4
		tooLong = !isInline && (size > cfg.maxMsg || units > cfg.tailUnits)
		if !isInline && !tooLong {
			need = units
		}
		fits = r.used+need <= cfg.tailUnits
		wptrAfter = r.wptr + need
		if wptrAfter >= cfg.tailUnits {
			wptrAfter -= cfg.tailUnits
		}
		startUnit = (cfg.tailBase + r.wptr) & unitMask
	}

	// Where the beat on the bus goes.
	var beatToRAM, beatToHold, beatToMem, tready, memValid bool
	var memUnit uint32
	if first {
		lhFull := r.prod-r.cons == r.entries
		beatToRAM = cfg.lhsOn
		beatToMem = !cfg.lhsOn && !tooLong && fits
		tready = cfg.enable && fits && (cfg.lhsOn && !lhFull || !cfg.lhsOn && (tooLong || memReady))
		memUnit = startUnit
		memValid = valid && beatToMem && cfg.enable
	} else {
		headBeats := cfg.splitBeats // words 0..2; beat 3 is held
		if r.inline {
			headBeats = 3
		}
		beatToRAM = cfg.lhsOn && uint32(r.beat) < headBeats
		beatToHold = cfg.lhsOn && r.inline && r.beat == 3
		beatToMem = r.tailLeft != 0 && !beatToRAM && !beatToHold
		tready = r.state == rxBody && (!beatToMem || memReady)
		memUnit = (cfg.tailBase + r.tailOff) & unitMask
		memValid = valid && r.state == rxBody && beatToMem
	}
	fire := valid && tready

	// Bytes delivered so far, counting this beat as the last one.
	deliveredNow := lb
	if !first {
		deliveredNow = uint32(r.beat)*16 + lb
	}

	// LH buffer write port: message beats, then the descriptor word at commit.
	ramWr := commit || fire && beatToRAM
	ramWord := uint32(r.beat) & 3
	if commit {
		ramWord = 3
	} else if first {
		ramWord = 0
	}
	ramAddr := (r.prod&(r.entries-1))<<2 | ramWord
	ramData := beatData
	var mismatchNow bool
	if commit {
		lenField := r.delivered
		if lenField > 0xffff {
			lenField = 0xffff
		}
		mismatchNow = r.delivered != r.size || r.short
		flags := b2u(r.tooLong)<<2 | b2u(mismatchNow)<<1 | b2u(r.split)
		var ptrField uint32
		if r.split {
			ptrField = r.tailPtr << 4
		}
		ramData = word{r.hold, uint64(lenField) | uint64(flags)<<16 | uint64(ptrField)<<32}
	}

	// Host releases are checked against what is in use before this cycle's changes.
	relLHBad := in.relLH && in.relLHCount > r.prod-r.cons
	relTailBad := in.relTail && in.relTailUnits > r.used

	lastFire := fire && p.MsgLast != 0
	offDone := lastFire && !cfg.lhsOn
	var evMismatch, evTooLong bool
	if commit {
		evMismatch, evTooLong = mismatchNow, r.tooLong
	} else if offDone {
		sz, tl := r.size, r.tooLong
		if first {
			sz, tl = size, tooLong
		}
		evMismatch, evTooLong = deliveredNow != sz || first && sizeShort, tl
	}

	out.tready, out.memValid, out.memUnit = tready, memValid, memUnit
	out.relError = relLHBad || relTailBad
	out.quiet = first && !fire && r.prod == r.cons && r.used == 0
	out.evCommit, out.evMsgDone = commit, commit || offDone
	out.evMismatch, out.evTooLong = evMismatch, evTooLong

	nx.first, nx.fire, nx.commit = first, fire, commit
	nx.isInline, nx.tooLong = isInline, tooLong
	nx.size, nx.need, nx.wptrAfter, nx.startUnit = size, need, wptrAfter, startUnit
	nx.beatToMem, nx.beatToHold = beatToMem, beatToHold
	nx.deliveredNow = deliveredNow
	nx.beatData, nx.sizeShort = beatData, sizeShort
	nx.ramWr, nx.ramAddr, nx.ramData = ramWr, ramAddr, ramData
	nx.relLH, nx.relTail = in.relLH && !relLHBad, in.relTail && !relTailBad
}

// clock is lhs_rx's clock edge: the LH buffer's ports (read-first) and the clocked process.
func (r *rxBlock) clock(rst bool, p *Pins, cfg *rxConfig, in *rxIn, nx *rxNext) {
	if in.rdEn {
		r.rd = r.ram[in.rdAddr]
	}
	if nx.ramWr {
		r.ram[nx.ramAddr] = nx.ramData
	}

	state, prod, cons, wptr, used := r.state, r.prod, r.cons, r.wptr, r.used
	beat := r.beat
	inline, split, tl := r.inline, r.split, r.tooLong

	if nx.relLH {
		cons = r.cons + in.relLHCount
	}
	if nx.relTail {
		used = r.used - in.relTailUnits
	}
	if nx.commit {
		prod = r.prod + 1
		state = rxFirst
	}
	if nx.fire {
		if nx.first {
			inline = nx.isInline
			split = !nx.isInline && !nx.tooLong && cfg.lhsOn
			tl = nx.tooLong
			r.size = nx.size
			r.hold = 0
			r.short = nx.sizeShort
			r.tailPtr = nx.startUnit
			r.tailOff = r.wptr
			if nx.beatToMem {
				r.tailOff = ringNext(r.wptr, cfg.tailUnits)
			}
			r.tailLeft = (nx.need - b2u(nx.beatToMem)) & 0x1fff
			wptr = nx.wptrAfter
			used = used + nx.need
		} else {
			if nx.beatToHold {
				r.hold = nx.beatData[0]
			}
			if nx.beatToMem {
				r.tailOff = ringNext(r.tailOff, cfg.tailUnits)
				r.tailLeft--
			}
		}
		if nx.first {
			beat = 1
		} else if r.beat != 0xffff {
			beat = r.beat + 1
		}
		if p.MsgLast != 0 {
			r.delivered = nx.deliveredNow
			if cfg.lhsOn {
				state = rxCommit
			} else {
				state = rxFirst
			}
		} else {
			state = rxBody
		}
	}
	if in.ringReset { // only while quiet: no beat moves, the ring is empty
		wptr = 0
	}
	if rst {
		state, prod, cons, wptr, used, beat = rxFirst, 0, 0, 0, 0, 0
		inline, split, tl = false, false, false
		r.tailLeft = 0
	}
	r.state, r.prod, r.cons, r.wptr, r.used, r.beat = state, prod, cons, wptr, used, beat
	r.inline, r.split, r.tooLong = inline, split, tl
}

// maskBeat keeps the first n bytes of a beat (keep_mask) and zeroes the rest.
func maskBeat(w word, n uint32) word {
	switch {
	case n >= 16:
		return w
	case n > 8:
		return word{w[0], w[1] & (1<<(8*(n-8)) - 1)}
	case n == 8:
		return word{w[0], 0}
	}
	return word{w[0] & (1<<(8*n) - 1), 0}
}

// ringNext is the tail-ring offset after off in a ring of units.
func ringNext(off, units uint32) uint32 {
	if off+1 == units {
		return 0
	}
	return off + 1
}
