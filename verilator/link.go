//go:build !lhscoverage

package verilator

// The library scripts/verilate.sh builds; coverage builds link link_coverage.go's instead.

// #cgo LDFLAGS: ${SRCDIR}/../build/verilator/lhs_top/liblhs_top.a -lstdc++ -lz -lpthread -lm
import "C"

// libraryHash identifies the linked library build (a checkpoint restores only into it).
const libraryHash = libHash_lhs_top
