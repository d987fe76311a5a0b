// Package hashmatch runs the hashed matcher (rtl/hash_match.v), compiled by Verilator into
// build/verilator/hash_match/libhash_match.a, in this process through cgo. Build the library
// with `make rtl` (or `bash scripts/verilate.sh hash_match`) before `go build`.
//
// netsim/match drives it beside its Go model on chosen nodes (hash:K:N with the K and N below)
// and checks every output of every cycle.
//
// A Verilated model is not safe for concurrent use; New pins the calling goroutine to its OS
// thread until Close, and the model must be used from that goroutine only.
package hashmatch

/*
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: ${SRCDIR}/../../build/verilator/hash_match/libhash_match.a -lstdc++ -lz -lpthread -lm
#include <stdlib.h>
#include "hash_match_bridge.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// Parameters of the Verilated configuration: the RTL's defaults.
const (
	Entries    = 1024 // ENTRIES
	Bins       = 64   // BINS
	Banks      = 2    // BANKS
	ReadLat    = 1    // RD_LAT
	SrcBits    = 16   // SRC_W
	TagBits    = 16   // TAG_W
	CtxBits    = 8    // CTX_W
	HandleBits = 16   // HANDLE_W
	SeqBits    = 32   // SEQ_W
)

// Pins is one cycle's worth of the matcher's ports. Booleans are 0 or 1. The layout matches
// the C struct hash_match_pins in verilator/hash_match_bridge.h field for field, so that
// Cycle passes it without copying; keep the two in step.
type Pins struct {
	// Inputs, driven before the clock edge.
	InsSrc, InsTag, ReqSrc, ReqTag uint32
	InsHandle                      uint16
	InsCtx, ReqCtx                 uint8
	InsValid, InsSrcAny, InsTagAny uint8
	ReqValid, ReqSrcAny, ReqTagAny uint8
	RspReady                       uint8

	// Outputs, as they were during the cycle (before the edge).
	RspSeq                                 uint32
	RspHandle, RspWalked, Count, FreeCount uint16
	InsReady, ReqReady, RspValid, RspHit   uint8
	InsRefused, Full, Empty                uint8
}

// The Go and C views of one cycle's ports must agree byte for byte.
var _ = [1]struct{}{}[unsafe.Sizeof(Pins{})-C.sizeof_hash_match_pins]
var _ = [1]struct{}{}[C.sizeof_hash_match_pins-unsafe.Sizeof(Pins{})]

// Model is the Verilated hashed matcher.
type Model struct {
	m *C.hash_match_model
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
	m := C.hash_match_new(path)
	if m == nil {
		runtime.UnlockOSThread()
		return nil, errors.New("hash_match: model construction failed")
	}
	return &Model{m: m}, nil
}

// Reset holds reset for four cycles with idle inputs.
func (h *Model) Reset() { C.hash_match_reset(h.m, 4) }

// Cycle applies p's inputs, evaluates, stores the outputs in p and clocks once.
func (h *Model) Cycle(p *Pins) {
	C.hash_match_cycle(h.m, (*C.hash_match_pins)(unsafe.Pointer(p)))
}

// Cycles is the number of clocks since construction, reset included.
func (h *Model) Cycles() uint64 { return uint64(C.hash_match_cycles(h.m)) }

// Close frees the model, flushes its trace and unpins the goroutine.
func (h *Model) Close() error {
	if h.m == nil {
		return nil
	}
	C.hash_match_free(h.m)
	h.m = nil
	runtime.UnlockOSThread()
	return nil
}
