package match

import (
	"fmt"

	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/verilator/alpu"
)

// RTLCells is the size of the Verilated ALPU (rtl/alpu.v's default CELLS): alpu:N runs on RTL
// nodes for N up to it, the driver never filling more than N cells.
const RTLCells = alpu.Cells

// alpuRTL is one queue's Verilated ALPU, driven with every insert and search the model does
// and checked against it: the same hit, the same entry (by pointer), the same cycles.
type alpuRTL struct {
	m     *alpu.Model
	p     alpu.Pins
	rank  int
	cells int
	ops   int
}

func newALPURTL(rank, cells int) (*alpuRTL, error) {
	m, err := alpu.New("")
	if err != nil {
		return nil, err
	}
	m.Reset()
	r := &alpuRTL{m: m, rank: rank, cells: cells}
	r.p.RspReady = 1
	return r, nil
}

func (r *alpuRTL) close() {
	if r.m != nil {
		r.m.Close()
		r.m = nil
	}
}

// idle clears the inputs.
func (r *alpuRTL) idle() {
	r.p.InsValid, r.p.ReqValid, r.p.OverflowClear = 0, 0, 0
}

// insert drives one insert and checks it took one cycle and was not refused.
func (r *alpuRTL) insert(q *alpuQueue, field, mask uint64, ptr uint16, e goal.Entry) {
	r.ops++
	r.idle()
	r.p.InsField, r.p.InsMask, r.p.InsPtr, r.p.InsValid = field, mask, ptr, 1
	r.m.Cycle(&r.p)
	at := r.m.Cycles()
	if r.p.InsReady == 0 {
		q.u.fail(fmt.Errorf("node %d, %s queue, message from %d tag %d (line %d), cycle %d: the ALPU RTL held the insert back; the model takes it in %d cycle", r.rank, q.which, e.Src, e.Tag, e.Line, at, ALPUInsertCycles))
		return
	}
	r.idle()
	r.m.Cycle(&r.p) // the cycle after: an insert the RTL refused shows here
	if r.p.InsRefused != 0 || int(r.p.Count) != len(q.hw) {
		q.u.fail(fmt.Errorf("node %d, %s queue, message from %d tag %d (line %d), cycle %d: the ALPU RTL holds %d entries (refused %d), the model %d", r.rank, q.which, e.Src, e.Tag, e.Line, at, r.p.Count, r.p.InsRefused, len(q.hw)))
	}
}

// search drives one request and checks the response against the model's hit (index into
// q.hw, -1 for none) and the cycles it took.
func (r *alpuRTL) search(q *alpuQueue, field, mask uint64, hit int, src, tag uint32) {
	r.ops++
	r.idle()
	r.p.ReqField, r.p.ReqMask, r.p.ReqValid = field, mask, 1
	start := r.m.Cycles()
	cycles := 0
	for {
		r.m.Cycle(&r.p)
		cycles++
		if r.p.ReqValid == 1 && r.p.ReqReady == 1 {
			r.p.ReqValid = 0
		}
		if r.p.RspValid == 1 || cycles > 64 {
			break
		}
	}
	want := "a miss"
	if hit >= 0 {
		want = fmt.Sprintf("a hit on pointer %d", q.hw[hit].ptr)
	}
	got := "a miss"
	if r.p.RspHit == 1 {
		got = fmt.Sprintf("a hit on pointer %d", r.p.RspPtr)
	}
	if r.p.RspValid == 0 {
		got = "no response"
	}
	if got != want || cycles != ALPUSearchCycles {
		q.u.fail(fmt.Errorf("node %d, %s queue, search for source %s tag %s, cycle %d: the ALPU RTL gave %s in %d cycles, the model %s in %d", r.rank, q.which, anyStr(src), anyStr(tag), start+uint64(cycles), got, cycles, want, ALPUSearchCycles))
	}
	r.idle()
}

func anyStr(v uint32) string {
	if v == goal.Any {
		return "any"
	}
	return fmt.Sprint(v)
}
