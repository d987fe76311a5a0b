package verilator

// #include <stdlib.h>
// #include "lhs_bridge.h"
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"github.com/lhsim/lhsim/gosim"
)

// ErrLibrary is wrapped when a checkpoint was made by another build of the RTL library.
var ErrLibrary = errors.New("checkpoint made by another RTL library build")

// MarshalState saves the whole Verilated model (Verilator --savable), with its cycle count.
// The trace, if any, is not part of the state.
func (r *RTL) MarshalState() ([]byte, error) {
	var n C.size_t
	p := C.lhs_save(r.m, &n)
	if p == nil {
		return nil, errors.New("verilator: saving the model failed")
	}
	defer C.free(unsafe.Pointer(p))
	out := make([]byte, 0, len(libraryHash)+1+int(n))
	out = append(out, libraryHash...)
	out = append(out, 0)
	return append(out, unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))...), nil
}

// UnmarshalState restores a state saved by the same library build; a model from another
// build would not fit it, so it is refused before Verilator sees it.
func (r *RTL) UnmarshalState(data []byte) error {
	hash, state, ok := bytes.Cut(data, []byte{0})
	if !ok {
		return fmt.Errorf("%w: no RTL library hash", gosim.ErrState)
	}
	if string(hash) != libraryHash {
		return fmt.Errorf("verilator: %w (%s; this is %s): rebuild that RTL or start again", ErrLibrary, hash, libraryHash)
	}
	if len(state) == 0 || C.lhs_restore(r.m, (*C.uint8_t)(unsafe.Pointer(&state[0])), C.size_t(len(state))) != 0 {
		return fmt.Errorf("%w: not a Verilator model state", gosim.ErrState)
	}
	return nil
}
