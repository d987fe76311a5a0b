package fabric

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A packet stays small: sizes, not payload (112 bytes, a size class of its own; 96 before it
// carried its network, for the landing event it is the handler of).
func TestPacketSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(Packet{}), uintptr(112))
	require.Less(t, unsafe.Offsetof(Packet{}.requested), uintptr(64), "the hop's fields in the first cache line")
}
