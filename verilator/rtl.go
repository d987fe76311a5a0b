// Package verilator runs the receive path's RTL (rtl/lhs_top.v), compiled by Verilator, through cgo.
package verilator

// verilator runs the receive path's RTL (rtl/lhs_top.v), compiled by Verilator into
// build/verilator/lhs_top/liblhs_top.a, in this process through cgo. Build the library with
// `make rtl` before `go build`.
//
// A Verilated model is not safe for concurrent use: one goroutine at a time, each handing it
// on to the next with a happens-before (a machine's part steps its nodes' models between
// windows, on whichever goroutine runs the part). Its steps keep no state of the calling
// thread (the build has no --threads; the $display and $finish of its parameter checks run
// at construction). RTL pins the goroutine that creates it to its OS thread until Close, so
// that a program with one goroutine keeps its models on one thread.

/*
#cgo CFLAGS: -I${SRCDIR}
#include <stdlib.h>
#include "lhs_bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/verilator/fstfile"
)

// The Go and C views of one cycle's ports, and of a stretch's records, must agree byte for
// byte.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(gosim.Pins{})-C.sizeof_lhs_pins]
	_ = [1]struct{}{}[unsafe.Sizeof(gosim.StretchCtl{})-C.sizeof_lhs_run_ctl]
	_ = [1]struct{}{}[unsafe.Sizeof(gosim.HostWrite{})-C.sizeof_lhs_op]
	_ = [1]struct{}{}[unsafe.Sizeof(gosim.MemWrite{})-C.sizeof_lhs_memw]
	_ = [1]struct{}{}[unsafe.Sizeof(gosim.StretchEvent{})-C.sizeof_lhs_event]
)

// RTL is the Verilated lhs_top as a gosim.Core.
type RTL struct {
	m     *C.lhs_model
	guard *fstfile.Guard // the waveform's reserve and its check (package fstfile), or nil
}

// New builds a model. With a non-empty tracePath every cycle is recorded to that FST file;
// a file that cannot be written is an error here, not a silent run without a waveform, and
// so is a file system without room for the waveform's close (package fstfile: a full one
// would end the process with SIGBUS inside the writer's close).
func New(tracePath string) (*RTL, error) {
	var path *C.char
	var guard *fstfile.Guard
	if tracePath != "" {
		// The space first, so that a file system too full leaves a file already there as it was.
		var err error
		if guard, err = fstfile.Open(tracePath); err != nil {
			return nil, err
		}
		// Verilator's FST writer says nothing when it cannot create the file: find out first.
		f, err := os.OpenFile(tracePath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			guard.Release()
			return nil, fmt.Errorf("verilator: trace: %w", err)
		}
		f.Close()
		path = C.CString(tracePath)
		defer C.free(unsafe.Pointer(path))
	}
	runtime.LockOSThread()
	m := C.lhs_new(path, C.uint64_t(TraceFlushCycles))
	if m == nil {
		runtime.UnlockOSThread()
		guard.Release()
		if tracePath != "" {
			return nil, fmt.Errorf("verilator: model construction failed (or the trace %s could not be opened)", tracePath)
		}
		return nil, errors.New("verilator: model construction failed")
	}
	return &RTL{m: m, guard: guard}, nil
}

// TraceFlushCycles is how often (in cycles) a trace's value changes are written to its file,
// so that a process that dies mid-run leaves the waveform up to the last flush
// (FinishTrace completes such a file). docs/waves.md has what it costs.
var TraceFlushCycles uint64 = 256

// FlushTrace writes the trace's value changes so far to its file (at the next cycle).
func (r *RTL) FlushTrace() { C.lhs_flush(r.m) }

// Reset holds reset for hw.ResetCycles cycles: board cycle c is RTL cycle c+hw.ResetCycles,
// at time 10*(c+hw.ResetCycles) ns in the waveform.
func (r *RTL) Reset() { C.lhs_reset(r.m, hw.ResetCycles) }

// Cycle applies p's inputs, evaluates, stores the outputs in p and clocks once.
func (r *RTL) Cycle(p *gosim.Pins) {
	C.lhs_cycle(r.m, (*C.lhs_pins)(unsafe.Pointer(p)))
}

// RunStretch runs a stretch of cycles with the board around the model in one C call
// (gosim.Board.RunWhile): a cgo call a stretch instead of one a cycle.
func (r *RTL) RunStretch(s *gosim.Stretch) {
	C.lhs_run(r.m, (*C.lhs_pins)(unsafe.Pointer(s.Pins)), ptr[C.uint8_t](s.Msgs), ptr[C.uint32_t](s.Lens),
		C.size_t(len(s.Lens)), ptr[C.lhs_op](s.Ops), ptr[C.uint32_t](s.Units), ptr[C.lhs_memw](s.Writes),
		ptr[C.lhs_event](s.Events), (*C.lhs_run_ctl)(unsafe.Pointer(&s.Ctl)))
}

// ptr is a slice's first element as C sees it (nil for an empty slice).
func ptr[C, T any](s []T) *C {
	if len(s) == 0 {
		return nil
	}
	return (*C)(unsafe.Pointer(&s[0]))
}

// Cycles is the number of clocks since construction, reset included.
func (r *RTL) Cycles() uint64 { return uint64(C.lhs_cycles(r.m)) }

// Close frees the model and flushes its trace; a trace the file system cut short is an
// error (ErrNoSpace of package fstfile) and is removed.
func (r *RTL) Close() error {
	if r.m == nil {
		return nil
	}
	r.guard.Release() // the writer's close has its room
	C.lhs_free(r.m)
	r.m = nil
	runtime.UnlockOSThread()
	err := r.guard.Finish()
	r.guard = nil
	return err
}

// NativeStallLimit is how many cycles the native loop waits for the next LH entry to commit
// before it gives up: a message of the workload takes at most 17 cycles at the input.
const NativeStallLimit = 1_000_000

// NativeWorkload runs the benchmark workload (rx.Workload) in a C++ loop over the
// Verilated model, with no Go in the loop, and returns the cycles it took. The loop's tail
// ring is the largest (hw.TailSizeMax); its host releases each entry the cycle after it
// commits and a split message's tail units with the next write, as the workload's host does.
// An entry that does not commit within NativeStallLimit cycles ends it with an error.
func NativeWorkload(msgs, seed uint64) (uint64, error) {
	return nativeWorkload(msgs, seed, hw.TailSizeMax, NativeStallLimit)
}

func nativeWorkload(msgs, seed uint64, tailSize uint32, stallLimit uint64) (uint64, error) {
	var r C.lhs_native_result
	C.lhs_native_workload(C.uint64_t(msgs), C.uint64_t(seed), C.uint32_t(tailSize), C.uint64_t(stallLimit), &r)
	cycles := uint64(r.cycles)
	switch {
	case r.stalled != 0:
		why := "the input was not held off"
		if uint64(r.held_off) >= stallLimit {
			why = "the input was held off all that time: the LH buffer or the tail ring is full"
		}
		return cycles, fmt.Errorf("verilator: native workload: waited %d cycles for LH entry %d of %d to commit (%d messages taken whole by the input, %d-byte tail ring); %s",
			stallLimit, uint64(r.commits)+1, msgs, uint64(r.sent), tailSize, why)
	case uint64(r.commits) != msgs:
		return cycles, fmt.Errorf("verilator: native workload committed %d of %d entries", uint64(r.commits), msgs)
	}
	return cycles, nil
}
