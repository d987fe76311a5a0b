//go:build lhscoverage

package verilator

// Under the lhscoverage tag the model is the coverage build (scripts/verilate.sh --coverage):
// it counts line and toggle coverage and writes it to $LHSIM_COVERAGE_DIR when freed.

// #cgo LDFLAGS: ${SRCDIR}/../build/verilator-cov/lhs_top/liblhs_top.a -lstdc++ -lz -lpthread -lm
import "C"

// libraryHash identifies the linked library build (a checkpoint restores only into it).
const libraryHash = libHashCov_lhs_top
