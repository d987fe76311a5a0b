// Package testbench holds the receive path's regression suite: directed and randomized tests.
package testbench

// testbench holds the regression suite of the receive path: directed tests per block
// and for the top, randomized tests with seeds and a scoreboard, run on the Verilated RTL and
// on the Go golden model.

import "encoding/binary"

// envelope builds a message of size bytes: a 16-byte MPI envelope (source, tag,
// communicator, size) and a payload whose bytes depend on their position.
func envelope(src, tag, comm uint32, size int) []byte {
	b := make([]byte, max(size, 16))
	binary.LittleEndian.PutUint32(b[0:], src)
	binary.LittleEndian.PutUint32(b[4:], tag)
	binary.LittleEndian.PutUint32(b[8:], comm)
	binary.LittleEndian.PutUint32(b[12:], uint32(size))
	for i := 16; i < len(b); i++ {
		b[i] = byte(i*7 + int(tag))
	}
	return b[:size]
}
