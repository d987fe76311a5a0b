package waves

import (
	"math/bits"
	"sort"
	"strconv"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Scope is where lhs_top's own signals sit in the bridge's FST: the trace root the bridge
// names "lhs_top", then the top module.
const Scope = "lhs_top.lhs_top"

// CycleTime is one clock in the bridge's dump, in its time unit (ns): 100 MHz.
const CycleTime = 10

var (
	rxStates  = &Enum{File: "lhs_rx_state.gtkwf", Values: []string{"FIRST", "BODY", "COMMIT"}}
	vecStates = &Enum{File: "lhs_vec_state.gtkwf", Values: []string{"IDLE", "VL", "VS"}}
)

// Layout is the receive path's signals per block, for an lhs_top built with parameters p.
// The names are those of the RTL (rtl/lhs_*.v); TestGTKWave checks every one is in the dump.
func Layout(p gosim.ModelParams) []Group {
	ramAW := bits.TrailingZeros(uint(p.Entries)) + 2 // 128-bit words of the LH buffer
	winAW := bits.TrailingZeros(uint(p.WinBytes)) - 4
	s := func(name string) string { return Scope + "." + name }
	bus := func(name string, width int) string { return s(name) + rangeOf(width) }
	bin := func(name string) Trace { return Trace{Name: s(name), Format: Bin} }
	hex := func(name string, width int) Trace { return Trace{Name: bus(name, width), Format: Hex} }
	dec := func(name string, width int) Trace { return Trace{Name: bus(name, width), Format: Dec} }
	return []Group{
		{Name: "network input (s_msg)", Traces: []Trace{
			bin("clk"), bin("rst"),
			bin("s_msg_tvalid"), bin("s_msg_tready"), bin("s_msg_tlast"),
			hex("s_msg_tkeep", 16), hex("s_msg_tdata", 128),
		}},
		{Name: "splitter (lhs_rx)", Traces: []Trace{
			{Name: bus("rx.state_reg", 2), Format: Hex, Enum: rxStates},
			bin("rx.fire"), dec("rx.beat_reg", 16), dec("rx.size_reg", 32), dec("rx.delivered_reg", 21),
			bin("rx.inline_reg"), bin("rx.split_reg"), bin("rx.too_long_reg"),
			bin("rx.beat_to_ram"), bin("rx.beat_to_hold"), bin("rx.beat_to_mem"),
			bin("ev_commit"), bin("ev_msg_done"), bin("rx.ev_mismatch"), bin("rx.ev_too_long"),
		}},
		{Name: "LH buffer and tail ring", Traces: []Trace{
			dec("rx.prod_reg", 32), dec("rx.cons_reg", 32), bin("rx.lh_full"),
			bin("rx.ram_wr_en"), hex("rx.ram_wr_addr", ramAW), bin("rx.rd_en"), hex("rx.rd_addr", ramAW),
			hex("rx.wptr_reg", 24), dec("rx.used_reg", 24), bin("rx.fits"),
			hex("rx.tail_ptr_reg", 25), dec("rx.tail_left_reg", 13),
		}},
		{Name: "large memory (m_mem, s_mem)", Traces: []Trace{
			bin("m_mem_valid"), bin("m_mem_ready"), bin("m_mem_write"),
			hex("m_mem_addr", 32), hex("m_mem_wdata", 128),
			bin("s_mem_rvalid"), hex("s_mem_rdata", 128),
			bin("rx_mem_valid"), bin("vec_mem_valid"),
		}},
		{Name: "windows and vector engine", Traces: []Trace{
			{Name: bus("vec.state_reg", 2), Format: Hex, Enum: vecStates},
			dec("vec.req_left_reg", 13), dec("vec.rsp_left_reg", 13),
			hex("vec.addr_reg", 25), hex("vec.win_reg", winAW),
			bin("vec.done_reg"), bin("vec.error_reg"), hex("vec.cause_reg", 4), bin("ev_vec_done"),
			bin("vec.rwin_wr_en"), bin("vec.rwin_rd_en"), bin("vec.wwin_wr_en"), bin("vec.wwin_rd_en"),
		}},
		{Name: "host register accesses", Traces: []Trace{
			bin("host_valid"), bin("host_write"), hex("host_addr", 20), hex("host_wdata", 32),
			bin("host_rvalid"), hex("host_rdata", 32),
			bin("reg_wr"), hex("reg_addr", 8),
			bin("enable_reg"), bin("lhs_on_reg"), hex("err_reg", 6),
			dec("msg_count_reg", 32), dec("stall_reg", 32),
		}},
	}
}

func rangeOf(width int) string {
	if width <= 1 {
		return ""
	}
	return "[" + strconv.Itoa(width-1) + ":0]"
}

// Rule is what Events needs of the host's configuration to tell a split message from its
// first beat (docs/design.md, "LHS rule").
type Rule struct {
	LHS     bool
	SizePos uint32 // byte offset of the size field
	MaxMsg  uint32
}

// Marker names, in the order they take letters.
const (
	// FirstMismatch is the first cycle the RTL and the golden model disagreed (lockstep).
	FirstMismatch = "first RTL/model mismatch"
	FirstSplit    = "first split message"
	FirstStall    = "first back-pressure"
	FirstCommit   = "first LH entry committed"
	FirstVL       = "first VL"
	FirstVS       = "first VS"
)

var eventOrder = []string{FirstMismatch, FirstSplit, FirstStall, FirstCommit, FirstVL, FirstVS}

// Events watches a board's ports (Observe is a gosim.Board.OnCycle callback) and keeps the
// cycle of the first of each telling event: a split message's first beat, the first cycle the
// network input is held off, the first commit, the first VL and VS commands.
type Events struct {
	rule  Rule
	inMsg bool
	first map[string]uint64
	last  uint64
}

// NewEvents watches for events under the host's rule.
func NewEvents(r Rule) *Events { return &Events{rule: r, first: map[string]uint64{}} }

// Mark records an event the ports do not show (the first is kept).
func (e *Events) Mark(name string, cycle uint64) { e.mark(name, cycle) }

func (e *Events) mark(name string, cycle uint64) {
	if _, ok := e.first[name]; !ok {
		e.first[name] = cycle
	}
}

// Observe looks at one cycle's ports.
func (e *Events) Observe(cycle uint64, p *gosim.Pins) {
	e.last = cycle
	if p.MsgValid != 0 && p.MsgReady == 0 {
		e.mark(FirstStall, cycle)
	}
	if p.MsgValid != 0 && p.MsgReady != 0 {
		if !e.inMsg && e.rule.LHS {
			pos := e.rule.SizePos & 12
			size := uint32(p.MsgData[pos/8] >> (8 * (pos % 8)))
			if size > hw.InlineMax && size <= e.rule.MaxMsg {
				e.mark(FirstSplit, cycle)
			}
		}
		e.inMsg = p.MsgLast == 0
	}
	if p.EvCommit != 0 {
		e.mark(FirstCommit, cycle)
	}
	if p.HostValid != 0 && p.HostWrite != 0 && p.HostAddr == hw.RegVecCmd {
		switch p.HostWData {
		case hw.VecOpVL:
			e.mark(FirstVL, cycle)
		case hw.VecOpVS:
			e.mark(FirstVS, cycle)
		}
	}
}

// First is the board cycle of the first event called name.
func (e *Events) First(name string) (uint64, bool) {
	c, ok := e.first[name]
	return c, ok
}

// Last is the last cycle observed.
func (e *Events) Last() uint64 { return e.last }

// Markers places the events in the dump, the port events first and then those given to
// Mark in the order of their cycles: board cycle c is at (c+offset)*CycleTime, offset being
// the cycles the RTL ran before the board's first (its reset).
func (e *Events) Markers(offset uint64) []Marker {
	var out []Marker
	known := map[string]bool{}
	for _, name := range eventOrder {
		known[name] = true
		if c, ok := e.first[name]; ok {
			out = append(out, Marker{Name: name, Time: (c + offset) * CycleTime})
		}
	}
	var extra []Marker
	for name, c := range e.first {
		if !known[name] {
			extra = append(extra, Marker{Name: name, Time: (c + offset) * CycleTime})
		}
	}
	sort.Slice(extra, func(i, j int) bool {
		if extra[i].Time != extra[j].Time {
			return extra[i].Time < extra[j].Time
		}
		return extra[i].Name < extra[j].Name
	})
	return append(out, extra...)
}

// ForRun is the save file for an lhs_top dump: the layout, the run's markers, and the view
// opened at the first disagreement between the RTL and the golden model when there was one
// (FirstMismatch), else at the first marker (the first split message when there was one),
// eight cycles before it and with its label in view.
func ForRun(dump string, p gosim.ModelParams, markers []Marker) *SaveFile {
	// Zoom -6.5: about 90 ns per 200 pixels, some 45 cycles across a 1600-pixel window.
	s := &SaveFile{Dump: dump, Groups: Layout(p), Markers: markers, Cursor: -1, Zoom: -6.5, Unit: "ns", Width: 1600, Height: 1200}
	if len(markers) == 0 {
		return s
	}
	anchor := 0
	for i, m := range markers {
		if m.Name == FirstMismatch {
			anchor = i
			break
		}
	}
	at := markers[anchor].Time
	s.Cursor = int64(at)
	s.Start = at - min(at, 8*CycleTime)
	// Names are centred over their markers, and close markers share one label: keep the
	// anchor's label whole on the screen.
	labels := s.Labels()
	if left := labels[labels[anchor].Head].Left / s.PixelsPerUnit(); left < float64(s.Start) {
		s.Start = uint64(max(0, left-CycleTime))
	}
	return s
}

// WatchLockstep marks FirstMismatch at the first cycle a lockstep board's RTL and golden
// model disagree (b's core must be a *gosim.Lockstep; otherwise it does nothing).
func (e *Events) WatchLockstep(b *gosim.Board) {
	l, ok := b.Core().(*gosim.Lockstep)
	if !ok {
		return
	}
	b.OnCycle(func(cycle uint64, _ *gosim.Pins) {
		if l.Mismatch != nil {
			e.mark(FirstMismatch, cycle)
		}
	})
}
