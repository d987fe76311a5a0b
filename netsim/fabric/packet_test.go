package fabric

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A packet stays small: sizes, not payload (96 bytes, a size class of its own).
func TestPacketSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(Packet{}), uintptr(96))
	require.Less(t, unsafe.Offsetof(Packet{}.requested), uintptr(64), "the hop's fields in the first cache line")
}
