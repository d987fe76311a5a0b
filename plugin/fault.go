package plugin

/*
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// What Verilator's $fatal ends in (vl_stop -> vl_fatal in verilated.cpp): the message on
// stdout, a flush, abort().
static void lhs_fault_fatal(const char *msg) {
	printf("%%Error: %s\n", msg);
	printf("Aborting...\n");
	fflush(stdout);
	abort();
}
static void lhs_fault_abort(void) { abort(); }
static void lhs_fault_segv(void) { *(volatile int *)0 = 1; }
static void lhs_fault_hang(void) { for (;;) pause(); }

// After the go-plugin handshake, stdout is no longer read: send the C library's stdout (where
// Verilator prints $display, $fatal and its error messages) to stderr, which the harness keeps.
static void lhs_stdout_to_stderr(void) {
	fflush(stdout);
	dup2(2, 1);
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// FaultEnv names the test-only fault hook of the plugin process: a deliberately broken RTL
// build without rebuilding the RTL. Values:
//
//	fatal@N  print Verilator's $fatal message and abort(), as vl_fatal does, after cycle N
//	abort@N  abort() in C after cycle N (an assertion in the C++ model)
//	segv@N   write through a null pointer in C after cycle N
//	hang@N   block forever in C after cycle N (only the watchdog gets the harness out)
//	panic@N  a Go panic in the plugin after cycle N
//	exit@N   exit(3) after cycle N
//	build    report a different build identity at Open
//	protocol speak go-plugin protocol version ProtocolVersion+1
//
// Normal runs never set it; docs/plugin.md lists it with the tests that use it.
const FaultEnv = "LHSIM_PLUGIN_FAULT"

// fault is a parsed FaultEnv.
type fault struct {
	kind string
	at   uint64 // cycle after which it fires (0: not a cycle fault)
}

func parseFault(s string) (fault, error) {
	if s == "" {
		return fault{}, nil
	}
	kind, at, ok := strings.Cut(s, "@")
	switch kind {
	case "build", "protocol":
		if !ok {
			return fault{kind: kind}, nil
		}
	case "fatal", "abort", "segv", "hang", "panic", "exit":
		n, err := strconv.ParseUint(at, 0, 64)
		if ok && err == nil && n > 0 {
			return fault{kind: kind, at: n}, nil
		}
	}
	return fault{}, fmt.Errorf("plugin: %s=%q: want fatal|abort|segv|hang|panic|exit@CYCLE (CYCLE > 0), build or protocol", FaultEnv, s)
}

// fire stops the process the way kind says.
func (f fault) fire(cycle uint64) {
	switch f.kind {
	case "fatal":
		msg := C.CString(fmt.Sprintf("rtl/lhs_top.v:0: Verilog $stop (%s=%s: injected assertion failure at cycle %d)", FaultEnv, f, cycle))
		C.lhs_fault_fatal(msg)
		C.free(unsafe.Pointer(msg))
	case "abort":
		C.lhs_fault_abort()
	case "segv":
		C.lhs_fault_segv()
	case "hang":
		C.lhs_fault_hang()
	case "panic":
		panic(fmt.Sprintf("plugin: %s=%s: injected panic at cycle %d", FaultEnv, f, cycle))
	case "exit":
		os.Exit(3)
	}
}

func (f fault) String() string {
	if f.at == 0 {
		return f.kind
	}
	return fmt.Sprintf("%s@%d", f.kind, f.at)
}

func stdoutToStderr() { C.lhs_stdout_to_stderr() }
