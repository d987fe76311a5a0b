package match

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/verilator/alpu"
)

// The ALPU's cycle counts, measured on the Verilated rtl/alpu.v at every fill level the
// matcher uses (one entry, half full, full; a hit on the oldest cell, on the newest, a
// miss), are the model's (ALPUInsertCycles, ALPUSearchCycles) and the rows of
// docs/matchers.md's table beside the sources: the ALPU patent's single-cycle insert. The
// ALPU paper's own cycle counts were not found (docs/matchers.md says what was searched).
func TestALPUCyclesAgainstSources(t *testing.T) {
	m, err := alpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Reset()
	var p alpu.Pins
	p.RspReady = 1
	idle := func() { p.InsValid, p.ReqValid, p.OverflowClear = 0, 0, 0 }
	// insert drives one insert and returns the cycles until the ALPU took it and counted it.
	insert := func(tag uint64, ptr uint16) int {
		idle()
		p.InsField, p.InsMask, p.InsPtr, p.InsValid = tag, 0, ptr, 1
		before := m.Cycles()
		for {
			m.Cycle(&p)
			if p.InsReady == 1 {
				break
			}
		}
		took := int(m.Cycles() - before)
		idle()
		m.Cycle(&p)
		if p.InsRefused != 0 || int(p.Count) != int(ptr)+1 {
			t.Fatalf("insert %d: count %d, refused %d", ptr, p.Count, p.InsRefused)
		}
		return took
	}
	// search returns the cycles from driving the request to taking the response, and the hit.
	search := func(tag uint64) (int, bool, uint16) {
		idle()
		p.ReqField, p.ReqMask, p.ReqValid = tag, 0, 1
		n := 0
		for {
			m.Cycle(&p)
			n++
			if p.ReqReady == 1 {
				p.ReqValid = 0
			}
			if p.RspValid == 1 || n > 64 {
				break
			}
		}
		hit, ptr := p.RspHit == 1, p.RspPtr
		idle()
		m.Cycle(&p)
		return n, hit, ptr
	}
	ins := map[int]bool{}
	srch := map[int]bool{}
	for i := 0; i < alpu.Cells; i++ {
		ins[insert(uint64(1000+i), uint16(i))] = true
		if n := i + 1; n == 1 || n == alpu.Cells/2 || n == alpu.Cells {
			// Searches that do not delete: a miss. (A hit deletes its cell; measured below.)
			c, hit, _ := search(99)
			if hit {
				t.Fatalf("miss at %d entries hit", n)
			}
			srch[c] = true
		}
	}
	for _, tag := range []uint64{1000 + alpu.Cells - 1, 1000} { // the newest, then the oldest
		c, hit, ptr := search(tag)
		if !hit || uint64(ptr) != tag-1000 {
			t.Fatalf("search for %d: hit %v pointer %d", tag, hit, ptr)
		}
		srch[c] = true
	}
	if len(ins) != 1 || !ins[ALPUInsertCycles] {
		t.Errorf("inserts took %v cycles; the model charges %d", ins, ALPUInsertCycles)
	}
	if len(srch) != 1 || !srch[ALPUSearchCycles] {
		t.Errorf("searches took %v cycles; the model charges %d", srch, ALPUSearchCycles)
	}
	doc, err := os.ReadFile("../../docs/matchers.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		fmt.Sprintf("| insert (not full) | %d |", ALPUInsertCycles),
		fmt.Sprintf("| search, request to response (hit or miss, any fill) | %d |", ALPUSearchCycles),
	} {
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/matchers.md has no row %q", row)
		}
	}
}
