// Package hashmatch runs the hashed matcher (rtl/hash_match.v), compiled by Verilator in two
// configurations into build/verilator/hash_match/libhash_match.a (the study's, Default) and
// build/verilator/hash_match_small/libhash_match_small.a (Small: other banks and read
// latency), in this process through cgo. Build the libraries with `make rtl` (or `bash
// scripts/verilate.sh hash_match` and `hash_match_small`) before `go build`.
//
// netsim/match drives them beside its Go model on chosen nodes (hash:K:N and hash:K:N:W:L
// with the sizes of Configs) and checks every output of every cycle.
//
// A Verilated model is not safe for concurrent use; New pins the calling goroutine to its OS
// thread until Close, and the model must be used from that goroutine only.
package hashmatch

/*
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: ${SRCDIR}/../../build/verilator/hash_match/libhash_match.a ${SRCDIR}/../../build/verilator/hash_match_small/libhash_match_small.a -lstdc++ -lz -lpthread -lm
#include <stdlib.h>
#include "hash_match_bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Config is a Verilated configuration's parameters.
type Config struct {
	Entries    int // ENTRIES
	Bins       int // BINS
	Banks      int // BANKS
	ReadLat    int // RD_LAT
	SrcBits    int // SRC_W
	TagBits    int // TAG_W
	CtxBits    int // CTX_W
	HandleBits int // HANDLE_W
	SeqBits    int // SEQ_W
}

// Default is the study's configuration: the RTL's defaults (libhash_match.a).
var Default = Config{Entries: 1024, Bins: 64, Banks: 2, ReadLat: 1, SrcBits: 16, TagBits: 16, CtxBits: 8, HandleBits: 16, SeqBits: 32}

// Small is a corner of the design: 16 entries in 4 bins, 4 banks of 4, a two-cycle block RAM
// read, the default field widths (libhash_match_small.a; verilator/hash_match_small_bridge.cpp
// states its parameters).
var Small = Config{Entries: 16, Bins: 4, Banks: 4, ReadLat: 2, SrcBits: 16, TagBits: 16, CtxBits: 8, HandleBits: 16, SeqBits: 32}

// Configs are the Verilated configurations.
var Configs = []Config{Default, Small}

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

// Model is the Verilated hashed matcher in one of its configurations (m or small is set).
type Model struct {
	m     *C.hash_match_model
	small *C.hash_match_small_model
}

// New builds a model of cfg, one of Configs, and pins the calling goroutine to its OS thread
// until Close. With a non-empty tracePath every cycle is recorded to that FST file.
func New(cfg Config, tracePath string) (*Model, error) {
	if cfg != Default && cfg != Small {
		return nil, fmt.Errorf("hash_match: no Verilated build with %d entries, %d bins, %d banks and read latency %d (%+v and %+v are built)",
			cfg.Entries, cfg.Bins, cfg.Banks, cfg.ReadLat, Default, Small)
	}
	runtime.LockOSThread()
	var path *C.char
	if tracePath != "" {
		path = C.CString(tracePath)
		defer C.free(unsafe.Pointer(path))
	}
	h := &Model{}
	if cfg == Small {
		h.small = C.hash_match_small_new(path)
	} else {
		h.m = C.hash_match_new(path)
	}
	if h.m == nil && h.small == nil {
		runtime.UnlockOSThread()
		return nil, errors.New("hash_match: model construction failed")
	}
	return h, nil
}

// Reset holds reset for four cycles with idle inputs.
func (h *Model) Reset() {
	if h.small != nil {
		C.hash_match_small_reset(h.small, 4)
		return
	}
	C.hash_match_reset(h.m, 4)
}

// Cycle applies p's inputs, evaluates, stores the outputs in p and clocks once.
func (h *Model) Cycle(p *Pins) {
	if h.small != nil {
		C.hash_match_small_cycle(h.small, (*C.hash_match_pins)(unsafe.Pointer(p)))
		return
	}
	C.hash_match_cycle(h.m, (*C.hash_match_pins)(unsafe.Pointer(p)))
}

// Cycles is the number of clocks since construction, reset included.
func (h *Model) Cycles() uint64 {
	if h.small != nil {
		return uint64(C.hash_match_small_cycles(h.small))
	}
	return uint64(C.hash_match_cycles(h.m))
}

// Close frees the model, flushes its trace and unpins the goroutine.
func (h *Model) Close() error {
	switch {
	case h.small != nil:
		C.hash_match_small_free(h.small)
	case h.m != nil:
		C.hash_match_free(h.m)
	default:
		return nil
	}
	h.m, h.small = nil, nil
	runtime.UnlockOSThread()
	return nil
}
