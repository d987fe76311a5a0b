// Package verilator runs the receive path's RTL (rtl/lhs_top.v), compiled by Verilator into
// build/verilator/lhs_top/liblhs_top.a, in this process through cgo. Build the library with
// `make rtl` before `go build`.
//
// A Verilated model is not safe for concurrent use; RTL pins the goroutine that creates it to
// its OS thread until Close, and must be used from that goroutine only.
package verilator

/*
#cgo CFLAGS: -I${SRCDIR}
#include <stdlib.h>
#include "lhs_bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// The Go and C views of one cycle's ports must agree byte for byte.
var _ = [1]struct{}{}[unsafe.Sizeof(gosim.Pins{})-C.sizeof_lhs_pins]

// RTL is the Verilated lhs_top as a gosim.Core.
type RTL struct {
	m *C.lhs_model
}

// New builds a model. With a non-empty tracePath every cycle is recorded to that FST file.
func New(tracePath string) (*RTL, error) {
	runtime.LockOSThread()
	var path *C.char
	if tracePath != "" {
		path = C.CString(tracePath)
		defer C.free(unsafe.Pointer(path))
	}
	m := C.lhs_new(path)
	if m == nil {
		runtime.UnlockOSThread()
		return nil, errors.New("verilator: model construction failed")
	}
	return &RTL{m: m}, nil
}

// Reset holds reset for hw.ResetCycles cycles: board cycle c is RTL cycle c+hw.ResetCycles,
// at time 10*(c+hw.ResetCycles) ns in the waveform.
func (r *RTL) Reset() { C.lhs_reset(r.m, hw.ResetCycles) }

// Cycle applies p's inputs, evaluates, stores the outputs in p and clocks once.
func (r *RTL) Cycle(p *gosim.Pins) {
	C.lhs_cycle(r.m, (*C.lhs_pins)(unsafe.Pointer(p)))
}

// Cycles is the number of clocks since construction, reset included.
func (r *RTL) Cycles() uint64 { return uint64(C.lhs_cycles(r.m)) }

// Close frees the model and flushes its trace.
func (r *RTL) Close() error {
	if r.m == nil {
		return nil
	}
	C.lhs_free(r.m)
	r.m = nil
	runtime.UnlockOSThread()
	return nil
}

// NativeWorkload runs the benchmark workload (experiment.Workload) in a C++ loop over the
// Verilated model, with no Go in the loop, and returns the cycles it took.
func NativeWorkload(msgs, seed uint64) (uint64, error) {
	var ok C.int
	cycles := uint64(C.lhs_native_workload(C.uint64_t(msgs), C.uint64_t(seed), &ok))
	if ok == 0 {
		return cycles, fmt.Errorf("verilator: native workload did not commit %d entries", msgs)
	}
	return cycles, nil
}
