// Package alpu runs the ALPU baseline (rtl/alpu.v), compiled by Verilator, through cgo.
package alpu

// alpu runs the ALPU baseline (rtl/alpu.v), compiled by Verilator into
// build/verilator/alpu/libalpu.a, in this process through cgo. Build the library with
// `make rtl` (or `bash scripts/verilate.sh alpu`) before `go build`.
//
// The ALPU is the associative list the paper compares LHS against: the test bench drives it
// against a software queue, and package area synthesizes the same RTL for Table 1.
//
// A Verilated model is not safe for concurrent use; New pins the calling goroutine to its OS
// thread until Close, and the model must be used from that goroutine only.

/*
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: ${SRCDIR}/../../build/verilator/alpu/libalpu.a -lstdc++ -lz -lpthread -lm
#include <stdlib.h>
#include "alpu_bridge.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// Parameters of the Verilated configuration: the RTL's defaults.
const (
	// Cells is the list capacity (CELLS).
	Cells = 128
	// FieldBits is the width of the match field and of both masks (FIELD_W).
	FieldBits = 42
	// PtrBits is the width of the pointer (PTR_W).
	PtrBits = 16
	// FieldMask has the FieldBits low bits set.
	FieldMask = uint64(1)<<FieldBits - 1
)

// Pins is one cycle's worth of the ALPU's ports. Booleans are 0 or 1. The layout matches the
// C struct alpu_pins in verilator/alpu_bridge.h field for field, so that Cycle passes it
// without copying; keep the two in step.
type Pins struct {
	// Inputs, driven before the clock edge.
	InsField      uint64 // s_ins_field
	InsMask       uint64 // s_ins_mask: 1 = don't care
	ReqField      uint64 // s_req_field
	ReqMask       uint64 // s_req_mask: 1 = don't care
	InsPtr        uint16 // s_ins_ptr
	InsValid      uint8  // s_ins_tvalid
	ReqValid      uint8  // s_req_tvalid
	RspReady      uint8  // m_rsp_tready
	OverflowClear uint8  // overflow_clear

	// Outputs, as they were during the cycle (before the edge).
	RspPtr     uint16 // m_rsp_ptr
	Count      uint16 // status_count
	InsReady   uint8  // s_ins_tready
	ReqReady   uint8  // s_req_tready
	RspValid   uint8  // m_rsp_tvalid
	RspHit     uint8  // m_rsp_hit
	Full       uint8  // status_full
	Empty      uint8  // status_empty
	Overflow   uint8  // status_overflow
	InsRefused uint8  // ev_ins_refused
}

// The Go and C views of one cycle's ports must agree byte for byte.
var _ = [1]struct{}{}[unsafe.Sizeof(Pins{})-C.sizeof_alpu_pins]
var _ = [1]struct{}{}[C.sizeof_alpu_pins-unsafe.Sizeof(Pins{})]

// Model is the Verilated ALPU.
type Model struct {
	m *C.alpu_model
}

// New builds a model and pins the calling goroutine to its OS thread until Close. With a
// non-empty tracePath every cycle is recorded to that FST file.
func New(tracePath string) (*Model, error) {
	runtime.LockOSThread()
	var path *C.char
	if tracePath != "" {
		path = C.CString(tracePath)
		defer C.free(unsafe.Pointer(path))
	}
	m := C.alpu_new(path)
	if m == nil {
		runtime.UnlockOSThread()
		return nil, errors.New("alpu: model construction failed")
	}
	return &Model{m: m}, nil
}

// Reset holds reset for four cycles with idle inputs.
func (a *Model) Reset() { C.alpu_reset(a.m, 4) }

// Cycle applies p's inputs, evaluates, stores the outputs in p and clocks once.
func (a *Model) Cycle(p *Pins) {
	C.alpu_cycle(a.m, (*C.alpu_pins)(unsafe.Pointer(p)))
}

// Cycles is the number of clocks since construction, reset included.
func (a *Model) Cycles() uint64 { return uint64(C.alpu_cycles(a.m)) }

// Close frees the model, flushes its trace and unpins the goroutine.
func (a *Model) Close() error {
	if a.m == nil {
		return nil
	}
	C.alpu_free(a.m)
	a.m = nil
	runtime.UnlockOSThread()
	return nil
}
